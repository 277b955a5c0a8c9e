import { randomUUID } from 'node:crypto';
import { type IdRef, type Item, type ItemStatus, notFound, REDACTED, redactContext, redactSourceUrl, SvcError, shortId } from '@svc/domain';
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import { type Link, type LinkRow, listLinksOf, toLink } from './links.js';
import { prepared } from './prepared.js';
import { idMatches, iso, isoOrNull, onlyMatch } from './refs.js';
import type { Database, ItemRow } from './schema.js';

export function toItem(row: ItemRow): Item {
  return {
    id: row.id,
    chain_id: row.chain_id,
    project_id: row.project_id,
    system_id: row.system_id,
    item_type: row.item_type,
    title: row.title,
    body: row.body,
    context: row.context,
    source_url: row.source_url,
    work_unit_id: row.work_unit_id,
    status: row.status,
    version: row.version,
    supersedes_id: row.supersedes_id,
    is_head: row.is_head,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    refreshed_at: iso(row.refreshed_at),
    deleted_at: isoOrNull(row.deleted_at),
  };
}

const ITEM_COLUMNS = [
  'id',
  'chain_id',
  'project_id',
  'system_id',
  'item_type',
  'title',
  'body',
  'context',
  'source_url',
  'work_unit_id',
  'status',
  'version',
  'supersedes_id',
  'is_head',
  'created_by',
  'created_at',
  'updated_at',
  'refreshed_at',
  'deleted_at',
] as const;

export interface ResolvedItem {
  /** The row the reference named (any version of the chain). */
  matched_id: string;
  /** The chain's current head. */
  head: Item;
}

export interface ResolveOptions {
  /** Only inside this project: a prefix matching elsewhere is not found. */
  projectId?: string | undefined;
  /** Deleted chains resolve too (restore, history, show). */
  includeDeleted?: boolean;
  /** Only items of this type. */
  itemType?: string | undefined;
  kind?: string;
}

/**
 * Resolve a reference (UUID or unique prefix of any row of a chain) to the chain's head. A prefix matching
 * rows of several chains is ambiguous; several rows of one chain are one item.
 */
export async function resolveItem(db: Kysely<Database>, ref: IdRef, options: ResolveOptions = {}): Promise<ResolvedItem> {
  const kind = options.kind ?? 'item';
  let query = db
    .selectFrom('items as m')
    .innerJoin('items as h', (join) => join.onRef('h.chain_id', '=', 'm.chain_id').on('h.is_head', '=', true))
    .select('m.id as matched_id')
    .select(ITEM_COLUMNS.map((c) => `h.${c}` as const))
    .where(idMatches('m.id', ref));
  if (options.projectId !== undefined) query = query.where('m.project_id', '=', options.projectId);
  if (options.itemType !== undefined) query = query.where('h.item_type', '=', options.itemType);
  if (!options.includeDeleted) query = query.where('h.deleted_at', 'is', null);
  const rows = await query.limit(20).execute();
  // Several rows of one chain are one item: the candidates are the chains, each by its first row.
  const chains = new Map<string, (typeof rows)[number]>();
  for (const row of rows) if (!chains.has(row.chain_id)) chains.set(row.chain_id, row);
  const { matched_id, ...head } = onlyMatch([...chains.values()], kind, ref, (r) => ({ id: r.chain_id, label: `${r.item_type}: ${r.title.slice(0, 60)}` }));
  return { matched_id, head: toItem(head as ItemRow) };
}

export interface ShownItem {
  /** The chain's current head. */
  item: Item;
  /** Links from or to the chain, oldest first: at most `maxLinks` of them. */
  links: Link[];
  /** True when the chain has more links than were listed. */
  truncated: boolean;
}

/**
 * item_show's statement for a full UUID: the head of the chain holding the row with that id (any version; in
 * one project when $2 is not null) and the chain's first $3 links, oldest first, as one JSON array. One round trip,
 * prepared by name (prepared.ts): planned each time, the self-join and the links subquery cost PostgreSQL
 * four times what running them does; prepared, the generic plan is three index probes.
 */
