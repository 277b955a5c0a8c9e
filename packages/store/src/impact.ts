import { LINK_PRIORITY } from '@svc/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export interface ImpactEntry {
  id: string;
  chain_id: string;
  title: string;
  item_type: string;
  status: string | null;
  depth: number;
  link_type: string;
  via_chain_id: string;
}

/**
 * Items reachable from `start` along outgoing typed links, within `depth` hops, each once at its shortest
 * depth with the edge type that first reached it (ties: depends, blocks, supersedes, conflicts, then the
 * predecessor's chain id). Deleted items are neither reported nor passed through; cycles end because each
 * level only continues from (chain, depth) pairs not seen before and depth is bounded. One round trip.
 * Returns at most `limit + 1` entries (ordered by depth, edge priority, chain id) and the total count.
 */
export async function impact(
  db: Kysely<Database>,
  projectId: string,
  start: string,
  depth: number,
  limit: number,
): Promise<{ entries: ImpactEntry[]; total: number }> {
  const priority = sql.raw(`array[${LINK_PRIORITY.map((t) => `'${t}'`).join(', ')}]::text[]`);
  const { rows } = await sql<ImpactEntry & { total: number }>`
    with recursive walk(chain_id, depth) as (
      select ${start}::uuid, 0
      union
      select l.to_chain_id, w.depth + 1
      from walk w
      join links l on l.from_chain_id = w.chain_id and l.project_id = ${projectId}::uuid
      join items n on n.chain_id = l.to_chain_id and n.is_head and n.deleted_at is null
      where w.depth < ${depth}::int
    ),
    best as (
      select chain_id, min(depth) as depth from walk group by chain_id
    ),
    firsts as (
      select distinct on (b.chain_id) b.chain_id, b.depth, l.link_type, l.from_chain_id as via_chain_id
      from best b
      join links l on l.to_chain_id = b.chain_id and l.project_id = ${projectId}::uuid
      join best p on p.chain_id = l.from_chain_id and p.depth = b.depth - 1
      where b.depth > 0 and b.chain_id <> ${start}::uuid
      order by b.chain_id, array_position(${priority}, l.link_type), l.from_chain_id
    )
    select i.id, f.chain_id, i.title, i.item_type, i.status, f.depth::int as depth, f.link_type, f.via_chain_id,
           (count(*) over ())::int as total
    from firsts f join items i on i.chain_id = f.chain_id and i.is_head
    order by f.depth, array_position(${priority}, f.link_type), f.chain_id
    limit ${limit + 1}`.execute(db);
  return { entries: rows.map(({ total: _, ...e }) => e), total: rows[0]?.total ?? 0 };
}
