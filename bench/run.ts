/**
 * `pnpm bench`: seed a project with realistic text, links and QA checks; time svc_item_search and svc_brief
 * (next to the bare SQL lower bound and the plain ranked query), svc_impact at depth 5 and svc_check on
 * PostgreSQL and PGlite; then HTTP load on PostgreSQL (bench/load.ts); the web view's page timings (bench/web-pages.ts);
 * writes docs/benchmarks.md.
 *
 *   pnpm bench [--only postgres|pglite|writes|relevance|peer|web] [--peer-records N,M] [--peer-dir DIR] [--write-calls N] [--write-base N] [--write-also 0011]
 *               [--relevance-items N,M] [--web-items N] [--web-iterations N] [--server URL] [--database NAME] [--items N] [--skip-1m] [--skip-load] [--skip-audit] [--typed-queries N] [--typed-rounds N] [--no-write] [--reuse] [--tune]
 *
 * PostgreSQL: --server (default postgres://postgres@127.0.0.1:5432) names the server; the bench drops and
 * recreates its own database (--database, default `svc_bench`) there and touches no other.
 */
import { writeFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createService, findOperation, type Service } from '@svc/service';
import { type Database, type Kysely, migrate, openStore, type Store } from '@svc/store';
import { sql } from 'kysely';
import { AUDIT_TARGETS, measureAudit, seedAudit } from './audit.js';
import { rng, SEED, VOCABULARY, type Vocabulary, vocabulary } from './corpus.js';
import { httpLoad, type LoadResult, loadItems, loadTable } from './load.js';
import { type Budget, baselines, briefCall, type Prepared, prepare, type ShapeResult, type Stats, searchCall, timeRounds } from './measure.js';
import { document, type Machine, type RunResult, SEARCH_TARGETS, summary, TARGETS } from './report.js';
import { glossary, shapes, stressShapes } from './shapes.js';
import { measureTyped } from './typed.js';
import { measurePeer, type PeerResult, peerTable } from './peer.js';
import { measureRelevance, type RelevanceResult, relevanceTable } from './relevance.js';
import { measureWeb, type WebResult, webTable } from './web-pages.js';
import { measureWrites, type WriteResult, writesTable } from './writes.js';
import { count, createProjects, DAY, type ProjectRef, recreateDatabase, SPAN, seedGlossary, seedThenIndex, seedWorkUnits } from './seed.js';

const OTHER_PROJECTS = 9;

const DOC = new URL('../docs/benchmarks.md', import.meta.url);

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    server: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    database: { type: 'string', default: 'svc_bench' },
    items: { type: 'string', default: '100000' },
    'skip-1m': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    // Leave out the HTTP load (autocannon against `svc serve http` and a bare hono route; PostgreSQL only).
    'skip-load': { type: 'boolean', default: false },
    // Tuning aid: measure the svc_bench database a previous run left behind, without seeding (PostgreSQL).
    reuse: { type: 'boolean', default: false },
    // Tuning aid: time the baselines (bare, plain ranked) only a few times.
    tune: { type: 'boolean', default: false },
    // Time svc_item_search and svc_brief only: no svc_impact / svc_check (bench/audit.ts) and no links seeded.
    'skip-audit': { type: 'boolean', default: false },
    // Queries as assistants type them (bench/typed.ts): queries per family (0: none), each timed this many times.
    'typed-queries': { type: 'string', default: '15' },
    'typed-rounds': { type: 'string', default: '3' },
    // Write cost of the search index (bench/writes.ts): calls per side, and the items each database holds first.
    'write-calls': { type: 'string', default: '2000' },
    'write-base': { type: 'string', default: '20000' },
    // Intermediate schemas measured beside main (0010) and the latest, e.g. --write-also 0011.
    'write-also': { type: 'string', multiple: true },
    // Relevance (bench/relevance.ts): items in its project (the judged ones planted among them).
    'relevance-items': { type: 'string', default: '20000,100000' },
    // Beside mcp-memory-keeper over MCP stdio (bench/peer.ts): records, and where the peer is installed.
    'peer-records': { type: 'string', default: '5000,20000' },
    'peer-dir': { type: 'string', default: join(tmpdir(), 'svc-bench-peer') },
    // The web view's pages (bench/web-pages.ts): items in its project (default --items), requests per page.
    'web-items': { type: 'string' },
    'web-iterations': { type: 'string', default: '200' },
  },
});
const ITEMS = Number(args.items);
const DATABASE = args.database;
/** Links in the measured project: as many as items (the issue's shapes: 100k edges over 100k items). */
const EDGES = ITEMS;
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error(`--database: '${DATABASE}' is not a plain database name`);
const only = new Set(args.only ?? ['postgres', 'pglite', 'writes', 'relevance', 'peer', 'web']);

