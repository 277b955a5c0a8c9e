import { expandableTerms, parseQuery, planQuery, positiveLeaves, projectSettings, type TsPlan } from '@svc/domain';
import type { Service } from '@svc/service';
import { type Database, glossarySynonyms, type Kysely, tsquery } from '@svc/store';
import { sql } from 'kysely';
import { ops } from '@svc/service';

export interface Stats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Nearest-rank percentile of sorted samples (milliseconds). */
function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

export interface Budget {
  iterations: number;
  warmup: number;
  /** Stop early once this much time is spent (after at least `min` iterations). */
  maxMs: number;
  min: number;
}

async function sample(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Time `fn` sequentially: warm-up calls first, then up to `iterations` timed calls. */
export async function time(fn: () => Promise<unknown>, b: Budget): Promise<Stats> {
  for (let i = 0; i < b.warmup; i++) await fn();
  const samples: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < b.iterations; i++) {
    samples.push(await sample(fn));
    if (samples.length >= b.min && Number(process.hrtime.bigint() - start) / 1e6 > b.maxMs) break;
  }
  return stats(samples);
}

/**
 * Time several calls in interleaved rounds (each round times every call `iterations / rounds` times), so a
 * burst of other work on the machine lands on all of them alike instead of spoiling one.
 */
export async function timeRounds(fns: (() => Promise<unknown>)[], b: { iterations: number; warmup: number; rounds: number }): Promise<Stats[]> {
  for (const fn of fns) for (let i = 0; i < b.warmup; i++) await fn();
  const samples: number[][] = fns.map(() => []);
  const per = Math.ceil(b.iterations / b.rounds);
  for (let round = 0; round < b.rounds; round++) {
    for (const [k, fn] of fns.entries()) for (let i = 0; i < per; i++) samples[k]?.push(await sample(fn));
  }
  return samples.map(stats);
}

export interface Shape {
  name: string;
  query: string;
  /** Beyond the shapes: reported against the target, not counted in it. */
  stress?: boolean;
  /** svc_item_search's item_types: the reference's statistics stay the project's, its matches are these types'. */
  itemTypes?: string[];
}

export interface ShapeResult extends Shape {
  /** Current items of the project matching the query. */
  matches: number;
  service: Stats;
  /** The GIN match alone: ids of any 21 matches, no ranking. */
  bare: Stats;
  /** Rank every match, order by rank, limit 21. */
  ranked: Stats;
  /** Share of the exhaustive BM25F reference's top 20 (bm25Reference) that the service also returns. */
  overlap: number;
  /** Sum of the reference scores of the service's top 20 over that of the reference's top 20 (1 = as relevant). */
  rankKept: number;
}

/**
 * BM25F over every current match of `plan`, computed here from the items alone (no postings, no statistics
 * tables): N, avgdl and df over the project's current items, tf = 3 × title + body occurrences, k1 1.2, b 0.75, the
 * query's terms as the database analyses them (svc_query_terms, migration 0015).
 * Every matching item's score, best first (ties by recency, then id). Research past the project's time to live is
 * counted in the statistics, as it is a current item, but is no match: the service hides it unless asked
 * (include_expired). Until 2026-11-28 the reference listed it, and svc's exact pages read as 95% kept.
 */
async function bm25Reference(db: Kysely<Database>, projectId: string, plan: TsPlan, itemTypes?: string[]): Promise<{ id: string; score: number }[]> {
  const { rows: project } = await sql<{ settings: Record<string, unknown> }>`select settings from projects where id = ${projectId}::uuid`.execute(db);
  const ttl = projectSettings(project[0]?.settings ?? {}).research.ttl_days;
  const { rows } = await sql<{ id: string; score: number }>`
    with terms as (
      select distinct l.term from unnest(${positiveLeaves(plan)}::text[]) as x(t),
        lateral unnest(svc_query_terms(x.t)) as l(term)
    ),
    live as (
      select i.id, i.updated_at, i.search, (select coalesce(sum(cardinality(u.weights)), 0) from unnest(i.search) u)::float8 as dl,
             i.item_type = 'research' and i.refreshed_at < now() - make_interval(days => ${ttl}::int) as expired,
             i.item_type
      from items i where i.project_id = ${projectId}::uuid and i.is_head and i.deleted_at is null
    ),
    st as materialized (select count(*) filter (where dl > 0) as n, sum(dl) / nullif(count(*) filter (where dl > 0), 0) as avgdl from live),
    df as materialized (select t.term, count(l.id) as df from terms t left join live l on t.term = any (tsvector_to_array(l.search)) group by t.term)
    select l.id,
           coalesce(sum(ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * l.dl / st.avgdl))), 0)::float8 as score
    from live l cross join st
    left join lateral unnest(l.search) u on true
    left join df on df.term = u.lexeme
    left join lateral (select 3 * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights)
                              - cardinality(array_positions(u.weights, 'A')) as tf) f on df.term is not null
    where l.search @@ ${tsquery(plan)} and not l.expired and (${itemTypes ?? null}::text[] is null or l.item_type = any (${itemTypes ?? null}::text[]))
    group by l.id, l.updated_at
    order by score desc, l.updated_at desc, l.id`.execute(db);
  return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
}

