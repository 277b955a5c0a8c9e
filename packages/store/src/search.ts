import { SYNONYMS_TO_READ, type TsPlan } from '@svc/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { iso } from './refs.js';
import { researchExpired } from './research.js';
import type { Database } from './schema.js';

/** Turn a query plan into a tsquery expression made only of functions over bound parameters. */
export function tsquery(plan: TsPlan): RawBuilder<unknown> {
  switch (plan.op) {
    case 'word':
      return sql`plainto_tsquery('english', ${plan.text}::text)`;
    case 'phrase':
      return sql`phraseto_tsquery('english', ${plan.text}::text)`;
    case 'and':
      return sql`(${sql.join(plan.args.map(tsquery), sql` && `)})`;
    case 'or':
      return sql`(${sql.join(plan.args.map(tsquery), sql` || `)})`;
    case 'not':
      return sql`(!! ${tsquery(plan.arg)})`;
  }
}

export interface SearchFilters {
  project_id: string;
  item_types?: string[] | undefined;
  system_ids?: string[] | undefined;
  /** Hide research past this time to live, in days (undefined: show expired research too). */
  research_ttl_days?: number | undefined;
}

export interface SearchHit {
  id: string;
  chain_id: string;
  item_type: string;
  title: string;
  snippet: string;
  rank: number;
  updated_at: string;
}

/**
 * Ranking every match of a common word is what makes full-text search slow at scale: every match is read and
 * ranked, and the GIN index itself lists every one of them. So only a bounded candidate set is ranked:
 *
 * 1. the matches among the SEARCH_WINDOW most recent current items of the project (filters applied), newest
 *    first, at most CANDIDATES: a walk down the recency index (items_project_heads) that tests the query on
 *    each item, so it reads at most SEARCH_WINDOW rows whatever the query, and stops early when matches abound;
 * 2. only when those cannot fill the page (`limit` or fewer), older matches through the project-scoped GIN
 *    index (items_project_search), in the order the index yields them, up to CANDIDATES in all.
 *
 * A query whose matches among the window fill the page is ranked among those; see
 * docs/decisions/0005-search-candidates.md for the trade-off.
 */
export const CANDIDATES = 500;
/** How many of the most recent items step 1 reads at most. */
export const SEARCH_WINDOW = 2_000;

function filters(f: SearchFilters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [
    sql`i.project_id = ${f.project_id}::uuid`,
    sql`i.is_head`,
    sql`i.deleted_at is null`,
  ];
  if (f.item_types && f.item_types.length > 0) parts.push(sql`i.item_type in (${sql.join(f.item_types)})`);
  if (f.system_ids && f.system_ids.length > 0) parts.push(sql`i.system_id in (${sql.join(f.system_ids.map((id) => sql`${id}::uuid`))})`);
  if (f.research_ttl_days !== undefined) {
    parts.push(sql`not ${researchExpired('i', f.research_ttl_days)}`);
  }
  return sql.join(parts, sql` and `);
}

/** Ranked search: title weighs above body; `limit + 1` rows are read so the caller can tell if it was cut. */
export async function searchItems(
  db: Kysely<Database>,
  plan: TsPlan,
  f: SearchFilters,
  limit: number,
  bounds: { candidates?: number; window?: number } = {},
): Promise<SearchHit[]> {
  const candidates = Math.max(bounds.candidates ?? CANDIDATES, limit + 1);
  const window = bounds.window ?? SEARCH_WINDOW;
  // The tsquery is an immutable expression over constants: inlined, the planner folds it.
  const q = tsquery(plan);
  const { rows } = await sql<{
    id: string;
    chain_id: string;
    item_type: string;
    title: string;
    snippet: string;
    rank: number;
    updated_at: Date;
  }>`
    with recent as (
      select i.id, i.search, i.updated_at from items i
      where ${filters(f)}
      order by i.updated_at desc, i.id desc
      limit ${window}
    ),
    fresh as materialized (
      select r.id, r.search, r.updated_at from recent r
      where r.search @@ ${q}
      order by r.updated_at desc, r.id desc
      limit ${candidates}
    ),
    older as (
      -- The gate is a one-time filter: when the window filled the page, the index is never read (for a
      -- common word it would list every match, for a phrase or an exclusion every item holding the words).
      -- Otherwise fresh holds every match of the window and older ones come from the GIN index. The query goes
      -- in as a sub-select so the planner cannot conclude from its words (wrongly, for phrases and
      -- exclusions) that walking the whole project would find matches sooner than the index.
      select i.id, i.search, i.updated_at from items i
      where ${filters(f)} and i.search @@ (select ${q})
        and (select count(*) from fresh) <= ${limit}
        and i.id not in (select id from fresh)
      limit ${candidates} - (select count(*) from fresh)
    ),
    ranked as (
      select c.id, ts_rank(c.search, ${q}) as rank, c.updated_at
      from (select * from fresh union all select * from older) c
      order by rank desc, c.updated_at desc, c.id
      limit ${limit + 1}
    )
    select i.id, i.chain_id, i.item_type, i.title, r.rank::float8 as rank, i.updated_at,
           ts_headline('english', left(i.body, 4000), ${q},
                       'MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=1, StartSel=**, StopSel=**') as snippet
    from ranked r join items i on i.id = r.id
    order by r.rank desc, i.updated_at desc, i.id`.execute(db);
  return rows.map((r) => ({ ...r, rank: Number(r.rank), updated_at: iso(r.updated_at) }));
}

/**
 * Map normalized terms to the accepted terms of their glossary groups (rejected terms never expand), at most
 * `perTerm` of them per term in name order: a group may hold hundreds of terms, and the query the expansion
 * becomes has to stay bounded (domain's expandQuery decides how many are used).
 */
export async function glossarySynonyms(
  db: Kysely<Database>,
  projectId: string,
  terms: string[],
  perTerm = SYNONYMS_TO_READ,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (terms.length === 0) return out;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('glossary_terms as t')
        .innerJoin('glossary_terms as s', (j) => j.onRef('s.group_id', '=', 't.group_id').on('s.status', '=', 'accepted'))
        .select(['t.normalized as key', 's.term as synonym'])
        .select(sql<number>`row_number() over (partition by t.normalized order by s.term, s.id)`.as('n'))
        .where('t.project_id', '=', projectId)
        .where('t.status', '=', 'accepted')
        .where('t.normalized', 'in', terms)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('glossary_rejections as r')
                .select('r.id')
                .whereRef('r.group_id', '=', 's.group_id')
                .whereRef('r.normalized', '=', 's.normalized'),
            ),
          ),
        )
        .as('x'),
    )
    .select(['x.key', 'x.synonym'])
    .where('x.n', '<=', perTerm)
    .orderBy('x.key')
    .orderBy('x.synonym')
    .execute();
  for (const row of rows) {
    const list = out.get(row.key) ?? [];
    if (!list.includes(row.synonym)) list.push(row.synonym);
    out.set(row.key, list);
  }
  return out;
}
