import { type NearMissPlan, SYNONYMS_TO_READ, type TsPlan } from '@svc/domain';
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import { iso } from './refs.js';
import { researchExpired } from './research.js';
import type { Database } from './schema.js';

/** Turn a query plan into a tsquery expression made only of functions over bound parameters. */
export function tsquery(plan: TsPlan): RawBuilder<unknown> {
  switch (plan.op) {
    case 'word':
      // An underscore-joined identifier (svc_item_search) parses to its parts: they must stand together.
      return plan.text.includes('_')
        ? sql`phraseto_tsquery('english', ${plan.text}::text)`
        : sql`plainto_tsquery('english', ${plan.text}::text)`;
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

/**
 * BM25F over every match (docs/decisions/0026-search-bm25.md). Each field-weighted term frequency is
 * tf = TITLE_WEIGHT × title occurrences + body occurrences; an item's length dl counts its indexed positions;
 * score = Σ over the query's terms of idf(t) × tf (K1 + 1) / (tf + K1 (1 − B + B dl / avgdl)), with
 * idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) and N, avgdl, df the project's current statistics.
 * tf and dl come from svc_search_postings (migrations/0013), the one definition the index's writes and rebuild
 * use too; K1 and B live there (and in 0011's svc_bm25_tf) as well.
 */
export const BM25 = { K1: 1.2, B: 0.75, TITLE_WEIGHT: 3 } as const;

/** Scores within this relative distance of the last one kept count as ties (broken by recency among those read). */
const TIE = 1e-6;

interface SearchStats {
  docs: number;
  avgdl: number;
  ref_avgdl: number;
}

export function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** One term's BM25 contribution in an item (idf excluded). */
export function bm25Tf(tf: number, dl: number, avgdl: number): number {
  return (tf * (BM25.K1 + 1)) / (tf + BM25.K1 * (1 - BM25.B + (BM25.B * dl) / Math.max(avgdl, 1)));
}

interface Leaf {
  text: string;
}

/** The plan's top-level positive clauses, each a list of alternatives (a word or phrase, or an OR of them). */
function positiveClauses(plan: TsPlan): Leaf[][] {
  const top = plan.op === 'and' ? plan.args : [plan];
  const out: Leaf[][] = [];
  const leaves = (p: TsPlan, acc: Leaf[]): boolean => {
    if (p.op === 'word' || p.op === 'phrase') {
      acc.push({ text: p.text });
      return true;
    }
    if (p.op === 'or') return p.args.every((a) => leaves(a, acc));
    return false;
  };
  for (const clause of top) {
    const acc: Leaf[] = [];
    if (clause.op !== 'not' && leaves(clause, acc)) out.push(acc);
  }
  return out;
}

/** Every positive leaf of the plan (terms that score), wherever it sits outside a negation. */
function positiveLeaves(plan: TsPlan, acc: string[] = []): string[] {
  if (plan.op === 'word' || plan.op === 'phrase') acc.push(plan.text);
  else if (plan.op === 'and' || plan.op === 'or') for (const a of plan.args) positiveLeaves(a, acc);
  return acc;
}

async function analyze(db: Kysely<Database>, texts: string[]): Promise<string[][]> {
  if (texts.length === 0) return [];
  const { rows } = await sql<{ ord: string; terms: string[] | null }>`
    select u.ord, tsvector_to_array(to_tsvector('english', u.t)) as terms
    from unnest(array[${sql.join(texts.map((t) => sql`${t}::text`))}]) with ordinality as u(t, ord)
    order by u.ord`.execute(db);
  return rows.map((r) => r.terms ?? []);
}

interface TermStat {
  df: number;
  max_impact: number;
}

async function statistics(db: Kysely<Database>, projectId: string, terms: string[]): Promise<{ stats: SearchStats; terms: Map<string, TermStat> }> {
  const p = sql`${projectId}::uuid`;
  const { rows } = await sql<{ docs: string | null; len: string | null; ref: number | null }>`
    select coalesce((select docs from search_stats where project_id = ${p}), 0)
             + coalesce((select sum(docs) from search_deltas where project_id = ${p}), 0) as docs,
           coalesce((select total_len from search_stats where project_id = ${p}), 0)
             + coalesce((select sum(len) from search_deltas where project_id = ${p}), 0) as len,
           (select ref_avgdl from search_stats where project_id = ${p}) as ref`.execute(db);
  const row = rows[0];
  const docs = Number(row?.docs ?? 0);
  const stats = { docs, avgdl: docs > 0 ? Number(row?.len ?? 0) / docs : 1, ref_avgdl: Number(row?.ref ?? 64) };
  const out = new Map<string, TermStat>();
  if (terms.length > 0) {
    const { rows: termRows } = await sql<{ term: string; df: string; max_impact: number | null }>`
      select t.term,
             coalesce((select df from search_terms s where s.project_id = ${p} and s.term = t.term), 0)
               + coalesce((select sum(docs) from search_deltas d where d.project_id = ${p} and t.term = any (d.terms)), 0) as df,
             (select impact from search_postings s where s.project_id = ${p} and s.term = t.term
               order by impact desc, item_id desc limit 1)::float8 as max_impact
      from unnest(array[${sql.join(terms.map((t) => sql`${t}::text`))}]) as t(term)`.execute(db);
    for (const r of termRows) out.set(r.term, { df: Math.max(0, Number(r.df)), max_impact: Number(r.max_impact ?? 0) });
  }
  return { stats, terms: out };
}

/** A query's terms and statistics: what scoring and choosing anchors need. */
interface PreparedQuery {
  lexemesOf: Map<string, string[]>;
  queryTerms: string[];
  stats: SearchStats;
  terms: Map<string, TermStat>;
  df: (term: string) => number;
  /** Each query term's idf. */
  weight: Map<string, number>;
}

/** Analyse the plan's positive leaves and read their statistics; undefined when nothing can match. */
async function prepareQuery(db: Kysely<Database>, plan: TsPlan, f: SearchFilters): Promise<PreparedQuery | undefined> {
  const leafTexts = [...new Set([...positiveLeaves(plan), ...positiveClauses(plan).flat().map((l) => l.text)])];
  const analyzed = await analyze(db, leafTexts);
  const lexemesOf = new Map(leafTexts.map((t, i) => [t, analyzed[i] ?? []]));
  const queryTerms = [...new Set(analyzed.flat())].sort();
  if (queryTerms.length === 0) return undefined;
  const { stats, terms } = await statistics(db, f.project_id, queryTerms);
  if (stats.docs === 0) return undefined;
  const df = (t: string) => terms.get(t)?.df ?? 0;
  return { lexemesOf, queryTerms, stats, terms, df, weight: new Map(queryTerms.map((t) => [t, idf(stats.docs, df(t))])) };
}

/** A clause's anchors: each alternative's rarest term (an alternative of stop words only has none). Every item holding the clause holds one. */
function clauseAnchors(clause: Leaf[], lexemesOf: Map<string, string[]>, df: (term: string) => number): Set<string> {
  const own = new Set<string>();
  for (const leaf of clause) {
    const lex = lexemesOf.get(leaf.text) ?? [];
    if (lex.length > 0) own.add(lex.reduce((a, b) => (df(b) < df(a) ? b : a)));
  }
  return own;
}

interface Checked extends Scored {
  /** Whether the item matches each of the plans asked about (scoreItems' `each`). */
  held: boolean[];
}

/**
 * The items selected by `which` (a condition on `i`) that pass the filters and match `q`, each scored by BM25F
 * over the query's terms with current statistics, tf and dl from svc_search_postings (migration 0013), and
 * whether it matches each of `each`.
 */
async function scoreItems(
  db: Kysely<Database>,
  query: PreparedQuery,
  which: RawBuilder<unknown>,
  f: SearchFilters,
  q: RawBuilder<unknown>,
  each: TsPlan[] = [],
): Promise<Map<string, Checked>> {
  const held = each.length > 0 ? sql`array[${sql.join(each.map((p) => sql`i.search @@ ${tsquery(p)}`))}]` : sql`array[]::boolean[]`;
  const { rows } = await sql<{ id: string; updated_at: Date; held: boolean[]; term: string | null; tf: number | null; dl: number | null }>`
    select i.id, i.updated_at, ${held} as held, u.term, u.tf::float8 as tf, u.dl
    from items i
    left join lateral svc_search_postings(i.search, 1) u on u.term in (${sql.join(query.queryTerms.map((t) => sql`${t}::text`))})
    where ${which} and ${filters(f)} and i.search @@ ${q}`.execute(db);
  const scored = new Map<string, Checked>();
  for (const r of rows) {
    const s = scored.get(r.id) ?? { id: r.id, score: 0, updated_at: r.updated_at, held: r.held };
    if (r.term !== null && r.tf !== null && r.dl !== null) s.score += (query.weight.get(r.term) ?? 0) * bm25Tf(r.tf, r.dl, query.stats.avgdl);
    scored.set(r.id, s);
  }
  return scored;
}

interface Scored {
  id: string;
  score: number;
  updated_at: Date;
}

const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * The exact top `limit + 1` by BM25F among every current item matching `plan` under the filters, read in
 * impact order (docs/decisions/0026-search-bm25.md):
 *
 * 1. The driving clause is the positive clause (required word or phrase, or OR group) whose anchors (each
 *    alternative's rarest term) have the fewest postings in all: every match holds one of its anchors.
 * 2. The anchors' postings are read best impact first, in growing batches. Each new item is checked in full
 *    (filters, `search @@ tsquery` for phrases, exclusions and the other clauses) and scored exactly with
 *    current statistics.
 * 3. An item not read yet scores at most Σ idf × (K1 + 1) × bound(cap) over the query's terms, where cap is the
 *    anchor's last impact read (or, for other terms, their best impact). The walk stops when the page's last
 *    score reaches that bound, or when the anchors' postings run out.
 */
export async function searchItems(db: Kysely<Database>, plan: TsPlan, f: SearchFilters, limit: number): Promise<SearchHit[]> {
  const k = limit + 1;
  const clauses = positiveClauses(plan);
  const query = await prepareQuery(db, plan, f);
  if (!query) return [];
  const { lexemesOf, queryTerms, stats, terms, df, weight } = query;

  // The driving clause: fewest postings over its anchors; an alternative without terms (stop words only) drops out.
  let anchors: string[] | undefined;
  let cost = Number.POSITIVE_INFINITY;
  for (const clause of clauses) {
    const own = clauseAnchors(clause, lexemesOf, df);
    if (own.size === 0) continue;
    const total = [...own].reduce((s, t) => s + df(t), 0);
    if (total < cost) {
      cost = total;
      anchors = [...own].sort();
    }
  }
  if (!anchors) return [];

  const q = tsquery(plan);
  const m = Math.min(1, stats.ref_avgdl / Math.max(stats.avgdl, 1));
  const bound = (key: number) => (key <= 0 ? 0 : key / (key + m * (1 - key)));
  const cursors = new Map(anchors.map((t) => [t, { impact: 2, id: NIL, done: df(t) === 0 }]));
  const seen = new Set<string>();
  const top: Scored[] = [];
  let batch = Math.min(Math.max(2 * k, 32), 256);
  for (;;) {
    const open = anchors.filter((t) => !cursors.get(t)?.done);
    if (open.length === 0) break;
    const { rows: postings } = await sql<{ term: string; item_id: string; impact: number }>`
      select a.term, s.item_id, s.impact::float8 as impact
      from (values ${sql.join(open.map((t) => sql`(${t}::text, ${cursors.get(t)?.impact}::real, ${cursors.get(t)?.id}::uuid)`))})
           as a(term, impact, id)
      cross join lateral (
        select item_id, impact from search_postings s
        where s.project_id = ${f.project_id}::uuid and s.term = a.term and (s.impact, s.item_id) < (a.impact, a.id)
        order by s.impact desc, s.item_id desc
        limit ${batch}
      ) s`.execute(db);
    const fresh: string[] = [];
    const counts = new Map<string, number>();
    for (const p of postings) {
      const c = cursors.get(p.term);
      if (c) {
        c.impact = p.impact;
        c.id = p.item_id;
      }
      counts.set(p.term, (counts.get(p.term) ?? 0) + 1);
      if (!seen.has(p.item_id)) {
        seen.add(p.item_id);
        fresh.push(p.item_id);
      }
    }
    for (const t of open) if ((counts.get(t) ?? 0) < batch) (cursors.get(t) as { done: boolean }).done = true;
    if (fresh.length > 0) {
      const scored = await scoreItems(db, query, sql`i.id in (${sql.join(fresh.map((id) => sql`${id}::uuid`))})`, f, q);
      top.push(...scored.values());
      top.sort(byScore);
      top.length = Math.min(top.length, k);
    }
    if (top.length >= k) {
      let ub = 0;
      for (const t of queryTerms) {
        const c = cursors.get(t);
        const cap = c ? (c.done ? 0 : c.impact) : (terms.get(t)?.max_impact ?? 0);
        ub += (weight.get(t) ?? 0) * (BM25.K1 + 1) * bound(cap);
      }
      if ((top[k - 1] as Scored).score >= ub * (1 - TIE)) break;
    }
    batch = Math.min(batch * 2, 2_000);
  }
  return withSnippets(db, top, q, limit);
}

/**
 * Postings a near-miss search reads at most (over every term it reads) before it settles for a bounded pool and
 * says so: about as many items as the longest walk of searchItems checks in one batch, twice.
 */
export const NEAR_MISS_BUDGET = 4_000;

export interface NearMiss extends SearchHit {
  /** Whether the item holds each of the plan's words, in order. */
  held: boolean[];
}

/**
 * svc_item_search's near misses (docs/decisions/0032-search-rebuild-and-near-misses.md): the `want` best current
 * items, outside `exclude` (the strict answer), that match the relaxed query and hold at least `least` but not
 * all of the required words, most words first, then by BM25F over the relaxed query. Exact over every such item
 * unless `cut`:
 *
 * - An item holding c of the n words holds one of any n − c + 1 of them. So the items holding n − 1 words are
 *   all among the postings of the 2 rarest words' anchors, those holding n − 2 among the 3 rarest, and so on:
 *   the search reads one more word's postings per count until `want` items are known at the counts read, or
 *   it reaches `least` (or a phrase or OR group every near miss must hold has fewer postings: it drives).
 * - When the next count would pass NEAR_MISS_BUDGET postings read, it stops, and the relaxed query's exact BM25
 *   top (searchItems, about 3 × the places left) fills the list. If only the lowest count was left unread, the
 *   items there rank by score alone, so that top settles them when enough of them score at least its last place.
 *   Otherwise `cut`: the list may miss items that hold more words, and the answer says so.
 */
export async function searchNearMisses(
  db: Kysely<Database>,
  near: NearMissPlan,
  f: SearchFilters,
  want: number,
  exclude: ReadonlySet<string>,
): Promise<{ hits: NearMiss[]; cut: boolean }> {
  if (want <= 0) return { hits: [], cut: false };
  const query = await prepareQuery(db, near.relaxed, f);
  if (!query) return { hits: [], cut: false };
  const { lexemesOf, df } = query;
  const n = near.words.length;
  const q = tsquery(near.relaxed);
  const cost = (anchors: Iterable<string>) => [...anchors].reduce((sum, t) => sum + df(t), 0);
  const words = near.words
    .map((w) => clauseAnchors(positiveClauses(w.plan)[0] ?? [], lexemesOf, df))
    .sort((a, b) => cost(a) - cost(b));
  let kept: Set<string> | undefined;
  const rest = near.relaxed.op === 'and' ? near.relaxed.args.slice(1) : [];
  for (const clause of rest.length > 0 ? positiveClauses({ op: 'and', args: rest }) : []) {
    const own = clauseAnchors(clause, lexemesOf, df);
    if (own.size > 0 && (!kept || cost(own) < cost(kept))) kept = own;
  }

  const found = new Map<string, Checked & { count: number }>();
  const check = async (which: RawBuilder<unknown>) => {
    for (const h of (await scoreItems(db, query, which, f, q, near.words.map((w) => w.plan))).values()) {
      const count = h.held.filter(Boolean).length;
      if (!exclude.has(h.id) && count >= near.least && count < n) found.set(h.id, { ...h, count });
    }
  };
  // Every item holding at least `complete` of the words is in `found`.
  let complete = n;
  const known = () => [...found.values()].filter((h) => h.count >= complete).length;
  const read = new Set<string>();
  let spent = 0;
  for (let c = n - 1; c >= near.least && known() < want; c--) {
    const byWords = new Set(words.slice(0, n - c + 1).flatMap((w) => [...w]));
    const driveKept = kept !== undefined && cost(kept) <= cost(byWords);
    const fresh = [...((driveKept ? kept : byWords) as Set<string>)].filter((t) => !read.has(t)).sort();
    if (spent + cost(fresh) > NEAR_MISS_BUDGET) break;
    spent += cost(fresh);
    for (const t of fresh) read.add(t);
    if (fresh.length > 0) {
      await check(sql`i.id in (select s.item_id from search_postings s
        where s.project_id = ${f.project_id}::uuid and s.term in (${sql.join(fresh.map((t) => sql`${t}::text`))}))`);
    }
    complete = driveKept ? near.least : c;
    if (driveKept) break;
  }

  let cut = complete > near.least && known() < want;
  if (cut) {
    // The relaxed query's best items fill the list. Where only the lowest count is left unread, its order is
    // BM25F alone, so they settle it when enough of them score above the pool's last place.
    const need = want - known();
    const k = exclude.size + known() + 3 * need;
    const pool = await searchItems(db, near.relaxed, f, k);
    const unseen = pool.filter((h) => !exclude.has(h.id) && !found.has(h.id)).map((h) => h.id);
    if (unseen.length > 0) await check(sql`i.id in (${sql.join(unseen.map((id) => sql`${id}::uuid`))})`);
    if (complete - 1 === near.least) {
      const last = pool[k]?.rank;
      const lowest = [...found.values()].filter((h) => h.count === near.least).sort(byScore);
      // Ties with the pool's last place count as settled, as in searchItems (broken among those read).
      cut = last !== undefined && !((lowest[need - 1]?.score ?? Number.NEGATIVE_INFINITY) >= last);
    }
  }
  const page = [...found.values()].sort((a, b) => b.count - a.count || byScore(a, b)).slice(0, want);
  const hits = await withSnippets(db, page, q, want);
  return { hits: hits.map((h, i) => ({ ...h, held: page[i]?.held ?? [] })), cut };
}

/** The hits for `top`, in its order, with snippets (ts_headline, over the item's first 4,000 characters) for the first `limit` only. */
async function withSnippets(db: Kysely<Database>, top: Scored[], q: RawBuilder<unknown>, limit: number): Promise<SearchHit[]> {
  if (top.length === 0) return [];
  const { rows } = await sql<{ id: string; chain_id: string; item_type: string; title: string; snippet: string; updated_at: Date }>`
    select i.id, i.chain_id, i.item_type, i.title, i.updated_at,
           ts_headline('english', left(i.body, 4000), ${q},
                       'MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=1, StartSel=**, StopSel=**') as snippet
    from items i where i.id in (${sql.join(top.slice(0, limit).map((s) => sql`${s.id}::uuid`))})`.execute(db);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return top.map((s) => {
    const r = byId.get(s.id);
    return {
      id: s.id,
      chain_id: r?.chain_id ?? '',
      item_type: r?.item_type ?? '',
      title: r?.title ?? '',
      snippet: r?.snippet ?? '',
      rank: s.score,
      updated_at: iso(r?.updated_at ?? s.updated_at),
    };
  });
}

function byScore(a: Scored, b: Scored): number {
  return b.score - a.score || b.updated_at.getTime() - a.updated_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
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

/** Leave the search index alone for the rest of this transaction (bulk import), until rebuildSearchIndex. */
export async function deferSearchIndex(tx: Transaction<Database>): Promise<void> {
  await sql`select set_config('svc.search_deferred', 'on', true)`.execute(tx);
}

/** Rebuild a project's search index and statistics once from its current items, then refresh planner statistics. */
export async function rebuildSearchIndex(tx: Transaction<Database>, projectId: string): Promise<void> {
  await sql`select set_config('svc.search_deferred', 'off', true)`.execute(tx);
  await sql`select svc_search_rebuild(${projectId}::uuid)`.execute(tx);
  await sql`analyze items, search_postings, search_terms, search_stats`.execute(tx);
}
