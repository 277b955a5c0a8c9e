import { TABLES } from '@svc/store';
import { z } from 'zod';
import { MAX_SLUG } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { confine } from '../transfer/confine.js';
import { checkSchema, fileLines, parseRecords, readHeader, recordColumns } from '../transfer/file.js';
import { renewIds, writeProject } from '../transfer/write.js';
import { actorsHereOf, adoptedActors, importInbox, projectRecordOf } from './transfer-shared.js';

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
    as_slug: z.string().max(MAX_SLUG).optional().describe('Import as a new project with this slug, with fresh ids'),
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
    const { keptIdentity, adopted, actorsHere } = await confine(ctx.tx, records, project, input.as_slug !== undefined);
    const ids = input.as_slug === undefined ? undefined : await renewIds(ctx.tx, records, project, input.as_slug);
    const projectId = await writeProject(ctx.tx, records, columns, { ids, keptIdentity }, ctx.progress);
    const counts = Object.fromEntries(TABLES.map((t) => [t.kind, records.filter((r) => r.spec === t).length]));
    // The import's own audit row names the project as its target but belongs to no project, so a re-export
    // of the imported project is byte-for-byte the file it came from.
    ctx.audit({ project_id: null, target_kind: 'project', target_id: projectId, details: { imported: counts, fresh_ids: ids !== undefined, ...adoptedActors(adopted) } });
    return { project_id: projectId, slug: String(project.row.slug), counts, ...actorsHereOf(actorsHere) };
  },
});
