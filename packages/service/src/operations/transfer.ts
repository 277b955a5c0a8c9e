import { randomUUID } from 'node:crypto';
import { isSlug, isUuid, jsonDepth, MAX_JSON_DEPTH, SvcError } from '@svc/domain';
import {
  type Database,
  exportRows,
  importRows,
  type Kysely,
  migrationStatus,
  resetIdentities,
  resolveProject,
  TABLES,
  type TableSpec,
  tableColumns,
} from '@svc/store';
import { sql } from 'kysely';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

/** The export format: JSON Lines, a header, one record per row, an end record. Bump on any change. */
export const FORMAT = 'svc-export';
export const FORMAT_VERSION = 1;

interface Header {
  format: string;
  format_version: number;
  schema: string;
  release: string;
  project: string;
}

export const projectExport = defineOperation({
  name: 'project_export',
  surface: 'operator',
  title: 'Export a project',
  description:
    "Export a project's whole memory as JSON Lines: a header (format and schema version), every row — all " +
    'item versions, links, history, work units, tasks, QA checks, promoted captures and their bridge rows, ' +
    'ideas, glossary, sync jobs, audit, settings and the actors they name — and an end record.',
  input: z.object({ project_id: projectRef }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  snapshot: true,
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const status = await migrationStatus(ctx.tx);
    const header: Header = {
      format: FORMAT,
      format_version: FORMAT_VERSION,
      schema: status.current ?? '',
      release: status.currentRelease ?? '',
      project: project.slug,
    };
    const lines = [JSON.stringify(header)];
    const counts: Record<string, number> = {};
    for (const [i, spec] of TABLES.entries()) {
      const columns = await tableColumns(ctx.tx, spec);
      const rows = await exportRows(ctx.tx, spec, columns, project.id);
      for (const row of rows) lines.push(JSON.stringify({ type: spec.kind, ...row }));
      counts[spec.kind] = rows.length;
      ctx.progress(i + 1, TABLES.length, spec.kind);
    }
    lines.push(JSON.stringify({ type: 'end', records: lines.length - 1 }));
    return { lines, counts };
  },
});

interface Record_ {
  line: number;
  spec: TableSpec;
  row: Record<string, unknown>;
}

function lineError(line: number, message: string): SvcError {
  return new SvcError('invalid_input', `line ${line}: ${message}`, { field: 'file', line });
}

/** Replace every string equal to a mapped id, anywhere in a value (columns and JSON alike). */
function remap(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => remap(v, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, remap(v, ids)]));
  }
  return value;
}

const SHARED = new Set(['actor', 'item_type']);
const BATCH = 500;

