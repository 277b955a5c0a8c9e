import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * When research expires, written once for every reader (search, brief, the research-expired and
 * research-expiring rules, research_sweep): research.ttl_days after a person last wrote it, `refreshed_at`
 * (set on creation and by edits of its title, body, context or source; delete, restore and status changes
 * leave it). `alias` names the items row.
 */
const refreshed = (alias: string) => sql.ref(`${alias}.refreshed_at`);
const cutoff = (ttlDays: number) => sql`now() - make_interval(days => ${ttlDays}::int)`;

/** The moment research row `alias` expires. */
export function researchExpiresAt(alias: string, ttlDays: number): RawBuilder<Date> {
  return sql<Date>`(${refreshed(alias)} + make_interval(days => ${ttlDays}::int))`;
}

/** Row `alias` is research past its time to live. */
export function researchExpired(alias: string, ttlDays: number): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.item_type`)} = 'research' and ${refreshed(alias)} < ${cutoff(ttlDays)})`;
}

/** Row `alias` is research not expired yet that expires within `days`. */
export function researchExpiring(alias: string, ttlDays: number, days: number): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.item_type`)} = 'research' and ${refreshed(alias)} >= ${cutoff(ttlDays)}
    and ${refreshed(alias)} < ${cutoff(ttlDays)} + make_interval(days => ${days}::int))`;
}

export interface ExpiredResearch {
  id: string;
  chain_id: string;
  title: string;
  version: number;
  refreshed_at: Date;
}

/** Current, undeleted research of the project past its time to live, oldest first, at most `limit`. */
export async function listExpiredResearch(db: Kysely<Database>, projectId: string, ttlDays: number, limit: number): Promise<ExpiredResearch[]> {
  const { rows } = await sql<ExpiredResearch>`
    select i.id, i.chain_id, i.title, i.version, i.refreshed_at from items i
    where i.project_id = ${projectId}::uuid and i.is_head and i.deleted_at is null and ${researchExpired('i', ttlDays)}
    order by i.refreshed_at, i.id
    limit ${limit}`.execute(db);
  return rows;
}
