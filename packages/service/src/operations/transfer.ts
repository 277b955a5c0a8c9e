import { SvcError } from '@svc/domain';
import { type ColumnType, exportRows, INBOX_TABLES, migrationStatus, resolveProject, TABLES, type TableSpec, tableColumns } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation, type ReadContext, type WriteContext } from '../operation.js';
import { confine, confineInbox } from '../transfer/confine.js';
import { checkSchema, FORMAT, FORMAT_VERSION, fileLines, type Header, type ImportRecord, lineError, parseRecords, readHeader, recordColumns } from '../transfer/file.js';
import { renewIds, writeInbox, writeProject } from '../transfer/write.js';

export { IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES } from '../transfer/file.js';

/** The lines of an export: the header, one record per row of `tables` (the project's, or the inbox's), the end. */
async function exportLines(ctx: ReadContext, tables: readonly TableSpec[], projectId: string | null, scope: Pick<Header, 'project' | 'inbox'>) {
  const status = await migrationStatus(ctx.db);
  const header: Header = {
    format: FORMAT,
    format_version: FORMAT_VERSION,
    schema: status.current ?? '',
    release: status.currentRelease ?? '',
    ...scope,
  };
  const lines = [JSON.stringify(header)];
  const counts: Record<string, number> = {};
  for (const [i, spec] of tables.entries()) {
    const columns = await tableColumns(ctx.db, spec);
    const rows = await exportRows(ctx.db, spec, columns, projectId);
    for (const row of rows) lines.push(JSON.stringify({ type: spec.kind, ...row }));
    counts[spec.kind] = rows.length;
    ctx.progress(i + 1, tables.length, spec.kind);
  }
  lines.push(JSON.stringify({ type: 'end', records: lines.length - 1 }));
  return { lines, counts };
}

export const projectExport = defineOperation({
  name: 'project_export',
  surface: 'operator',
  title: 'Export a project',
  description:
    "Export a project's whole memory as JSON Lines: a header (format and schema version), every row — all " +
    'item versions, links, history, work units, tasks, QA checks, the captures filed under it or promoted ' +
    'into it (redacted ones masked) and their bridge rows, ideas, glossary, sync jobs, audit, settings and the ' +
    'actors they name — and an end record.',
  input: z.object({ project_id: projectRef }),
  kind: 'read',
  annotations: { idempotentHint: true },
  snapshot: true,
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    return exportLines(ctx, TABLES, project.id, { project: project.slug });
  },
});

export const inboxExport = defineOperation({
  name: 'inbox_export',
  surface: 'operator',
  title: 'Export the shared inbox',
  description:
    'Export the shared inbox as JSON Lines in the export format: a header saying inbox, the captures filed ' +
    'under no project and promoted into none (redacted ones masked), the actors they name, and an end record. ' +
    "A promoted capture travels with its project's export instead.",
  input: z.object({}),
  kind: 'read',
  annotations: { idempotentHint: true },
  snapshot: true,
  async run(ctx) {
    return exportLines(ctx, INBOX_TABLES, null, { inbox: true });
  },
});

export const projectImport = defineOperation({
  name: 'project_import',
  surface: 'operator',
  title: 'Import a project',
  description:
    'Restore a project from an export, in one transaction: every line is checked first, and a truncated, ' +
    "corrupted or crafted file writes nothing and names the line. Every record must belong to the file's one " +
    'project and point only at records of the same file. Ids are kept (into a database without them); with ' +
    'as_slug the project is imported under a new slug with every id of its rows renewed. A file of the shared ' +
    'inbox (svc export --inbox) restores its captures, none of whose ids may exist here.',
  input: z.object({
    lines: z.array(z.string()).describe('The export file, one string per line, without the line breaks'),
    as_slug: z.string().max(63).optional().describe('Import as a new project with this slug, with fresh ids'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  /**
   * A pipeline (docs/decisions/0036): read the file (size, header, records), check it holds one project and
   * points only inside itself, renew its ids when imported as a copy, write it, and record the import.
   */
  async run(ctx, input) {
    const lines = fileLines(input.lines);
    const header = readHeader(lines[0]);
    await checkSchema(ctx.tx, header);
    const columns = await recordColumns(ctx.tx);
    const records = parseRecords(lines, columns);
    if (header.inbox) return importInbox(ctx, records, columns, input.as_slug);

    const project = projectRecordOf(records);
    const keptIdentity = await confine(ctx.tx, records, project, input.as_slug !== undefined);
    const ids = input.as_slug === undefined ? undefined : await renewIds(ctx.tx, records, project, input.as_slug);
    const projectId = await writeProject(ctx.tx, records, columns, { ids, keptIdentity }, ctx.progress);
    const counts = Object.fromEntries(TABLES.map((t) => [t.kind, records.filter((r) => r.spec === t).length]));
    // The import's own audit row names the project as its target but belongs to no project, so a re-export
    // of the imported project is byte-for-byte the file it came from.
    ctx.audit({ project_id: null, target_kind: 'project', target_id: projectId, details: { imported: counts, fresh_ids: ids !== undefined } });
    return { project_id: projectId, slug: String(project.row.slug), counts };
  },
});

/** The file's one project record. */
function projectRecordOf(records: ImportRecord[]): ImportRecord {
  const projects = records.filter((r) => r.spec.kind === 'project');
  if (projects.length !== 1) throw lineError(projects[1]?.line ?? 1, 'an export holds exactly one project record');
  return projects[0] as ImportRecord;
}

/**
 * Restore the shared inbox from `svc export --inbox`: captures of no project and the actors they name. The same
 * trust rules as a project file (docs/decisions/0014): only those kinds, references inside the file, redacted
 * captures masked, and no capture id that exists here already (it would be someone else's capture).
 */
async function importInbox(ctx: WriteContext, records: ImportRecord[], columns: Map<string, ColumnType[]>, asSlug: string | undefined) {
  if (asSlug !== undefined) throw new SvcError('invalid_input', 'as_slug: the file is the shared inbox, which belongs to no project; import it without --as', { field: 'as_slug' });
  await confineInbox(ctx.tx, records);
  await writeInbox(ctx.tx, records, columns, ctx.progress);
  const counts = Object.fromEntries(INBOX_TABLES.map((t) => [t.kind, records.filter((r) => r.spec.kind === t.kind).length]));
  ctx.audit({ project_id: null, target_kind: 'inbox', target_id: null, details: { imported: counts } });
  return { inbox: true, counts };
}