const ONE = 20;

/**
 * The baselines' condition. With item types, research past the project's time to live is left out as the service
 * leaves it out: most of the corpus's research is expired (items span two years, research lives 90 days), and a
 * research-only baseline over every research item measured ten times the items svc searches (a reviewer, 2026-11-28).
 * Without, the issue's bare GIN as it defines it (expired research is about 2% of those matches).
 */
function where(projectId: string, q: ReturnType<typeof tsquery>, itemTypes?: string[]) {
  const typed = itemTypes
    ? sql` and i.item_type = any (${itemTypes}::text[])
         and not (i.item_type = 'research' and i.refreshed_at < now() - make_interval(days => (
           select coalesce((p.settings #>> '{research,ttl_days}')::int, ${DEFAULT_TTL_DAYS}) from projects p where p.id = ${projectId}::uuid)))`
    : sql``;
  return sql`i.project_id = ${projectId}::uuid and i.is_head and i.deleted_at is null and i.search @@ ${q}${typed}`;
}

const DEFAULT_TTL_DAYS = projectSettings({}).research.ttl_days;

/** The plan the service builds for a query (glossary expansion included). */
export async function planFor(db: Kysely<Database>, projectId: string, query: string): Promise<TsPlan | undefined> {
  const ast = parseQuery(query);
  return planQuery(ast, await glossarySynonyms(db, projectId, expandableTerms(ast)));
}

export interface Prepared extends Shape {
  plan: TsPlan;
  matches: number;
}

/** Plan a shape as the service would and count its matches. */
export async function prepare(db: Kysely<Database>, projectId: string, shape: Shape): Promise<Prepared> {
  const plan = await planFor(db, projectId, shape.query);
  if (!plan) throw new Error(`query ${shape.query} plans to nothing`);
  const { rows } = await sql<{ n: string }>`select count(*) as n from items i where ${where(projectId, tsquery(plan), shape.itemTypes)}`.execute(db);
  return { ...shape, plan, matches: Number(rows[0]?.n ?? 0) };
}

export function searchCall(service: Service, projectId: string, shape: Shape): () => Promise<unknown> {
  const filter = shape.itemTypes ? { item_types: shape.itemTypes } : {};
  return () => service.call(ops.svc_item_search, { project_id: projectId, query: shape.query, limit: ONE, ...filter }, { source: 'cli' });
}

export function briefCall(service: Service, projectId: string): () => Promise<unknown> {
  return () => service.call(ops.svc_brief, { project_id: projectId }, { source: 'cli' });
}

/** The baselines of one shape (bare GIN match, plain ranked query) and how much of the exact top 20 svc keeps. */
export async function baselines(
  service: Service,
  db: Kysely<Database>,
  projectId: string,
  shape: Prepared,
  budgets: { bare: Budget; ranked: Budget },
): Promise<Pick<ShapeResult, 'bare' | 'ranked' | 'overlap' | 'rankKept'>> {
  const q = () => tsquery(shape.plan);
  const bareQuery = () => sql`select i.id from items i where ${where(projectId, q(), shape.itemTypes)} limit ${ONE + 1}`.execute(db);
  const rankedQuery = () =>
    sql<{ id: string; rank: number }>`
      select i.id, ts_rank(i.search, ${q()}) as rank from items i where ${where(projectId, q(), shape.itemTypes)}
      order by rank desc, i.updated_at desc, i.id limit ${ONE + 1}`.execute(db);
  const bare = await time(bareQuery, budgets.bare);
  const ranked = await time(rankedQuery, budgets.ranked);
  return { bare, ranked, ...(await agreement(service, db, projectId, shape)) };
}

/** How much of the exhaustive reference's top 20 (bm25Reference) the service's page keeps, by id and by score. */
export async function agreement(
  service: Service,
  db: Kysely<Database>,
  projectId: string,
  shape: Shape & { plan: TsPlan },
): Promise<Pick<ShapeResult, 'overlap' | 'rankKept'>> {
  const reference = await bm25Reference(db, projectId, shape.plan, shape.itemTypes);
  const exact = reference.slice(0, ONE);
  const got = ((await searchCall(service, projectId, shape)()) as { items: { id: string }[] }).items;
  const ids = new Set(got.map((h) => h.id));
  const overlap = exact.length === 0 ? 1 : exact.filter((r) => ids.has(r.id)).length / exact.length;
  const scoreOf = new Map(reference.map((r) => [r.id, r.score]));
  const sum = (xs: { id: string }[]) => xs.reduce((a, x) => a + (scoreOf.get(x.id) ?? 0), 0);
  const rankKept = exact.length === 0 ? 1 : sum(got) / sum(exact);
  return { overlap, rankKept };
}
