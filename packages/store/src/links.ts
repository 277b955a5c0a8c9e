import type { LinkType } from '@svc/domain';
import type { Kysely, Transaction } from 'kysely';
import { iso } from './refs.js';
import type { Database } from './schema.js';

export interface Link {
  id: string;
  project_id: string;
  from_chain_id: string;
  link_type: LinkType;
  to_chain_id: string;
  created_by: string | null;
  created_at: string;
}

/** Add a link; adding one that exists returns the existing one (links are a set). */
export async function addLink(
  db: Transaction<Database>,
  values: { project_id: string; from_chain_id: string; link_type: LinkType; to_chain_id: string; created_by: string | null },
): Promise<{ link: Link; created: boolean }> {
  const inserted = await db
    .insertInto('links')
    .values(values)
    .onConflict((oc) => oc.columns(['project_id', 'from_chain_id', 'link_type', 'to_chain_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  const row =
    inserted ??
    (await db
      .selectFrom('links')
      .selectAll()
      .where('project_id', '=', values.project_id)
      .where('from_chain_id', '=', values.from_chain_id)
      .where('link_type', '=', values.link_type)
      .where('to_chain_id', '=', values.to_chain_id)
      .executeTakeFirstOrThrow());
  return { link: { ...row, created_at: iso(row.created_at) }, created: !!inserted };
}

export async function removeLink(
  db: Transaction<Database>,
  values: { project_id: string; from_chain_id: string; link_type: LinkType; to_chain_id: string },
): Promise<boolean> {
  const result = await db
    .deleteFrom('links')
    .where('project_id', '=', values.project_id)
    .where('from_chain_id', '=', values.from_chain_id)
    .where('link_type', '=', values.link_type)
    .where('to_chain_id', '=', values.to_chain_id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A links row as the driver returns it (created_at is a string inside a json_agg). */
export interface LinkRow {
  id: string;
  project_id: string;
  from_chain_id: string;
  link_type: LinkType;
  to_chain_id: string;
  created_by: string | null;
  created_at: Date | string;
}

export function toLink(row: LinkRow): Link {
  return {
    id: row.id,
    project_id: row.project_id,
    from_chain_id: row.from_chain_id,
    link_type: row.link_type,
    to_chain_id: row.to_chain_id,
    created_by: row.created_by,
    created_at: iso(row.created_at),
  };
}

/** The first `limit` links from or to a chain, oldest first (links made in one transaction share created_at: then by id). */
export async function listLinksOf(db: Kysely<Database>, chainId: string, limit: number): Promise<Link[]> {
  const rows = await db
    .selectFrom('links')
    .selectAll()
    .where((eb) => eb.or([eb('from_chain_id', '=', chainId), eb('to_chain_id', '=', chainId)]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toLink);
}
