import { randomUUID } from 'node:crypto';
import { isSlug, isTypeKey, type JsonSchema, MAX_JSON_DEPTH, SvcError, validateContext, validateTypeSchema } from '@svc/domain';
import {
  type ColumnType,
  type Database,
  deferSearchIndex,
  exportRows,
  INBOX_TABLES,
  importRows,
  type Kysely,
  migrationStatus,
  rebuildSearchIndex,
  REDACTED,
  resetIdentities,
  resolveProject,
  TABLES,
  type TableSpec,
  tableColumns,
  tableColumnTypes,
} from '@svc/store';
import { sql } from 'kysely';
import { z } from 'zod';
import { fromDatabase } from '../errors.js';
import { isIsoTime, projectRef } from '../inputs.js';
import { defineOperation, type ReadContext, type WriteContext } from '../operation.js';
import { validateProjectSettings } from './project-config.js';

/** The export format: JSON Lines, a header, one record per row, an end record. Bump on any change. */
export const FORMAT = 'svc-export';
export const FORMAT_VERSION = 1;

/** A project file names its project; a file of the shared inbox says `inbox: true` instead. */
interface Header {
  format: string;
  format_version: number;
  schema: string;
  release: string;
  project?: string;
  inbox?: true;
}

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

interface Record_ {
  line: number;
  spec: TableSpec;
  row: Record<string, unknown>;
}

/** The largest import file the CLI reads, and the longest line (the HTTP body limit): docs/decisions/0014. */
export const IMPORT_MAX_BYTES = 512 * 1024 * 1024;
export const IMPORT_MAX_LINE_BYTES = 2 * 1024 * 1024;

function lineError(line: number, message: string, recordField?: string): SvcError {
  return new SvcError('invalid_input', `line ${line}: ${message}`, { field: 'file', line, ...(recordField ? { record_field: recordField } : {}) });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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

/** JSON with object keys sorted, so two schemas compare equal whatever order jsonb gave their keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** What is wrong with a JSON value stored as jsonb, walking it without recursion (a line can nest deeply). */
function jsonProblem(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return 'holds a NUL character';
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
      for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
        if (typeof k === 'string' && k.includes('\u0000')) return 'holds a NUL character';
        if (k === '__proto__') return "holds a '__proto__' key";
        stack.push([child, depth + 1]);
      }
    }
  }
  return undefined;
}

/** What is wrong with a value for a column of this type, in words; undefined when it fits. */
function valueProblem(column: ColumnType, value: unknown): string | undefined {
  if (value === null) return column.nullable ? undefined : 'must not be null';
  switch (column.type) {
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? undefined : 'must be a UUID (lowercase hex)';
    case 'text':
      if (typeof value !== 'string') return 'must be a string';
      return value.includes('\u0000') ? 'holds a NUL character' : undefined;
    case 'timestamptz':
      return typeof value === 'string' && TIMESTAMP.test(value) && isIsoTime(value) ? undefined : 'must be an ISO 8601 time such as 2024-05-01T12:00:00.000Z';
    case 'int4':
      return Number.isInteger(value) && (value as number) >= -2_147_483_648 && (value as number) <= 2_147_483_647 ? undefined : 'must be a whole number below 2^31';
    case 'int8':
      // Exports write bigint ids as strings (as the database driver reads them).
      return (typeof value === 'string' && /^[1-9]\d{0,17}$/.test(value)) || (Number.isSafeInteger(value) && (value as number) >= 1)
        ? undefined
        : 'must be a positive whole number (as a string of at most 18 digits)';
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case '_text':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && !v.includes('\u0000')) ? undefined : 'must be an array of strings';
    case 'jsonb':
      return jsonProblem(value);
    default:
      return undefined;
  }
}

const SHARED = new Set(['actor', 'item_type']);
const BATCH = 500;

/** The column that identifies a record of each kind (unique within a file). */
const KEY: Record<string, string> = { item_type: 'key', capture_promotion: 'capture_id' };

