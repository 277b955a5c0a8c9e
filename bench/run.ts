/**
 * `pnpm bench`: seed a project with realistic text and time svc_item_search and svc_brief on PostgreSQL and
 * PGlite, next to the bare SQL lower bound and the plain ranked query; writes docs/benchmarks.md.
 *
 *   pnpm bench [--only postgres|pglite] [--server URL] [--items N] [--skip-1m] [--no-write] [--reuse] [--tune]
 *
 * PostgreSQL: --server (default postgres://postgres@127.0.0.1:5432) names the server; the bench drops and
 * recreates its own database `svc_bench` there and touches no other.
 */
import { writeFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { createService, findOperation, type Service } from '@svc/service';
import { CANDIDATES, type Database, type Kysely, migrate, openStore, type Store } from '@svc/store';
import { type RawBuilder, sql } from 'kysely';
import { rng, SEED, VOCABULARY, type Vocabulary, vocabulary } from './corpus.js';
import { type Budget, measureBrief, measureSearch, type ShapeResult } from './measure.js';
import { document, type Machine, type RunResult, summary, TARGETS } from './report.js';
import { glossary, shapes, stressShapes } from './shapes.js';
import { createProjects, DAY, type ProjectRef, SPAN, seedGlossary, seedItems, seedWorkUnits } from './seed.js';

const OTHER_PROJECTS = 9;
const DATABASE = 'svc_bench';
const DOC = new URL('../docs/benchmarks.md', import.meta.url);

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    server: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    items: { type: 'string', default: '100000' },
    'skip-1m': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    // Tuning aid: measure the svc_bench database a previous run left behind, without seeding (PostgreSQL).
    reuse: { type: 'boolean', default: false },
    // Tuning aid: time the baselines (bare, plain ranked) only a few times.
    tune: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(args.items);
const only = new Set(args.only ?? ['postgres', 'pglite']);

const budgets: { service: Budget; bare: Budget; ranked: Budget } = {
  service: { iterations: 200, warmup: 20, maxMs: 15_000, min: 50 },
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

async function count(db: Kysely<Database>, query: RawBuilder<{ n: string }>): Promise<number> {
  const { rows } = await query.execute(db);
  return Number(rows[0]?.n ?? 0);
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
  await seedItems(
    db,
    v,
    r,
    [{ project: bench, items: ITEMS - tasks }, ...others.map((project) => ({ project, items: perOther }))],
    { from: now - SPAN, to: now - DAY },
    progress,
  );
  await vacuum(db);
  return { bench, others, seconds: (Date.now() - t0) / 1000 };
}

/** Grow the other projects until the table holds 10 × ITEMS current items in all. */
async function seedMore(db: Kysely<Database>, v: Vocabulary, seeded: Seeded): Promise<number> {
  const t0 = Date.now();
  const r = rng(SEED + 1);
  const now = Date.now();
  const per = Math.floor((8 * ITEMS) / seeded.others.length);
  await seedItems(db, v, r, seeded.others.map((project) => ({ project, items: per })), { from: now - SPAN, to: now - DAY }, progress);
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
  const results: ShapeResult[] = [];
  for (const shape of [...shapes(v.words), ...stressShapes(v.words)]) {
    log(`  ${shape.name}: ${shape.query}`);
    const result = await measureSearch(service, db, bench.id, shape, budgets);
    log(
      `    ${result.matches} matches; svc p50 ${result.service.p50.toFixed(2)} p95 ${result.service.p95.toFixed(2)} ms; ` +
        `bare p50 ${result.bare.p50.toFixed(2)}; ranked p50 ${result.ranked.p50.toFixed(1)}; ` +
        `top 20 kept ${Math.round(result.overlap * 100)}%, rank kept ${Math.round(result.rankKept * 100)}%`,
    );
    results.push(result);
  }
  let brief: RunResult['brief'];
  if (findOperation('svc_brief')) {
    brief = await measureBrief(service, bench.id, budgets.service);
    log(`  svc_brief p50 ${brief.p50.toFixed(2)} p95 ${brief.p95.toFixed(2)} ms`);
  } else {
    log('  svc_brief is not in the catalog: skipped');
  }
  const run: RunResult = {
    backend: store.backend,
    title,
    rows,
    seedSeconds,
    sizes: size[0] ? { table: size[0].table, searchIndex: size[0].search_index } : undefined,
    shapes: results,
    brief,
    targeted: store.backend === 'postgres',
  };
  log(summary(run));
  return run;
}

const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${Math.round(n / 1000)}k`);

async function postgres(v: Vocabulary, machine: Machine): Promise<RunResult[]> {
  const server = new URL(args.server);
  if (!args.reuse) {
    const admin = await openStore({ databaseUrl: new URL('/postgres', server).toString(), poolSize: 1 });
    try {
      await sql.raw(`drop database if exists ${DATABASE} with (force)`).execute(admin.db);
      await sql.raw(`create database ${DATABASE}`).execute(admin.db);
    } finally {
      await admin.close();
    }
  }
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
      runs.push(await measure(store, service, v, rows[0], 'PostgreSQL — svc_bench as left by an earlier run', 0));
      return runs;
    }
    log(`PostgreSQL: seeding ${k(ITEMS)} items in the measured project and ${k(ITEMS)} in ${OTHER_PROJECTS} others`);
    const seeded = await seedFirst(service, store.db, v);
    log(`  seeded in ${seeded.seconds.toFixed(0)} s; measuring`);
    runs.push(await measure(store, service, v, seeded.bench, `PostgreSQL — ${k(ITEMS)} items in the project, ${k(2 * ITEMS)} in all`, seeded.seconds));
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
- Timing: \`process.hrtime.bigint()\` around each call, sequentially, after a warm-up; percentiles by nearest
  rank. *svc* is \`service.call('svc_item_search', {project_id, query, limit: 20})\` through the real
  operation runner (project resolution, glossary look-up, search with snippets), up to 200 iterations;
  svc_brief likewise. *bare GIN* is the lower bound the issue names: \`select id … where project_id = $1 and
  is_head and deleted_at is null and search @@ q limit 21\` (no ranking, any 21 matches, whatever plan the
  planner picks — for the negations it picks the GIN index and pays for every item holding the words).
  *plain ranked* ranks every match (\`order by ts_rank … limit 21\`), fewer iterations (n given).
- Quality of the bounded candidate set (svc ranks at most ${CANDIDATES} candidates, the matches among the most recent
  items first; docs/decisions/0005-search-candidates.md): *exact top 20 kept* is how many of the plain ranked
  query's top 20 svc also returns; *rank kept* is the sum of svc's top-20 ts_rank over that of the exact top 20
  (100% = as relevant by ts_rank's own measure).
- Shapes marked *stress* go beyond the issue's list: phrases and exclusions over the most frequent words that
  leave few true matches, the worst case for both the recency window and the index.
- Targets (PostgreSQL, both scales): svc_item_search p95 ≤ ${TARGETS.search} ms for every shape, svc_brief p95 ≤
  ${TARGETS.brief} ms. PGlite has no target; its figures are for comparison. The machine is shared: the load
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
  machine.load = `${loadAtStart} / ${(loadavg()[0] ?? 0).toFixed(2)} on ${machine.nproc} CPUs`;
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; load average ${machine.load}`);
  for (const run of runs) log(summary(run));
  if (!args['no-write']) {
    const command = ['pnpm bench', ...process.argv.slice(2)].join(' ');
    writeFileSync(DOC, document(machine, command, new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC', runs, NOTES));
    log(`wrote ${DOC.pathname}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
