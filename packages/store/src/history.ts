import type { SemanticImpact } from '@svc/domain';
import { type Kysely, sql, type Transaction } from 'kysely';
import { iso } from './refs.js';
import type { Database, HistoryRow } from './schema.js';

export type ChangeKind = HistoryRow['change_kind'];

export interface HistoryEntry {
  id: string;
  project_id: string;
  chain_id: string;
  item_id: string;
  version: number;
  change_kind: ChangeKind;
  semantic_impacts: string[];
  details: Record<string, unknown>;
  actor_id: string | null;
  source: string;
  changed_at: string;
}

function toEntry(row: HistoryRow): HistoryEntry {
  return { ...row, id: String(row.id), changed_at: iso(row.changed_at) };
}

export async function recordHistory(
  db: Transaction<Database>,
  entry: {
    project_id: string;
    chain_id: string;
    item_id: string;
    version: number;
    change_kind: ChangeKind;
    semantic_impacts: SemanticImpact[] | string[];
    details: Record<string, unknown>;
    actor_id: string | null;
    source: string;
  },
): Promise<void> {
  await db
    .insertInto('items_history')
    .values({ ...entry, semantic_impacts: [...entry.semantic_impacts], details: JSON.stringify(entry.details) })
    .execute();
}

export interface HistoryQuery {
  project_id: string;
  chain_id?: string | undefined;
  since?: Date | undefined;
  semantic_impacts?: string[] | undefined;
  limit: number;
}

/** History entries, newest first; `limit + 1` are read so the caller can tell whether the answer was cut. */
export async function queryHistory(db: Kysely<Database>, q: HistoryQuery): Promise<HistoryEntry[]> {
  let query = db.selectFrom('items_history').selectAll().where('project_id', '=', q.project_id);
  if (q.chain_id !== undefined) query = query.where('chain_id', '=', q.chain_id);
  if (q.since !== undefined) query = query.where('changed_at', '>=', q.since);
  if (q.semantic_impacts !== undefined && q.semantic_impacts.length > 0) {
    query = query.where(sql<boolean>`semantic_impacts && array[${sql.join(q.semantic_impacts)}]::text[]`);
  }
  const rows = await query.orderBy('changed_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute();
  return rows.map(toEntry);
}