const budgets: { service: Budget; bare: Budget; ranked: Budget; rounds: number; audit: Parameters<typeof measureAudit>[3] } = {
  service: { iterations: 200, warmup: 20, maxMs: 15_000, min: 50 },
  rounds: 4,
  audit: { iterations: 200, warmup: 20, rounds: 4, checkIterations: 40, ruleIterations: 10 },
  bare: { iterations: 200, warmup: 10, maxMs: 2_000, min: 30 },
  // Ranking every match of a common word is slow by design; a dozen samples give its order of magnitude.
  ranked: { iterations: 100, warmup: 1, maxMs: 2_000, min: 12 },
};
if (args.tune) {
  budgets.bare = { iterations: 3, warmup: 0, maxMs: 0, min: 3 };
  budgets.ranked = { iterations: 3, warmup: 0, maxMs: 0, min: 3 };
}

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function vacuum(db: Kysely<Database>): Promise<void> {
  // Sets the visibility map, flushes GIN pending lists and gathers the tsvector statistics the planner needs.
  await sql`vacuum analyze items`.execute(db);
  await sql`analyze`.execute(db);
}

interface Seeded {
  bench: ProjectRef;
  others: ProjectRef[];
  seconds: number;
}

/** Projects, glossary, work units and tasks, then ITEMS items in the measured project and ITEMS in the others. */
async function seedFirst(service: Service, db: Kysely<Database>, v: Vocabulary): Promise<Seeded> {
  const t0 = Date.now();
  const r = rng(SEED);
  const now = Date.now();
  const [bench, ...others] = await createProjects(service, ['bench', ...Array.from({ length: OTHER_PROJECTS }, (_, i) => `other-${i + 1}`)]);
  if (!bench) throw new Error('no project');
  await seedGlossary(service, bench.slug, glossary(v.words));
  const tasks = await seedWorkUnits(db, v, r, bench, 200, now);
  let otherTasks = 0;
  for (const p of others) otherTasks += await seedWorkUnits(db, v, r, p, 20, now);
  const perOther = Math.floor((ITEMS - otherTasks) / others.length);
  await seedThenIndex(
    db,
    v,
    r,
    [{ project: bench, items: ITEMS - tasks }, ...others.map((project) => ({ project, items: perOther }))],
    { from: now - SPAN, to: now - DAY },
    progress,
  );
  if (!args['skip-audit']) {
    log(`  linking the measured project: ${EDGES.toLocaleString('en')} links, QA checks on done tasks`);
    const audit = await seedAudit(db, v, r, bench, EDGES, now);
    log(`  ${audit.qaChecks.toLocaleString('en')} QA checks`);
  }
  await vacuum(db);
  return { bench, others, seconds: (Date.now() - t0) / 1000 };
}

/** Grow the other projects until the table holds 10 × ITEMS current items in all. */
async function seedMore(db: Kysely<Database>, v: Vocabulary, seeded: Seeded): Promise<number> {
  const t0 = Date.now();
  const r = rng(SEED + 1);
  const now = Date.now();
  const per = Math.floor((8 * ITEMS) / seeded.others.length);
  await seedThenIndex(db, v, r, seeded.others.map((project) => ({ project, items: per })), { from: now - SPAN, to: now - DAY }, progress);
  await vacuum(db);
  return (Date.now() - t0) / 1000;
}

let lastProgress = 0;
function progress(done: number, total: number): void {
  if (Date.now() - lastProgress < 10_000 && done < total) return;
  lastProgress = Date.now();
  log(`  seeded ${done.toLocaleString('en')} / ${total.toLocaleString('en')} items`);
}