const SHOW_ITEM = prepared(
  'item_show',
  `select ${ITEM_COLUMNS.map((c) => `h.${c}`).join(', ')}, ` +
    '(select json_agg(l order by l.created_at, l.id) from (select * from links where from_chain_id = h.chain_id or to_chain_id = h.chain_id ' +
    'order by created_at, id limit $3) l) as links ' +
    'from items m join items h on h.chain_id = m.chain_id and h.is_head ' +
    'where m.id = $1 and ($2::uuid is null or m.project_id = $2::uuid)',
);

type ShowRow = Omit<ItemRow, 'search'> & { links: LinkRow[] | null };

/**
 * An item (any row id or unique prefix of its chain resolves to the head; deleted chains too) with its first
 * `maxLinks` links; one more is read to tell whether the list was cut. A prefix takes resolveItem's path,
 * which tells an ambiguous prefix from a unique one.
 */
export async function showItem(
  db: Kysely<Database>,
  ref: IdRef,
  options: { projectId?: string | undefined; maxLinks: number },
): Promise<ShownItem> {
  const { item, links } = await headAndLinks(db, ref, options.projectId, options.maxLinks + 1);
  return { item, links: links.slice(0, options.maxLinks), truncated: links.length > options.maxLinks };
}

async function headAndLinks(db: Kysely<Database>, ref: IdRef, projectId: string | undefined, limit: number): Promise<{ item: Item; links: Link[] }> {
  if (ref.kind === 'prefix') {
    const { head } = await resolveItem(db, ref, { projectId, includeDeleted: true });
    return { item: head, links: await listLinksOf(db, head.chain_id, limit) };
  }
  const row = (await db.executeQuery<ShowRow>(CompiledQuery.raw(SHOW_ITEM, [ref.id, projectId ?? null, limit]))).rows[0];
  if (!row) throw notFound('item', ref.input, ref.field);
  const { links, ...head } = row;
  return { item: toItem(head as ItemRow), links: (links ?? []).map(toLink) };
}

/**
 * Lock a chain's head row for the rest of the transaction and return it (undefined when the chain has none).
 * Under READ COMMITTED, a lock that waited for a concurrent supersede finds the old row no longer the head
 * and returns nothing; the new head was not in that statement's snapshot. So look again: each attempt is a
 * new statement that sees the committed head.
 */
export async function lockHead(tx: Transaction<Database>, chainId: string): Promise<Item | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await tx
      .selectFrom('items')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('is_head', '=', true)
      .forUpdate()
      .executeTakeFirst();
    if (row) return toItem(row);
    const exists = await tx.selectFrom('items').select('id').where('chain_id', '=', chainId).where('is_head', '=', true).executeTakeFirst();
    if (!exists) return undefined;
  }
  return undefined;
}

/** What a writer gives for a version; the chain, version and times are the store's. */
export type ItemValues = Pick<
  Item,
  'project_id' | 'system_id' | 'item_type' | 'title' | 'body' | 'context' | 'source_url' | 'work_unit_id' | 'status' | 'created_by'
>;