export const projectImport = defineOperation({
  name: 'project_import',
  surface: 'operator',
  title: 'Import a project',
  description:
    'Restore a project from an export, in one transaction: every line is checked first, and a truncated or ' +
    'corrupted file writes nothing and names the line. Ids are kept (into a database without that project); ' +
    'with as_slug the project is imported under a new slug with every id of its rows renewed.',
  input: z.object({
    jsonl: z.string().describe('The export file'),
    as_slug: z.string().max(63).optional().describe('Import as a new project with this slug, with fresh ids'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const text = input.jsonl.endsWith('\n') ? input.jsonl.slice(0, -1) : input.jsonl;
    const lines = text.split('\n');
    let header: Header;
    try {
      header = JSON.parse(lines[0] ?? '') as Header;
    } catch {
      throw lineError(1, 'not a svc export (the header is not JSON)');
    }
    if (header.format !== FORMAT) throw lineError(1, `not a svc export (format '${String(header.format)}')`);
    if (header.format_version !== FORMAT_VERSION) throw lineError(1, `format version ${header.format_version} is not supported (this svc reads ${FORMAT_VERSION})`);
    const status = await migrationStatus(ctx.tx);
    if (header.schema !== status.current) {
      throw lineError(1, `exported from schema ${header.schema} (${header.release}); this database is at ${status.current} (${status.currentRelease}): import with the matching svc version`);
    }

    const byKind = new Map(TABLES.map((t) => [t.kind, t]));
    const columns = new Map<string, string[]>();
    for (const spec of TABLES) columns.set(spec.kind, await tableColumns(ctx.tx, spec));
    const records: Record_[] = [];
    let ended = false;
    for (let i = 1; i < lines.length; i++) {
      const number = i + 1;
      if (ended) throw lineError(number, 'content after the end record');
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(lines[i] as string) as Record<string, unknown>;
      } catch {
        throw lineError(number, 'not valid JSON (is the file truncated or edited?)');
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw lineError(number, 'not a JSON object');
      const { type, ...row } = parsed;
      if (type === 'end') {
        if (parsed.records !== records.length) throw lineError(number, `the end record counts ${String(parsed.records)} records, the file has ${records.length}`);
        ended = true;
        continue;
      }
      const spec = byKind.get(String(type));
      if (!spec) throw lineError(number, `unknown record type '${String(type)}'`);
      const known = columns.get(spec.kind) ?? [];
      for (const key of Object.keys(row)) if (!known.includes(key)) throw lineError(number, `unknown field '${key}' for a ${spec.kind} record`);
      for (const key of known) if (!(key in row)) throw lineError(number, `missing field '${key}' for a ${spec.kind} record`);
      // The file bypassed the input gate: bound its values as the gate would, before anything walks them.
      for (const [key, value] of Object.entries(row)) {
        if (jsonDepth(value) > MAX_JSON_DEPTH) throw lineError(number, `field '${key}' is nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
      if (spec.kind !== 'history' && spec.kind !== 'audit' && spec.kind !== 'item_type' && spec.kind !== 'capture_promotion' && !isUuid(String(row.id))) {
        throw lineError(number, `field 'id' is not a UUID`);
      }
      records.push({ line: number, spec, row });
    }
    if (!ended) throw lineError(lines.length + 1, 'the file ends without its end record (it is truncated)');
    const projects = records.filter((r) => r.spec.kind === 'project');
    if (projects.length !== 1) throw lineError(projects[1]?.line ?? 1, 'an export holds exactly one project record');
    const projectRecord = projects[0] as Record_;

    const fresh = input.as_slug !== undefined;
    let ids = new Map<string, string>();
    if (fresh) {
      const slug = input.as_slug as string;
      if (!isSlug(slug)) throw new SvcError('invalid_input', `as_slug: '${slug}' is not a valid slug`, { field: 'as_slug' });
      for (const r of records) {
        if (SHARED.has(r.spec.kind) || r.spec.identity) continue;
        if (typeof r.row.id === 'string') ids.set(r.row.id, randomUUID());
      }
      projectRecord.row.slug = slug;
    } else {
      ids = new Map();
      const clash = await ctx.tx
        .selectFrom('projects')
        .select(['id', 'slug'])
        .where((eb) => eb.or([eb('id', '=', String(projectRecord.row.id)), eb('slug', '=', String(projectRecord.row.slug))]))
        .executeTakeFirst();
      if (clash) {
        throw new SvcError('conflict', `project '${clash.slug}' already exists here; import it under a new slug with as_slug (--as)`, { project_id: clash.id });
      }
    }

    const tx = ctx.tx as Kysely<Database>;
    let done = 0;
    for (const spec of TABLES) {
      const group = records.filter((r) => r.spec === spec);
      const rows = group.map((r) => (fresh ? (remap(r.row, ids) as Record<string, unknown>) : r.row));
      const cols = columns.get(spec.kind) ?? [];
      for (let start = 0; start < rows.length; start += BATCH) {
        const batch = rows.slice(start, start + BATCH);
        const lineOf = (k: number) => (group[start + k] as Record_).line;
        await insertBatch(tx, spec, cols, batch, !fresh, lineOf);
        done += batch.length;
        ctx.progress(done, records.length, spec.kind);
      }
    }
    if (!fresh) await resetIdentities(tx);
    const projectId = String(remap(projectRecord.row.id, ids));
    const counts = Object.fromEntries(TABLES.map((t) => [t.kind, records.filter((r) => r.spec === t).length]));
    // The import's own audit row names the project as its target but belongs to no project, so a re-export
    // of the imported project is byte-for-byte the file it came from.
    ctx.audit({ project_id: null, target_kind: 'project', target_id: projectId, details: { imported: counts, fresh_ids: fresh } });
    return { project_id: projectId, slug: String(projectRecord.row.slug), counts };
  },
});

/**
 * Insert one batch under a savepoint. Shared rows (actors, custom types) that exist already are kept. If the
 * batch fails, insert its rows one by one to name the line that the database refuses.
 */
async function insertBatch(
  tx: Kysely<Database>,
  spec: TableSpec,
  columns: string[],
  rows: Record<string, unknown>[],
  keepIdentity: boolean,
  lineOf: (index: number) => number,
): Promise<void> {
  let pending = rows;
  if (SHARED.has(spec.kind)) {
    const key = spec.kind === 'actor' ? 'id' : 'key';
    const existing = await sql<{ k: string }>`select ${sql.ref(key)}::text as k from ${sql.table(spec.table)} where ${sql.ref(key)}::text in (${sql.join(rows.map((r) => String(r[key])))})`.execute(tx);
    const have = new Set(existing.rows.map((r) => r.k));
    pending = rows.filter((r) => !have.has(String(r[key])));
  }
  if (pending.length === 0) return;
  await sql`savepoint import_batch`.execute(tx);
  try {
    await importRows(tx, spec, columns, pending, keepIdentity);
    await sql`release savepoint import_batch`.execute(tx);
    return;
  } catch {
    await sql`rollback to savepoint import_batch`.execute(tx);
  }
  for (const [k, row] of pending.entries()) {
    await sql`savepoint import_row`.execute(tx);
    try {
      await importRows(tx, spec, columns, [row], keepIdentity);
      await sql`release savepoint import_row`.execute(tx);
    } catch (error) {
      await sql`rollback to savepoint import_row`.execute(tx);
      const detail = String((error as { message?: unknown }).message ?? 'refused').split('\n')[0];
      throw lineError(lineOf(rows.indexOf(row) === -1 ? k : rows.indexOf(row)), `the database refuses this ${spec.kind}: ${detail}`);
    }
  }
}