async function measure(
  store: Store,
  service: Service,
  v: Vocabulary,
  bench: ProjectRef,
  title: string,
  seedSeconds: number,
  typedToo = false,
): Promise<RunResult> {
  const db = store.db;
  const rows = {
    items: await count(db, sql<{ n: string }>`select count(*) as n from items`),
    projectHeads: await count(
      db,
      sql<{ n: string }>`select count(*) as n from items where project_id = ${bench.id}::uuid and is_head and deleted_at is null`,
    ),
    projects: await count(db, sql<{ n: string }>`select count(*) as n from projects`),
  };
  const { rows: size } = await sql<{ table: string; search_index: string }>`
    select pg_size_pretty(pg_total_relation_size('items')) as table,
           pg_size_pretty(pg_relation_size('items_project_search')) as search_index`.execute(db);
  const all = [...shapes(v.words), ...stressShapes(v.words)];
  const prepared: Prepared[] = [];
  for (const shape of all) prepared.push(await prepare(db, bench.id, shape));
  const hasBrief = findOperation('svc_brief') !== undefined;
  if (!hasBrief) log('  svc_brief is not in the catalog: skipped');
  const loadBefore = (loadavg()[0] ?? 0).toFixed(2);
  log(`  timing svc_item_search (${prepared.length} shapes)${hasBrief ? ' and svc_brief' : ''} in ${budgets.rounds} interleaved rounds`);
  const timed = await timeRounds(
    [...prepared.map((shape) => searchCall(service, bench.id, shape)), ...(hasBrief ? [briefCall(service, bench.id)] : [])],
    { iterations: budgets.service.iterations, warmup: budgets.service.warmup, rounds: budgets.rounds },
  );
  const loadAfter = (loadavg()[0] ?? 0).toFixed(2);
  const results: ShapeResult[] = [];
  for (const [i, shape] of prepared.entries()) {
    const service_ = timed[i] as Stats;
    const base = await baselines(service, db, bench.id, shape, budgets);
    const { plan: _plan, ...rest } = shape;
    const result: ShapeResult = { ...rest, service: service_, ...base };
    log(
      `  ${shape.name}: ${result.matches} matches; svc p50 ${result.service.p50.toFixed(2)} p95 ${result.service.p95.toFixed(2)} ms; ` +
        `bare p50 ${result.bare.p50.toFixed(2)}; ranked p50 ${result.ranked.p50.toFixed(1)}; ` +
        `top 20 kept ${Math.round(result.overlap * 100)}%, rank kept ${Math.round(result.rankKept * 100)}%`,
    );
    results.push(result);
  }
  const brief = hasBrief ? timed[prepared.length] : undefined;
  if (brief) log(`  svc_brief p50 ${brief.p50.toFixed(2)} p95 ${brief.p95.toFixed(2)} ms`);
  // The issue's size on PostgreSQL only: the reference costs about 3 s a query at 100k, 7 minutes a run.
  const typedCount = typedToo ? Number(args['typed-queries']) : 0;
  const typedRounds = Number(args['typed-rounds']);
  let typed: RunResult['typed'];
  if (typedCount > 0) {
    log(`  timing queries as typed: ${typedCount} per family, each ${typedRounds} times`);
    typed = { results: await measureTyped(service, db, bench.id, v.words, { count: typedCount, rounds: typedRounds, seed: SEED + 1 }), rounds: typedRounds };
    for (const t of typed.results) {
      log(`  typed, ${t.family}: p50 ${t.service.p50.toFixed(2)} p95 ${t.service.p95.toFixed(2)} max ${t.slowest.ms.toFixed(1)} ms (${t.slowest.query}); rank kept ${Math.round(t.rankKept * 100)}%`);
    }
  }
  const audit = args['skip-audit'] ? undefined : await measureAudit(service, db, bench, budgets.audit, log);
  for (const shape of audit?.impact ?? []) {
    log(`  svc_impact ${shape.name}: reached ${shape.reached.median} (median) / ${shape.reached.max} (max); p50 ${shape.stats.p50.toFixed(2)} p95 ${shape.stats.p95.toFixed(2)} ms`);
  }
  if (audit) {
    log(`  svc_check (every rule): p50 ${audit.check.p50.toFixed(1)} p95 ${audit.check.p95.toFixed(1)} ms`);
    log(`  each rule alone (p50 ms): ${audit.rules.map((x) => `${x.rule} ${x.stats.p50.toFixed(1)}`).join(', ')}`);
  }
  const run: RunResult = {
    backend: store.backend,
    title,
    rows,
    seedSeconds,
    sizes: size[0] ? { table: size[0].table, searchIndex: size[0].search_index } : undefined,
    shapes: results,
    typed,
    brief,
    audit,
    load: `${loadBefore} / ${loadAfter}`,
    targeted: store.backend === 'postgres',
  };
  log(summary(run));
  return run;
}

