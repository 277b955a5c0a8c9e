import { expandableTerms, parseQuery, planQuery, type TsPlan } from '@svc/domain';
import type { Service } from '@svc/service';
import { type Database, glossarySynonyms, type Kysely, tsquery } from '@svc/store';
import { sql } from 'kysely';

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

/** Time `fn` sequentially: warm-up calls first, then up to `iterations` timed calls. */
export async function time(fn: () => Promise<unknown>, b: Budget): Promise<Stats> {
  for (let i = 0; i < b.warmup; i++) await fn();
  const samples: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < b.iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (samples.length >= b.min && Number(process.hrtime.bigint() - start) / 1e6 > b.maxMs) break;
  }
  return stats(samples);
}

export interface Shape {
  name: string;
  query: string;
  /** Beyond the shapes: reported against the target, not counted in it. */
  stress?: boolean;
}

export interface ShapeResult extends Shape {
  /** Current items of the project matching the query. */
  matches: number;
  service: Stats;
  /** The GIN match alone: ids of any 21 matches, no ranking. */
  bare: Stats;
  /** Rank every match, order by rank, limit 21. */
  ranked: Stats;
  /** Share of the exact top 20 (ranking every match) that the service also returns. */
  overlap: number;
  /** Sum of the ranks of the service's top 20 over that of the exact top 20 (1 = as relevant, by ts_rank). */
  rankKept: number;
}

const ONE = 20;

function where(projectId: string, q: ReturnType<typeof tsquery>) {
  return sql`i.project_id = ${projectId}::uuid and i.is_head and i.deleted_at is null and i.search @@ ${q}`;
}

/** The plan the service builds for a query (glossary expansion included). */
export async function planFor(db: Kysely<Database>, projectId: string, query: string): Promise<TsPlan | undefined> {
  const ast = parseQuery(query);
  return planQuery(ast, await glossarySynonyms(db, projectId, expandableTerms(ast)));
}

export async function measureSearch(
  service: Service,
  db: Kysely<Database>,
  projectId: string,
  shape: Shape,
  budgets: { service: Budget; bare: Budget; ranked: Budget },
): Promise<ShapeResult> {
  const plan = await planFor(db, projectId, shape.query);
  if (!plan) throw new Error(`query ${shape.query} plans to nothing`);
  const q = () => tsquery(plan);
  const { rows: counted } = await sql<{ n: string }>`select count(*) as n from items i where ${where(projectId, q())}`.execute(db);
  const call = () => service.call('svc_item_search', { project_id: projectId, query: shape.query, limit: ONE }, { source: 'cli' });
  const bareQuery = () => sql`select i.id from items i where ${where(projectId, q())} limit ${ONE + 1}`.execute(db);
  const rankedQuery = () =>
    sql<{ id: string; rank: number }>`
      select i.id, ts_rank(i.search, ${q()}) as rank from items i where ${where(projectId, q())}
      order by rank desc, i.updated_at desc, i.id limit ${ONE + 1}`.execute(db);

  const serviceStats = await time(call, budgets.service);
  const bare = await time(bareQuery, budgets.bare);
  const ranked = await time(rankedQuery, budgets.ranked);

  const exact = (await rankedQuery()).rows.slice(0, ONE);
  const got = ((await call()) as { items: { id: string; rank: number }[] }).items;
  const ids = new Set(got.map((h) => h.id));
  const overlap = exact.length === 0 ? 1 : exact.filter((r) => ids.has(r.id)).length / exact.length;
  const sum = (xs: { rank: number }[]) => xs.reduce((a, x) => a + Number(x.rank), 0);
  const rankKept = exact.length === 0 ? 1 : sum(got) / sum(exact);
  return { ...shape, matches: Number(counted[0]?.n ?? 0), service: serviceStats, bare, ranked, overlap, rankKept };
}

export async function measureBrief(service: Service, projectId: string, budget: Budget): Promise<Stats> {
  return time(() => service.call('svc_brief', { project_id: projectId }, { source: 'cli' }), budget);
}