/**
 * Every reference a record makes, and the kind of record of the same file it must name: a file can only
 * point inside itself, so nothing it holds can attach to another project's rows (docs/decisions/0014).
 */
const REFERENCES: Record<string, [column: string, kind: string][]> = {
  work_unit: [['system_id', 'system'], ['created_by', 'actor']],
  item: [['item_type', 'item_type'], ['chain_id', 'item'], ['supersedes_id', 'item'], ['system_id', 'system'], ['work_unit_id', 'work_unit'], ['created_by', 'actor']],
  link: [['from_chain_id', 'item'], ['to_chain_id', 'item'], ['created_by', 'actor']],
  history: [['item_id', 'item'], ['chain_id', 'item'], ['actor_id', 'actor']],
  glossary_term: [['group_id', 'glossary_group'], ['created_by', 'actor']],
  glossary_rejection: [['group_id', 'glossary_group'], ['rejected_by', 'actor']],
  capture: [['created_by', 'actor'], ['redacted_by', 'actor']],
  capture_promotion: [['capture_id', 'capture'], ['item_id', 'item'], ['promoted_by', 'actor']],
  idea: [['work_unit_id', 'work_unit'], ['author_id', 'actor'], ['redacted_by', 'actor']],
  sync_job: [['created_by', 'actor']],
  audit: [['actor_id', 'actor']],
};

const EMAIL = /^[^@\s]+@[^@\s]+$/;