const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${Math.round(n / 1000)}k`);

/** HTTP load, set by the PostgreSQL run: the real server against the database just measured. */
let load: LoadResult | undefined;

async function measureLoad(store: Store, bench: ProjectRef, v: Vocabulary): Promise<LoadResult> {
  log('HTTP load: svc serve http and a bare hono route, one after the other, each driven by autocannon');
  const result = await httpLoad({
    databaseUrl: new URL(`/${DATABASE}`, args.server).toString(),
    project: bench.id,
    itemIds: await loadItems(store.db, bench.id),
    searchQueries: shapes(v.words).map((s) => s.query),
    rounds: 2,
    log,
  });
  for (const r of result.routes) log(`  ${r.server} ${r.route}: ${Math.round(r.requestsPerSecond)} req/s, p99 ${r.p99.toFixed(1)} ms`);
  return result;
}

async function postgres(v: Vocabulary, machine: Machine): Promise<RunResult[]> {
  const server = new URL(args.server);
  if (!args.reuse) await recreateDatabase(server, DATABASE);
  const store = await openStore({ databaseUrl: new URL(`/${DATABASE}`, server).toString(), statementTimeoutMs: 600_000 });
  const runs: RunResult[] = [];
  try {
    await migrate(store.db);
    const { rows: info } = await sql<{ version: string; settings: string }>`
      select current_setting('server_version') as version,
             format('shared_buffers %s, work_mem %s, jit %s, max_parallel_workers_per_gather %s',
                    current_setting('shared_buffers'), current_setting('work_mem'), current_setting('jit'),
                    current_setting('max_parallel_workers_per_gather')) as settings`.execute(store.db);
    machine.postgres = info[0]?.version;
    machine.postgresSettings = info[0]?.settings;
    const service = createService(store);
    if (args.reuse) {
      const { rows } = await sql<{ id: string; slug: string }>`select id, slug from projects where slug = 'bench'`.execute(store.db);
      if (!rows[0]) throw new Error('--reuse: svc_bench holds no bench project');
      runs.push(await measure(store, service, v, rows[0], `PostgreSQL — ${DATABASE} as left by an earlier run`, 0, true));
      if (!args['skip-load']) load = await measureLoad(store, rows[0], v);
      return runs;
    }
    log(`PostgreSQL: seeding ${k(ITEMS)} items in the measured project and ${k(ITEMS)} in ${OTHER_PROJECTS} others`);
    const seeded = await seedFirst(service, store.db, v);
    log(`  seeded in ${seeded.seconds.toFixed(0)} s; measuring`);
    runs.push(await measure(store, service, v, seeded.bench, `PostgreSQL — ${k(ITEMS)} items in the project, ${k(2 * ITEMS)} in all`, seeded.seconds, true));
    if (!args['skip-load']) load = await measureLoad(store, seeded.bench, v);
    if (!args['skip-1m']) {
      log(`PostgreSQL: growing the other projects to ${k(10 * ITEMS)} items in all`);
      const seconds = await seedMore(store.db, v, seeded);
      log(`  seeded in ${seconds.toFixed(0)} s; measuring`);
      runs.push(await measure(store, service, v, seeded.bench, `PostgreSQL — ${k(ITEMS)} items in the project, ${k(10 * ITEMS)} in all`, seconds));
    }
  } finally {
    await store.close();
  }
  return runs;
}

async function pglite(v: Vocabulary, machine: Machine): Promise<RunResult[]> {
  const store = await openStore({ dataDir: 'memory://' });
  try {
    await migrate(store.db);
    const { rows } = await sql<{ version: string }>`select current_setting('server_version') as version`.execute(store.db);
    machine.pglite = `PostgreSQL ${rows[0]?.version} in WebAssembly`;
    const service = createService(store);
    log(`PGlite: seeding ${k(ITEMS)} items in the measured project and ${k(ITEMS)} in ${OTHER_PROJECTS} others`);
    const seeded = await seedFirst(service, store.db, v);
    log(`  seeded in ${seeded.seconds.toFixed(0)} s; measuring`);
    return [await measure(store, service, v, seeded.bench, `PGlite — ${k(ITEMS)} items in the project, ${k(2 * ITEMS)} in all`, seeded.seconds)];
  } finally {
    await store.close();
  }
}

const NOTES = `- Corpus: a deterministic vocabulary of ${VOCABULARY.toLocaleString('en')} content words (the first 162 real words of
  the trade, the rest invented) drawn with Zipf frequencies (word k with probability ∝ 1/k), about one word
  in three an English stop word; titles of 4–9 words, bodies of 25–110. The most frequent word occurs in
  nearly every item. Generated with a seeded PRNG (bench/corpus.ts), so every run and backend sees the same text.
