import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * The tables of one project's memory, in an order that satisfies every foreign key on the way in. Each
 * entry says how to select the project's rows and how to order them so that an export is deterministic.
 */
export interface TableSpec {
  kind: string;
  table: keyof Database & string;
  /** Rows of the project, as a where-clause over alias t, with :p the project id. */
  where: string;
  order: string;
  /** Columns the database generates and an import must not write. */
  generated?: string[];
  /** bigint identity primary key (written with OVERRIDING SYSTEM VALUE when ids are kept). */
  identity?: boolean;
}

export const TABLES: readonly TableSpec[] = [
  { kind: 'project', table: 'projects', where: 't.id = :p', order: 't.id' },
  {
    kind: 'actor',
    table: 'actors',
    where: `t.id in (
      select created_by from items where project_id = :p union select actor_id from items_history where project_id = :p
      union select actor_id from audit_log where project_id = :p union select created_by from links where project_id = :p
      union select created_by from work_units where project_id = :p union select author_id from ideas where project_id = :p
      union select redacted_by from ideas where project_id = :p union select created_by from sync_jobs where project_id = :p
      union select created_by from glossary_terms where project_id = :p union select rejected_by from glossary_rejections where project_id = :p
      union select promoted_by from capture_promotions where project_id = :p
      union select c.created_by from captures c join capture_promotions cp on cp.capture_id = c.id where cp.project_id = :p
      union select c.redacted_by from captures c join capture_promotions cp on cp.capture_id = c.id where cp.project_id = :p
      union select created_by from captures where project_id = :p union select redacted_by from captures where project_id = :p)`,
    order: 't.id',
  },
  { kind: 'item_type', table: 'item_types', where: `t.owner <> 'system' and t.key in (select item_type from items where project_id = :p)`, order: 't.key' },
  { kind: 'system', table: 'systems', where: 't.project_id = :p', order: 't.id' },
  { kind: 'work_unit', table: 'work_units', where: 't.project_id = :p', order: 't.id' },
  { kind: 'item', table: 'items', where: 't.project_id = :p', order: 't.version, t.id', generated: ['search'] },
  { kind: 'link', table: 'links', where: 't.project_id = :p', order: 't.id' },
  { kind: 'history', table: 'items_history', where: 't.project_id = :p', order: 't.id', identity: true },
  { kind: 'glossary_group', table: 'glossary_groups', where: 't.project_id = :p', order: 't.id' },
  { kind: 'glossary_term', table: 'glossary_terms', where: 't.project_id = :p', order: 't.id' },
  { kind: 'glossary_rejection', table: 'glossary_rejections', where: 't.project_id = :p', order: 't.id' },
  {
    kind: 'capture',
    table: 'captures',
    // Filed under the project, or promoted into it from the shared inbox (docs/decisions/0025).
    where: 't.project_id = :p or t.id in (select capture_id from capture_promotions where project_id = :p)',
    order: 't.id',
    generated: ['search'],
  },
  { kind: 'capture_promotion', table: 'capture_promotions', where: 't.project_id = :p', order: 't.capture_id' },
  { kind: 'idea', table: 'ideas', where: 't.project_id = :p', order: 't.id', generated: ['search'] },
  { kind: 'sync_job', table: 'sync_jobs', where: 't.project_id = :p', order: 't.id' },
  { kind: 'audit', table: 'audit_log', where: 't.project_id = :p', order: 't.id', identity: true },
];

/** A shared-inbox capture: filed under no project and promoted into none (a promoted one travels with its project). */
const INBOX_CAPTURE = 'project_id is null and not exists (select 1 from capture_promotions cp where cp.capture_id = c.id)';

/** The tables of the shared inbox, in insertion order: its captures and the actors they name (no :p). */
export const INBOX_TABLES: readonly TableSpec[] = [
  {
    kind: 'actor',
    table: 'actors',
    where: `t.id in (select c.created_by from captures c where ${INBOX_CAPTURE} union select c.redacted_by from captures c where ${INBOX_CAPTURE})`,
    order: 't.id',
  },
  { kind: 'capture', table: 'captures', where: `t.id in (select c.id from captures c where ${INBOX_CAPTURE})`, order: 't.id', generated: ['search'] },
];