function readHeader(first: string | undefined): Header {
  let raw: unknown;
  try {
    raw = JSON.parse(first ?? '');
  } catch {
    throw lineError(1, 'not a svc export (the header is not JSON)');
  }
  if (!isObject(raw) || raw.format !== FORMAT) {
    throw lineError(1, `not a svc export (the first line must be a header with format '${FORMAT}')`, 'format');
  }
  const version = raw.format_version;
  if (version !== FORMAT_VERSION) {
    throw lineError(
      1,
      typeof version === 'number'
        ? `format version ${version} is not supported (this svc reads version ${FORMAT_VERSION})`
        : `format_version must be the number ${FORMAT_VERSION}, not ${JSON.stringify(version) ?? 'missing'}`,
      'format_version',
    );
  }
  if (raw.inbox !== undefined && raw.inbox !== true) throw lineError(1, `header field 'inbox' must be true or absent`, 'inbox');
  for (const key of ['schema', 'release', ...(raw.inbox === true ? [] : ['project'])]) {
    if (typeof raw[key] !== 'string') throw lineError(1, `header field '${key}' must be a string`, key);
  }
  return raw as unknown as Header;
}

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
  async run(ctx, input) {
    const lines = input.lines.at(-1) === '' ? input.lines.slice(0, -1) : input.lines;
    let total = 0;
    for (const [i, line] of lines.entries()) {
      const bytes = Buffer.byteLength(line);
      if (bytes > IMPORT_MAX_LINE_BYTES) throw new SvcError('payload_too_large', `line ${i + 1}: longer than the ${IMPORT_MAX_LINE_BYTES / 1024 / 1024} MiB a line of an import may hold`, { field: 'file', line: i + 1 });
      total += bytes + 1;
    }
    if (total > IMPORT_MAX_BYTES) throw new SvcError('payload_too_large', `the file is larger than the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB an import may be`, { field: 'file' });
    const header = readHeader(lines[0]);
    const status = await migrationStatus(ctx.tx);
    if (header.schema !== status.current) {
      throw lineError(1, `exported from schema ${header.schema} (${header.release}); this database is at ${status.current} (${status.currentRelease}): import with the matching svc version`, 'schema');
    }

    const byKind = new Map(TABLES.map((t) => [t.kind, t]));
    const columns = new Map<string, ColumnType[]>();
    for (const spec of TABLES) columns.set(spec.kind, await tableColumnTypes(ctx.tx, spec));
    const records: Record_[] = [];
    let ended = false;
    for (let i = 1; i < lines.length; i++) {
      const number = i + 1;
      if (ended) throw lineError(number, 'content after the end record');
      let parsed: unknown;
      try {
        parsed = JSON.parse(lines[i] as string);
      } catch {
        throw lineError(number, 'not valid JSON (is the file truncated or edited?)');
      }
      if (!isObject(parsed)) throw lineError(number, 'not a JSON object');
      const { type, ...row } = parsed;
      if (type === 'end') {
        if (parsed.records !== records.length) throw lineError(number, `the end record counts ${JSON.stringify(parsed.records) ?? 'nothing'} records, the file has ${records.length}`, 'records');
        ended = true;
        continue;
      }
      const spec = typeof type === 'string' ? byKind.get(type) : undefined;
      if (!spec) throw lineError(number, `unknown record type ${JSON.stringify(type) ?? '(none)'}; records are ${TABLES.map((t) => t.kind).join(', ')}`, 'type');
      const known = columns.get(spec.kind) ?? [];
      for (const key of Object.keys(row)) if (!known.some((c) => c.name === key)) throw lineError(number, `unknown field '${key}' for a ${spec.kind} record`, key);
      for (const column of known) {
        if (!(column.name in row)) throw lineError(number, `missing field '${column.name}' for a ${spec.kind} record`, column.name);
        const problem = valueProblem(column, row[column.name]);
        if (problem) throw lineError(number, `field '${column.name}' of a ${spec.kind} record ${problem}`, column.name);
      }
      records.push({ line: number, spec, row });
    }
    if (!ended) throw lineError(lines.length + 1, 'the file ends without its end record (it is truncated)');
    if (header.inbox) return importInbox(ctx, records, columns, input.as_slug);
    const projects = records.filter((r) => r.spec.kind === 'project');
    if (projects.length !== 1) throw lineError(projects[1]?.line ?? 1, 'an export holds exactly one project record');
    const projectRecord = projects[0] as Record_;

    const fresh = input.as_slug !== undefined;
    const keptIdentity = await confine(ctx.tx, records, projectRecord, fresh);
    let ids = new Map<string, string>();
    if (fresh) {
      const slug = input.as_slug as string;
      if (!isSlug(slug)) throw new SvcError('invalid_input', `as_slug: '${slug}' is not a valid slug (lowercase letters, digits and hyphens, up to 63)`, { field: 'as_slug' });
      const taken = await ctx.tx.selectFrom('projects').select('id').where('slug', '=', slug).executeTakeFirst();
      if (taken) throw new SvcError('conflict', `project slug '${slug}' already exists: choose another slug for --as`, { field: 'as_slug', project_id: taken.id });
      for (const r of records) {
        if (SHARED.has(r.spec.kind) || r.spec.identity) continue;
        if (typeof r.row.id === 'string') ids.set(r.row.id, randomUUID());
      }
      projectRecord.row.slug = slug;
    } else {
      ids = new Map();
    }

    const { tx } = ctx;
    // The search index is built once at the end, not row by row.
    await deferSearchIndex(tx);
    let done = 0;
    for (const spec of TABLES) {
      const group = records.filter((r) => r.spec === spec);
      const rows = group.map((r) => (fresh ? (remap(r.row, ids) as Record<string, unknown>) : r.row));
      const cols = (columns.get(spec.kind) ?? []).map((c) => c.name);
      for (let start = 0; start < rows.length; start += BATCH) {
        const batch = rows.slice(start, start + BATCH);
        const lineOf = (k: number) => (group[start + k] as Record_).line;
        await insertBatch(tx, spec, cols, batch, !fresh && keptIdentity.has(spec.kind), lineOf);
        done += batch.length;
        ctx.progress(done, records.length, spec.kind);
      }
    }
    await resetIdentities(tx);
    const projectId = String(remap(projectRecord.row.id, ids));
    await rebuildSearchIndex(tx, projectId);
    const counts = Object.fromEntries(TABLES.map((t) => [t.kind, records.filter((r) => r.spec === t).length]));
    // The import's own audit row names the project as its target but belongs to no project, so a re-export
    // of the imported project is byte-for-byte the file it came from.
    ctx.audit({ project_id: null, target_kind: 'project', target_id: projectId, details: { imported: counts, fresh_ids: fresh } });
    return { project_id: projectId, slug: String(projectRecord.row.slug), counts };
  },
});