- Rows: the measured project and ${OTHER_PROJECTS} other projects, their items interleaved in time, inserted with SQL
  in batches (bench/seed.ts): about 3% of items have a superseded first version, 1% are soft-deleted, 2% are
  research (some expired); 200 work units with 3–10 tasks each in the measured project (20 in each other one).
  The measured project's glossary has two groups (bench/shapes.ts), which the glossary-expanded shapes turn into
  ORs of frequent words and a phrase. \`vacuum analyze\` after seeding. The 1M run grows the other projects in
  the same database; the measured project is unchanged. The 1M run is on PostgreSQL only.
- Timing: \`process.hrtime.bigint()\` around each call, one call at a time, after a warm-up; percentiles by
  nearest rank. *svc* is \`service.call('svc_item_search', {project_id, query, limit: 20})\` through the real
  operation runner (project resolution, glossary look-up, search with snippets), and svc_brief likewise:
  200 calls per shape, in ${budgets.rounds} rounds that each go through every shape, so a burst of other work on the
  machine lands on all shapes alike. *bare GIN* is the lower bound the issue names: \`select id … where project_id = $1 and
  is_head and deleted_at is null and search @@ q limit 21\` (no ranking, any 21 matches, whatever plan the
  planner picks — for the negations it picks the GIN index and pays for every item holding the words).
  *plain ranked* ranks every match (\`order by ts_rank … limit 21\`), fewer iterations (n given).
- Agreement with an exhaustive BM25F reference computed by the bench from the items alone (bench/measure.ts
  \`bm25Reference\`: N, avgdl and df counted over the project's current items, every match scored; no postings or
  statistics tables; research past the time to live counted in the statistics but, as the service hides it, no
  match): *exact top 20 kept* is how many of the reference's top 20 svc also returns (items tied at
  the page's edge may differ); *rank kept* is the reference score of svc's top 20 over that of the reference's top
  20 (100% = as relevant). svc answers the exact top by BM25F (docs/decisions/0026, 0038), so both should read 100%.
- *Queries as typed* (bench/typed.ts): the shapes above are one query each, over the most frequent words; people
  and assistants type three or four words of mixed frequency, ORs, a word they also exclude. Each family is
  \`--typed-queries\` queries (default 15) drawn from the vocabulary's ranks by a seeded PRNG, each called
  \`--typed-rounds\` times (default 3) through the service after a warm-up call; p50, p95 and max over every call of
  the family, and the least rank kept over its queries. PostgreSQL at 100k only (the reference takes minutes).
- Shapes marked *stress* go beyond the issue's list: phrases and exclusions over the most frequent words that
  leave few true matches, the worst case for both the recency window and the index; and an attacker's shapes
  (2026-11-28): \`item_types\` filters to research (2% of the items, most of it past its time to live, which the
  service hides) and to research and tasks (3% at 100k), where the reference scores with the project's statistics and
  keeps the types' unexpired matches, and *matches*, bare GIN and plain ranked leave expired research out as well; two
  words with 28 frequent ones excluded; and an OR of eight frequent words.
- Audit (bench/audit.ts): ${EDGES.toLocaleString('en')} distinct links among the measured project's chains (deleted ones
  included), depends 50%, blocks 25%, supersedes 20%, conflicts 5%; 80% of the links start at a uniformly
  drawn item and 20% at a few busy ones, 60% end at a uniform item and 40% at a few much-depended-on ones, so
  some blast radii are large. QA checks on 70% of the done tasks (60% passed, 10% failed, the rest pending;
  30% also target a decision), with the history of their passing and of later edits to a fifth of their
  targets. *svc_impact* is \`service.call('svc_impact', {project_id, item_id, depth: 5})\`, each call from the
  next start item in turn: 200 sampled current items that have outgoing links (the issue's shape: a typical item
  of a project with 100k links), and, as a *stress* shape reported beside the target, the 20 items with most
  outgoing links (the top 0.02%, whose blast radius at depth 5 runs to thousands of items); "items reached" is the
  total the answer counts (it lists at most 200). *svc_check* is
  \`service.call('svc_check', {project_id})\` with every rule enabled (${budgets.audit.checkIterations} calls), then each rule alone.
- Targets (PostgreSQL): svc_item_search p95 for every shape ≤ ${SEARCH_TARGETS.map((t) => `${t.p95} ms at ${t.size}`).join(', ')}
  (issue 18; each run is judged by its size, bench/report.ts), svc_brief p95 ≤
  ${TARGETS.brief} ms, svc_impact at depth 5 p95 ≤ ${AUDIT_TARGETS.impact} ms, svc_check with every rule p95 ≤ ${AUDIT_TARGETS.check} ms. PGlite has no target; its figures are for comparison. The machine is shared: the load
  average below says how busy it was, and other work on it lengthens the tails (p95, p99) first.`;