/** Insert the first row of a new chain. */
export async function insertItem(tx: Transaction<Database>, values: ItemValues): Promise<Item> {
  const id = randomUUID();
  const row = await tx
    .insertInto('items')
    .values({ ...values, id, chain_id: id, context: JSON.stringify(values.context) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toItem(row);
}

/**
 * Supersede `head` (which the caller has locked) with a new row: the old row stops being the head, the new
 * one continues the chain. `rewritten`: the new version re-writes the content (domain: rewritesContent), so
 * its refreshed_at is now; otherwise it keeps the head's. Returns the new head.
 */
export async function supersedeItem(tx: Transaction<Database>, head: Item, values: ItemValues, rewritten: boolean): Promise<Item> {
  const demoted = await tx
    .updateTable('items')
    .set({ is_head: false })
    .where('id', '=', head.id)
    .where('is_head', '=', true)
    .executeTakeFirst();
  if (demoted.numUpdatedRows !== 1n) {
    throw new SvcError('conflict', `item ${shortId(head.id)} is no longer the head of its chain`, { item_id: head.id });
  }
  const row = await tx
    .insertInto('items')
    .values({
      ...values,
      id: randomUUID(),
      chain_id: head.chain_id,
      supersedes_id: head.id,
      version: head.version + 1,
      deleted_at: head.deleted_at === null ? null : new Date(head.deleted_at),
      created_at: head.created_at,
      refreshed_at: rewritten ? sql<Date>`now()` : head.refreshed_at,
      context: JSON.stringify(values.context),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toItem(row);
}

/** Update the head in place (status transitions carry no content, so they do not start a new version). */
export async function updateHeadState(
  tx: Transaction<Database>,
  headId: string,
  patch: { status?: ItemStatus | null; context?: Record<string, unknown> },
): Promise<Item> {
  const row = await tx
    .updateTable('items')
    .set({
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(patch.context !== undefined ? { context: JSON.stringify(patch.context) } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', headId)
    .where('is_head', '=', true)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toItem(row);
}

/** Soft delete (deletedAt) or restore (null) every row of a chain. */
export async function setChainDeleted(tx: Transaction<Database>, chainId: string, deletedAt: Date | null): Promise<void> {
  await tx
    .updateTable('items')
    .set({ deleted_at: deletedAt, updated_at: new Date() })
    .where('chain_id', '=', chainId)
    .execute();
}

/**
 * Redact the text of every version of the chain holding `itemId` (deleted ones too): title and body become
 * [redacted]; the context keeps only a task's or QA check's structural fields, its keys and values otherwise
 * gone (redactContext); source_url keeps only its origin (redactSourceUrl); every other column stays, and the
 * search vector follows (a generated column). Returns how many versions changed. Redaction of a promoted
 * capture (decisions 0015, 0042): the item was made from the capture, and svc cannot tell which of its words,
 * keys or numbers carry the secret, so none of them are kept.
 */
export async function redactChainText(db: Transaction<Database>, itemId: string, redactedCaptureId?: string): Promise<number> {
  // Given the capture (an import), only the versions written up to its redaction (refreshed_at: when the version's
  // text was last written; created_at is the chain's): a later version is what someone wrote after redacting, not
  // the capture's words (a live redaction comes before any such version).
  const upTo =
    redactedCaptureId === undefined
      ? sql`true`
      : sql`refreshed_at <= coalesce((select redacted_at from captures where id = ${redactedCaptureId}::uuid), 'infinity'::timestamptz)`;
  // The head's lock first, as every edit takes it: an edit under way finishes before the versions are listed (a
  // version it wrote would otherwise be missed under READ COMMITTED, its words kept), and none starts until the end.
  const chain = await db.selectFrom('items').select('chain_id').where('id', '=', itemId).executeTakeFirst();
  if (chain) await lockHead(db, chain.chain_id);
  const { rows } = await sql<{ id: string; project_id: string; item_type: string; context: Record<string, unknown>; source_url: string | null }>`
    select id, project_id, item_type, context, source_url from items
    where chain_id = (select chain_id from items where id = ${itemId}::uuid) and ${upTo}
    order by version`.execute(db);
  let changed = 0;
  for (const row of rows) {
    const context = JSON.stringify(redactContext(row.item_type, row.context));
    const sourceUrl = redactSourceUrl(row.source_url);
    const updated = await sql<{ id: string }>`
      update items set title = ${REDACTED}, body = ${REDACTED}, context = ${context}::jsonb, source_url = ${sourceUrl}
      where id = ${row.id}::uuid
        and (title <> ${REDACTED} or body <> ${REDACTED} or context <> ${context}::jsonb or source_url is distinct from ${sourceUrl})
      returning id`.execute(db);
    changed += updated.rows.length;
  }
  // The redacted words left the postings with the rows; fold the statistics now so that no term table keeps them.
  const projectId = rows[0]?.project_id;
  if (changed > 0 && projectId !== undefined) await sql`select svc_search_fold(${projectId}::uuid, true)`.execute(db);
  return changed;
}

/** The latest `limit` versions of a chain, oldest first. */
export async function listChainVersions(db: Kysely<Database>, chainId: string, limit: number): Promise<Item[]> {
  const rows = await db.selectFrom('items').selectAll().where('chain_id', '=', chainId).orderBy('version', 'desc').limit(limit).execute();
  return rows.reverse().map(toItem);
}
