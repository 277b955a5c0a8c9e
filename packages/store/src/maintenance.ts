import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * The tables whose rows redaction rewrites (captures, ideas, and the items a capture was promoted to), and the
 * search index's tables, whose dead rows still name the redacted words: the only ones whose files can hold
 * redacted bytes. History and audit rows never hold text (decision 0004).
 */
export const REDACTABLE_TABLES = ['captures', 'ideas', 'items', 'search_postings', 'search_terms', 'search_deltas'] as const;
export type RedactableTable = (typeof REDACTABLE_TABLES)[number];

export interface RewrittenTable {
  table: RedactableTable;
  /** On-disk size of the table with its TOAST and indexes, before and after. */
  bytes_before: number;
  bytes_after: number;
}

async function totalSize(db: Kysely<Database>, table: RedactableTable): Promise<number> {
  const { rows } = await sql<{ size: string }>`select pg_total_relation_size(${table}::regclass)::text as size`.execute(db);
  return Number(rows[0]?.size ?? 0);
}

/**
 * VACUUM FULL each table: a new copy of the table, its TOAST and its indexes holding only live rows, and the old
 * files removed, so dead row versions (the text before a redaction) leave the data directory. Must run outside
 * a transaction block (Store.maintenance); each table is locked against reads and writes while it is rewritten.
 */
export async function rewriteTables(db: Kysely<Database>, tables: readonly RedactableTable[]): Promise<RewrittenTable[]> {
  const out: RewrittenTable[] = [];
  for (const table of tables) {
    const before = await totalSize(db, table);
    await sql`vacuum full ${sql.table(table)}`.execute(db);
    out.push({ table, bytes_before: before, bytes_after: await totalSize(db, table) });
  }
  return out;
}