/**
 * Check, before anything is written, that the file holds one project and nothing else: every record carries
 * the project's id, every reference names a record of the same file, settings and item-type schemas pass the
 * checks they pass when given by hand, and (keeping ids) no id is taken already. Returns the identity-keyed
 * kinds (history, audit) whose ids are free here and can be kept.
 */
async function confine(tx: Kysely<Database>, records: Record_[], projectRecord: Record_, fresh: boolean): Promise<Set<string>> {
  const projectId = projectRecord.row.id as string;
  const { slug, settings } = projectRecord.row;
  if (typeof slug !== 'string' || !isSlug(slug)) throw lineError(projectRecord.line, `field 'slug' '${String(slug)}' is not a valid slug`, 'slug');
  try {
    validateProjectSettings(settings);
  } catch (error) {
    throw lineError(projectRecord.line, `field 'settings': ${(error as Error).message}`, 'settings');
  }
  if (!fresh) {
    const clash = await tx
      .selectFrom('projects')
      .select(['id', 'slug'])
      .where((eb) => eb.or([eb('id', '=', projectId), eb('slug', '=', slug)]))
      .executeTakeFirst();
    if (clash) {
      const what = clash.slug === slug ? `project slug '${slug}' already exists` : `project id ${projectId} already exists (as '${clash.slug}')`;
      throw new SvcError('conflict', `${what}: import with --as NEW_SLUG (as_slug) to import it beside, with fresh ids`, { field: 'as_slug', project_id: clash.id });
    }
  }

  const has = uniqueKeys(records);

  // Item types: the system ones exist here; a file's own are checked as `svc type add` checks them.
  const typeRecords = records.filter((r) => r.spec.kind === 'item_type');
  const existingTypes = await tx.selectFrom('item_types').select(['key', 'schema', 'owner']).execute();
  const existing = new Map(existingTypes.map((t) => [t.key, t]));
  const schemas = new Map<string, JsonSchema>();
  for (const t of existingTypes) if (t.owner === 'system') schemas.set(t.key, t.schema as JsonSchema);
  for (const r of typeRecords) {
    const key = r.row.key as string;
    if (!isTypeKey(key)) throw lineError(r.line, `field 'key': '${key}' is not a valid type key`, 'key');
    const here = existing.get(key);
    if (r.row.owner === 'system' || here?.owner === 'system') throw lineError(r.line, `item type '${key}' is a system type or claims to be one; an export carries only custom types`, 'owner');
    let schema: JsonSchema;
    try {
      schema = validateTypeSchema(r.row.schema);
    } catch (error) {
      throw lineError(r.line, `field 'schema' of item type '${key}': ${(error as Error).message.replace(/^schema(\.\w+)?: /, '')}`, 'schema');
    }
    if (here && canonical(here.schema) !== canonical(schema)) {
      throw lineError(r.line, `item type '${key}' exists here with a different schema; the file cannot change it`, 'schema');
    }
    schemas.set(key, schema);
  }

  await checkActors(tx, records);

  const fileIds = new Set(records.map((r) => String(r.row.id)));
  const gone: Gone[] = [];
  const promotions = new Set(records.filter((r) => r.spec.kind === 'capture_promotion').map((r) => String(r.row.capture_id)));
  const captureStates = new Map(records.filter((r) => r.spec.kind === 'capture').map((r) => [String(r.row.id), r.row.review_state]));
  for (const r of records) {
    const { kind } = r.spec;
    // A capture of the shared inbox (project_id null) travels with the project it was promoted into.
    const unfiled = kind === 'capture' && r.row.project_id === null;
    if (kind !== 'project' && 'project_id' in r.row && r.row.project_id !== projectId && !unfiled) {
      throw lineError(r.line, `field 'project_id' is ${String(r.row.project_id)}, not the imported project ${projectId}: a file holds one project's records only`, 'project_id');
    }
    checkReferences(r, (target, value) => (target === 'item_type' ? schemas.has(value) : has(target, value)));
    if (unfiled && !promotions.has(String(r.row.id))) {
      throw lineError(r.line, 'a capture of no project that no capture_promotion of this file names: an export holds only the captures filed under its project or promoted into it', 'project_id');
    }
    if (kind === 'audit') checkAuditTarget(r, fileIds, gone);
    if (kind === 'capture') checkCapture(r, promotions.has(String(r.row.id)));
    if (kind === 'capture_promotion') {
      const state = captureStates.get(String(r.row.capture_id));
      if (state !== 'promoted' && state !== 'redacted') {
        throw lineError(r.line, `field 'capture_id' names a capture in state ${String(state)}; a promoted capture is in state promoted (or redacted)`, 'capture_id');
      }
    }
    if (kind === 'item') {
      const type = String(r.row.item_type);
      try {
        validateContext(type, schemas.get(type) as JsonSchema, r.row.context);
      } catch (error) {
        throw lineError(r.line, `field ${(error as Error).message}`, 'context');
      }
      if (type === 'qa_check' && isObject(r.row.context)) {
        for (const field of ['target_task_ids', 'target_item_ids']) {
          const targets = r.row.context[field];
          for (const target of Array.isArray(targets) ? targets : []) {
            if (!has('item', String(target))) throw lineError(r.line, `field 'context.${field}' names item ${String(target)}, which is not in this file`, 'context');
          }
        }
      }
    }
  }

  await checkGoneTargets(tx, gone);

  const keptIdentity = new Set<string>();
  if (fresh) return keptIdentity;
  // Keeping ids: none may be taken already (it would be another project's row, or a capture of none).
  for (const spec of TABLES) {
    const rows = records.filter((r) => r.spec === spec);
    if (SHARED.has(spec.kind) || spec.kind === 'project' || rows.length === 0) continue;
    const column = KEY[spec.kind] ?? 'id';
    if (spec.identity) {
      const taken = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(spec.table)} where id = any(${rows.map((r) => r.row.id)}::bigint[])`.execute(tx);
      // Identity ids only order rows: when any is taken, the kind gets fresh ones in the file's order.
      if (taken.rows[0]?.n === 0) keptIdentity.add(spec.kind);
      continue;
    }
    const taken = await sql<{ id: string }>`select ${sql.ref(column)}::text as id from ${sql.table(spec.table)} where ${sql.ref(column)} = any(${rows.map((r) => r.row[column])}::uuid[]) limit 1`.execute(tx);
    const first = taken.rows[0];
    if (first) {
      const r = rows.find((x) => x.row[column] === first.id) as Record_;
      throw lineError(r.line, `a ${spec.kind} with ${column} ${first.id} already exists in this database (outside this project): import with --as NEW_SLUG to give every row a fresh id`, column);
    }
  }
  return keptIdentity;
}

/** Each record's key once per kind (else the line of the second); answers whether the file holds a record. */
function uniqueKeys(records: Record_[]): (kind: string, id: string) => boolean {
  const keys = new Map<string, Map<string, number>>();
  for (const r of records) {
    const column = KEY[r.spec.kind] ?? 'id';
    const key = String(r.row[column]);
    const seen = keys.get(r.spec.kind) ?? new Map<string, number>();
    keys.set(r.spec.kind, seen);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw lineError(r.line, `a second ${r.spec.kind} with ${column} ${key} (the first is on line ${earlier})`, column);
    seen.set(key, r.line);
  }
  return (kind, id) => keys.get(kind)?.has(id) === true;
}

/** Kinds of record svc deletes for good (a removed link, a deleted glossary term), and their tables. */
const DELETED_TARGETS = { link: 'links', glossary_term: 'glossary_terms' } as const;
type Gone = { line: number; id: string; table: (typeof DELETED_TARGETS)[keyof typeof DELETED_TARGETS] };

/**
 * An audit row's target is a record of the same file (of any kind), so a file cannot pin its history on
 * another project's records. A link or glossary term svc deleted is gone from the export while its audit rows
 * stay: such a target may name no record of this file, provided it names no record here either (`gone`,
 * checked by the caller). docs/decisions/0014.
 */
function checkAuditTarget(r: Record_, fileIds: Set<string>, gone: Gone[]): void {
  const target = r.row.target_id;
  if (target === null || target === undefined || fileIds.has(String(target))) return;
  const kind = r.row.target_kind;
  if ((kind === 'link' || kind === 'glossary_term') && typeof target === 'string' && UUID.test(target)) {
    gone.push({ line: r.line, id: target, table: DELETED_TARGETS[kind] });
    return;
  }
  throw auditTargetError(r.line, String(target));
}

function auditTargetError(line: number, target: string): SvcError {
  return lineError(
    line,
    `field 'target_id' names ${target}, which is not a record of this file: an audit row may only name records of its own project`,
    'target_id',
  );
}

/** A deleted link or term an audit row names must not be a live record of this database (another project's). */
async function checkGoneTargets(tx: Kysely<Database>, gone: Gone[]): Promise<void> {
  for (const table of Object.values(DELETED_TARGETS)) {
    const ids = gone.filter((g) => g.table === table).map((g) => g.id);
    for (let i = 0; i < ids.length; i += BATCH) {
      const live = await tx.selectFrom(table).select('id').where('id', 'in', ids.slice(i, i + BATCH)).executeTakeFirst();
      if (live) throw auditTargetError((gone.find((g) => g.id === live.id) as Gone).line, live.id);
    }
  }
}

/** Every reference of a record names a record `known` to the file. */
function checkReferences(r: Record_, known: (target: string, value: string) => boolean): void {
  for (const [column, target] of REFERENCES[r.spec.kind] ?? []) {
    const value = r.row[column];
    if (value === null) continue;
    if (!known(target, String(value))) {
      throw lineError(r.line, `field '${column}' names ${target.replace('_', ' ')} ${String(value)}, which is not in this file: a record may only point at records of its own project`, column);
    }
  }
}

/** Actors: well-formed, and one that is new here must not take another actor's email. */
async function checkActors(tx: Kysely<Database>, records: Record_[]): Promise<void> {
  const actorRecords = records.filter((r) => r.spec.kind === 'actor');
  const emails = new Map<string, number>();
  for (const r of actorRecords) {
    const email = String(r.row.email);
    if (!EMAIL.test(email)) throw lineError(r.line, `field 'email' '${email}' is not an email address`, 'email');
    const earlier = emails.get(email.toLowerCase());
    if (earlier !== undefined) throw lineError(r.line, `a second actor with email ${email} (the first is on line ${earlier})`, 'email');
    emails.set(email.toLowerCase(), r.line);
    if (!isObject(r.row.external_ids)) throw lineError(r.line, "field 'external_ids' must be a JSON object", 'external_ids');
  }
  if (actorRecords.length === 0) return;
  const taken = await sql<{ id: string; email: string }>`select id::text as id, lower(email) as email from actors where lower(email) = any(${[...emails.keys()]}::text[])`.execute(tx);
  for (const actor of taken.rows) {
    const r = actorRecords.find((a) => String(a.row.email).toLowerCase() === actor.email) as Record_;
    if (r.row.id !== actor.id) throw lineError(r.line, `actor email ${String(r.row.email)} belongs to another actor in this database`, 'email');
  }
}

/**
 * A capture's state agrees with its content: a redacted one holds only the mask (a file cannot smuggle words
 * into a capture every answer treats as removed), and a promoted one has its promotion in the file.
 */
function checkCapture(r: Record_, promoted: boolean): void {
  const { review_state: state } = r.row;
  if (state === 'redacted') {
    for (const [field, masked] of [['text', REDACTED], ['summary', REDACTED], ['sensitivity_hint', null]] as const) {
      if (r.row[field] !== masked) throw lineError(r.line, `field '${field}' of a redacted capture must be ${JSON.stringify(masked)}: redacted text never travels`, field);
    }
    if (!isObject(r.row.signals) || Object.keys(r.row.signals).length > 0) throw lineError(r.line, "field 'signals' of a redacted capture must be {}", 'signals');
  }
  if (state === 'promoted' && !promoted) throw lineError(r.line, 'a capture in state promoted that no capture_promotion of this file names', 'review_state');
}

/**
 * Restore the shared inbox from `svc export --inbox`: captures of no project and the actors they name. The same
 * trust rules as a project file (docs/decisions/0014): only those kinds, references inside the file, redacted
 * captures masked, and no capture id that exists here already (it would be someone else's capture).
 */
async function importInbox(ctx: WriteContext, records: Record_[], columns: Map<string, ColumnType[]>, asSlug: string | undefined) {
  if (asSlug !== undefined) throw new SvcError('invalid_input', 'as_slug: the file is the shared inbox, which belongs to no project; import it without --as', { field: 'as_slug' });
  for (const r of records) {
    if (r.spec.kind !== 'actor' && r.spec.kind !== 'capture') {
      throw lineError(r.line, `a ${r.spec.kind} record in an inbox file, which holds only captures and the actors they name`, 'type');
    }
  }
  const has = uniqueKeys(records);
  await checkActors(ctx.tx, records);
  const captures = records.filter((r) => r.spec.kind === 'capture');
  for (const r of captures) {
    if (r.row.project_id !== null) throw lineError(r.line, `field 'project_id' is ${String(r.row.project_id)}: an inbox file holds only captures of no project`, 'project_id');
    checkReferences(r, has);
    if (r.row.review_state === 'promoted') throw lineError(r.line, "a promoted capture in an inbox file: it travels with its project's export", 'review_state');
    checkCapture(r, false);
  }
  if (captures.length > 0) {
    const taken = await sql<{ id: string }>`select id::text as id from captures where id = any(${captures.map((r) => r.row.id)}::uuid[]) limit 1`.execute(ctx.tx);
    const first = taken.rows[0];
    if (first) {
      const r = captures.find((c) => c.row.id === first.id) as Record_;
      throw new SvcError('conflict', `line ${r.line}: a capture with id ${first.id} already exists in this database; the inbox file cannot replace it`, {
        field: 'file',
        line: r.line,
        record_field: 'id',
      });
    }
  }
  const { tx } = ctx;
  for (const spec of INBOX_TABLES) {
    const group = records.filter((r) => r.spec.kind === spec.kind);
    const cols = (columns.get(spec.kind) ?? []).map((c) => c.name);
    const target = TABLES.find((t) => t.kind === spec.kind) as TableSpec;
    for (let start = 0; start < group.length; start += BATCH) {
      const batch = group.slice(start, start + BATCH);
      await insertBatch(tx, target, cols, batch.map((r) => r.row), false, (k) => (batch[k] as Record_).line);
      ctx.progress(start + batch.length, group.length, spec.kind);
    }
  }
  const counts = Object.fromEntries(INBOX_TABLES.map((t) => [t.kind, records.filter((r) => r.spec.kind === t.kind).length]));
  ctx.audit({ project_id: null, target_kind: 'inbox', target_id: null, details: { imported: counts } });
  return { inbox: true, counts };
}

/** A database refusal in the import's words: the field when the constraint names one. */
function refusalMessage(error: unknown, spec: TableSpec, columns: string[]): string {
  const constraint = String((error as { constraint?: unknown }).constraint ?? '');
  const column = columns.find((c) => constraint === `${spec.table}_${c}_check`);
  if (column) return `field '${column}' has a value this database does not allow`;
  const mapped = fromDatabase(error);
  return mapped ? mapped.message : 'it breaks a rule of the database';
}

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
      throw lineError(lineOf(rows.indexOf(row) === -1 ? k : rows.indexOf(row)), `this ${spec.kind} cannot be stored: ${refusalMessage(error, spec, columns)}`);
    }
  }
}