/** Column names of a table, in their table order, without generated ones. */
export async function tableColumns(db: Kysely<Database>, spec: TableSpec): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = ${spec.table}
    order by ordinal_position`.execute(db);
  return rows.map((r) => r.column_name).filter((c) => !(spec.generated ?? []).includes(c));
}

/** A column as an import checks it: its name, its type (`uuid`, `text`, `jsonb`, `_text` for text[], …) and nullability. */
export interface ColumnType {
  name: string;
  type: string;
  nullable: boolean;
}

/** Columns of a table with their types, in table order, without generated ones. */
export async function tableColumnTypes(db: Kysely<Database>, spec: TableSpec): Promise<ColumnType[]> {
  const { rows } = await sql<{ column_name: string; udt_name: string; is_nullable: string }>`
    select column_name, udt_name, is_nullable from information_schema.columns
    where table_schema = current_schema() and table_name = ${spec.table}
    order by ordinal_position`.execute(db);
  return rows
    .filter((r) => !(spec.generated ?? []).includes(r.column_name))
    .map((r) => ({ name: r.column_name, type: r.udt_name, nullable: r.is_nullable === 'YES' }));
}

function jsonValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  return value;
}

/** The project's rows of one table (the inbox's: projectId null), columns in table order, values as JSON (times as ISO strings). */
export async function exportRows(
  db: Kysely<Database>,
  spec: TableSpec,
  columns: string[],
  projectId: string | null,
): Promise<Record<string, unknown>[]> {
  const where = sql.join(spec.where.split(':p').map((part) => sql.raw(part)), sql`${projectId}::uuid`);
  const result = await sql<Record<string, unknown>>`select ${sql.join(columns.map((c) => sql.ref(`t.${c}`)))} from ${sql.table(spec.table)} t where ${where} order by ${sql.raw(spec.order)}`.execute(db);
  return result.rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const c of columns) out[c] = jsonValue(row[c]);
    return out;
  });
}

/** Insert rows into a table (columns as given); identity ids are kept when `keepIdentity`. */
async function importRows(
  db: Transaction<Database>,
  spec: TableSpec,
  columns: string[],
  rows: Record<string, unknown>[],
  keepIdentity: boolean,
): Promise<void> {
  if (rows.length === 0) return;
  const cols = keepIdentity || !spec.identity ? columns : columns.filter((c) => c !== 'id');
  const values = rows.map((row) => sql`(${sql.join(cols.map((c) => valueFor(row[c])))})`);
  const overriding = spec.identity && keepIdentity ? sql.raw(' overriding system value') : sql.raw('');
  await sql`insert into ${sql.table(spec.table)} (${sql.join(cols.map((c) => sql.ref(c)))})${overriding} values ${sql.join(values)}`.execute(db);
}

function valueFor(value: unknown) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return sql`${JSON.stringify(value)}::jsonb`;
  if (Array.isArray(value)) return sql`${value}`;
  return sql`${value}`;
}

/** After importing rows with explicit identity values, move each identity past the largest id. */
export async function resetIdentities(db: Transaction<Database>): Promise<void> {
  for (const table of ['items_history', 'audit_log']) {
    await sql.raw(`select setval(pg_get_serial_sequence('${table}', 'id'), greatest((select max(id) from ${table}), 1))`).execute(db);
  }
}

/**
 * Insert rows as importRows does, under a savepoint: on failure the transaction is rolled back to it and the
 * database's refusal returned (the import then names the row it refuses); undefined when the rows are in.
 */
export async function tryImportRows(
  db: Transaction<Database>,
  spec: TableSpec,
  columns: string[],
  rows: Record<string, unknown>[],
  keepIdentity: boolean,
): Promise<{ refusal: unknown } | undefined> {
  await sql`savepoint import_rows`.execute(db);
  try {
    await importRows(db, spec, columns, rows, keepIdentity);
    await sql`release savepoint import_rows`.execute(db);
    return undefined;
  } catch (error) {
    await sql`rollback to savepoint import_rows`.execute(db);
    return { refusal: error };
  }
}

/** The values of `column` (compared as text) that rows of the table hold already: shared rows an import keeps. */
export async function existingKeys(db: Kysely<Database>, spec: TableSpec, column: string, values: string[]): Promise<Set<string>> {
  if (values.length === 0) return new Set();
  const { rows } = await sql<{ k: string }>`select ${sql.ref(column)}::text as k from ${sql.table(spec.table)} where ${sql.ref(column)}::text in (${sql.join(values)})`.execute(db);
  return new Set(rows.map((r) => r.k));
}

/** A uuid of `values` that a row of the table holds already in `column` (the first found), else undefined. */
export async function firstTakenUuid(db: Kysely<Database>, spec: TableSpec, column: string, values: unknown[]): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`select ${sql.ref(column)}::text as id from ${sql.table(spec.table)} where ${sql.ref(column)} = any(${values}::uuid[]) limit 1`.execute(db);
  return rows[0]?.id;
}

/** Whether no row of an identity-keyed table holds any of these ids. */
export async function identityIdsFree(db: Kysely<Database>, spec: TableSpec, ids: unknown[]): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(spec.table)} where id = any(${ids}::bigint[])`.execute(db);
  return rows[0]?.n === 0;
}

/** One of `ids` that a row of `table` holds (the first found, looking 500 at a time), else undefined. */
export async function firstLiveId(db: Kysely<Database>, table: 'links' | 'glossary_terms', ids: string[]): Promise<string | undefined> {
  for (let i = 0; i < ids.length; i += 500) {
    const live = await db.selectFrom(table).select('id').where('id', 'in', ids.slice(i, i + 500)).executeTakeFirst();
    if (live) return live.id;
  }
  return undefined;
}
