import { SvcError } from '@svc/domain';
import { type ColumnType, exportRows, INBOX_TABLES, migrationStatus, type TableSpec, tableColumns } from '@svc/store';
import type { ReadContext, WriteContext } from '../operation.js';
import { confineInbox } from '../transfer/confine.js';
import { FORMAT, FORMAT_VERSION, type Header, type ImportRecord, lineError } from '../transfer/file.js';
import { writeInbox } from '../transfer/write.js';

/** The lines of an export: the header, one record per row of `tables` (the project's, or the inbox's), the end. */
export async function exportLines(ctx: ReadContext, tables: readonly TableSpec[], projectId: string | null, scope: Pick<Header, 'project' | 'inbox'>) {
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

/** For the import's audit row: which actors of the file were taken for actors here by their email (file id → id here). */
export const adoptedActors = (adopted: Map<string, string>) => (adopted.size > 0 ? { actors_by_email: Object.fromEntries(adopted) } : {});

/**
 * For the import's answer: the emails of the file's actors that are actors here, to whom its records are attributed
 * (absent when none). A file can name anyone's email; the operator sees whom it signs as (decision 0063).
 */
export const actorsHereOf = (emails: string[]) => (emails.length > 0 ? { actors_here: emails } : {});

/** The file's one project record. */
export function projectRecordOf(records: ImportRecord[]): ImportRecord {
  const projects = records.filter((r) => r.spec.kind === 'project');
  if (projects.length !== 1) throw lineError(projects[1]?.line ?? 1, 'an export holds exactly one project record');
  return projects[0] as ImportRecord;
}

/**
 * Restore the shared inbox from `svc export --inbox`: captures of no project and the actors they name. The same
 * trust rules as a project file (docs/decisions/0014): only those kinds, references inside the file, redacted
 * captures masked, and no capture id that exists here already (it would be someone else's capture).
 */
export async function importInbox(ctx: WriteContext, records: ImportRecord[], columns: Map<string, ColumnType[]>, asSlug: string | undefined) {
  if (asSlug !== undefined) throw new SvcError('invalid_input', 'as_slug: the file is the shared inbox, which belongs to no project; import it without --as', { field: 'as_slug' });
  const { adopted, actorsHere } = await confineInbox(ctx.tx, records);
  await writeInbox(ctx.tx, records, columns, ctx.progress);
  const counts = Object.fromEntries(INBOX_TABLES.map((t) => [t.kind, records.filter((r) => r.spec.kind === t.kind).length]));
  ctx.audit({ project_id: null, target_kind: 'inbox', target_id: null, details: { imported: counts, ...adoptedActors(adopted) } });
  return { inbox: true, counts, ...actorsHereOf(actorsHere) };
}