async function main(): Promise<void> {
  const v = vocabulary(VOCABULARY, SEED);
  const machine: Machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    nproc: availableParallelism(),
    memoryGiB: totalmem() / 2 ** 30,
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
  };
  const started = Date.now();
  const loadAtStart = (loadavg()[0] ?? 0).toFixed(2);
  const runs: RunResult[] = [];
  if (only.has('postgres')) runs.push(...(await postgres(v, machine)));
  if (only.has('pglite')) runs.push(...(await pglite(v, machine)));
  let writes: WriteResult | undefined;
  if (only.has('writes')) {
    writes = await measureWrites(new URL(args.server), v, { base: Number(args['write-base']), calls: Number(args['write-calls']), rounds: 8, log, also: args['write-also'] ?? [] });
    log(writesTable(writes));
  }
  const relevance: RelevanceResult[] = [];
  if (only.has('relevance')) {
    for (const n of args['relevance-items'].split(',').map(Number)) relevance.push(await measureRelevance(new URL(args.server), v, n, log, `${DATABASE}_relevance`));
    log(relevanceTable(relevance));
  }
  let peer: PeerResult | undefined;
  if (only.has('peer')) {
    peer = await measurePeer(new URL(args.server), v, args['peer-records'].split(',').map(Number), {
      database: `${DATABASE}_peer`,
      peerDir: args['peer-dir'],
      iterations: 100,
      log,
      load: () => (loadavg()[0] ?? 0).toFixed(2),
    });
    log(peerTable(peer));
  }
  let web: WebResult | undefined;
  if (only.has('web')) {
    web = await measureWeb(new URL(args.server), v, {
      database: `${DATABASE}_web`,
      items: Number(args['web-items'] ?? ITEMS),
      iterations: Number(args['web-iterations']),
      log,
    });
    log(webTable(web));
  }
  machine.load = `${loadAtStart} / ${(loadavg()[0] ?? 0).toFixed(2)} on ${machine.nproc} CPUs`;
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; load average ${machine.load}`);
  for (const run of runs) log(summary(run));
  if (!args['no-write']) {
    const command = ['pnpm bench', ...process.argv.slice(2)].join(' ');
    const sections = [...(load ? [loadTable(load)] : []), ...(writes ? [writesTable(writes)] : []), ...(relevance.length > 0 ? [relevanceTable(relevance)] : []),
      ...(peer ? [peerTable(peer)] : []), ...(web ? [webTable(web)] : []),
    ];
    writeFileSync(DOC, document(machine, command, new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC', runs, NOTES, sections));
    log(`wrote ${DOC.pathname}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
