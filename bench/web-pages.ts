/**
 * Server time of the web view's pages (issue 21), a part of `pnpm bench` (bench/run.ts, `--only web`) and the
 * whole of `pnpm bench:web` (bench/web.ts). Seeds its own PostgreSQL database with a project of `items` items
 * straight to SQL like the rest of the bench, plus a 200-item dependency tree through the service, then times
 * the project home, the search pages (the bench's query shapes) and the impact page of the tree's root (200
 * nodes, dagre layout and SVG included) through the HTTP app in process, as `app.request`: routing, the
 * operations, rendering; no socket. The database (dropped and recreated) is the only one it touches.
 */
import { loadavg } from 'node:os';
import { createHttpApp } from '@svc/http';
import { createService, type InputOf, ops, type Service } from '@svc/service';
import { migrate, openStore } from '@svc/store';
import { sql } from 'kysely';
import { rng, SEED, type Vocabulary } from './corpus.js';
import { type Stats, time } from './measure.js';
import { createProjects, DAY, recreateDatabase, SPAN, seedThenIndex, seedWorkUnits } from './seed.js';
import { shapes } from './shapes.js';

/** The targets, p95 server time in ms: a project home, a search page, the impact page of 200 nodes. */
const TARGETS = { home: 50, search: 50, impact: 300 };

export interface WebResult {
  items: number;
  iterations: number;
  rows: { name: string; path: string; stats: Stats; target: number }[];
  load: string;
}

/** A root with 10 dependants, each with 19 of its own: 200 items reach the root within depth 2. */
async function seedTree(service: Service, actorId: string, project: string): Promise<string> {
  const call = (input: InputOf<typeof ops.svc_item_upsert>) => service.call(ops.svc_item_upsert, input, { source: 'test', actorId });
  const root = await call({ project_id: project, title: 'Impact root: the billing database' });
  for (let i = 0; i < 10; i++) {
    const mid = await call({ project_id: project, title: `Service ${i} uses the billing database`, links: [{ type: 'depends', target_id: root.id }] });
    for (let j = 0; j < 19; j++) {
      await call({ project_id: project, title: `Feature ${i}.${j} of service ${i}`, links: [{ type: 'depends', target_id: mid.id }] });
    }
  }
  return root.id;
}

export async function measureWeb(
  server: URL,
  v: Vocabulary,
  options: { database: string; items: number; iterations: number; log: (message: string) => void },
): Promise<WebResult> {
  const { database, items, iterations, log } = options;
  await recreateDatabase(server, database);
  const store = await openStore({ databaseUrl: new URL(`/${database}`, server).toString(), statementTimeoutMs: 600_000 });
  const service = createService(store);
  try {
    await migrate(store.db);
    const r = rng(SEED);
    const now = Date.now();
    const t0 = Date.now();
    log(`web pages: seeding ${items.toLocaleString('en')} items and a 200-item dependency tree`);
    const [bench] = await createProjects(service, ['bench']);
    if (!bench) throw new Error('no project');
    const tasks = await seedWorkUnits(store.db, v, r, bench, Math.min(200, Math.max(1, Math.floor(items / 500))), now);
    await seedThenIndex(store.db, v, r, [{ project: bench, items: Math.max(0, items - tasks) }], { from: now - SPAN, to: now - DAY }, (done, total) => {
      if (done === total || done % 20_000 < 2_000) log(`  seeded ${done.toLocaleString('en')} / ${total.toLocaleString('en')} items`);
    });
    const actor = await service.call(ops.actor_add, { email: 'bench-web@example.test' }, { source: 'cli' });
    const root = await seedTree(service, actor.id, bench.slug);
    await sql`vacuum analyze`.execute(store.db);
    log(`  seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s; timing the pages`);

    const app = createHttpApp(service);
    const page = (path: string) => async () => {
      const response = await app.request(path);
      const body = await response.text();
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 300)}`);
      return body;
    };
    const budget = { iterations, warmup: 10, maxMs: 120_000, min: Math.min(20, iterations) };
    const impactPath = `/p/bench/impact/${root}?depth=2&direction=incoming`;
    const nodes = ((await page(impactPath)()).match(/class="node/g) ?? []).length;
    const rows: WebResult['rows'] = [];
    const measure = async (name: string, path: string, target: number) => {
      const stats = await time(page(path), budget);
      log(`  ${name}: p50 ${stats.p50.toFixed(1)} p95 ${stats.p95.toFixed(1)} ms (target p95 ≤ ${target} ms)`);
      rows.push({ name, path, stats, target });
    };
    const loadBefore = (loadavg()[0] ?? 0).toFixed(2);
    await measure('project home', '/p/bench', TARGETS.home);
    for (const shape of shapes(v.words)) await measure(`search: ${shape.name}`, `/p/bench/search?q=${encodeURIComponent(shape.query)}`, TARGETS.search);
    await measure(`impact page, ${nodes} nodes`, impactPath, TARGETS.impact);
    const loadAfter = (loadavg()[0] ?? 0).toFixed(2);
    const heads = Number(
      (await sql<{ n: string }>`select count(*) as n from items where project_id = ${bench.id}::uuid and is_head`.execute(store.db)).rows[0]?.n ?? 0,
    );
    return { items: heads, iterations, rows, load: `${loadBefore} / ${loadAfter}` };
  } finally {
    await store.close();
  }
}

/** The page timings as a section of docs/benchmarks.md (and the body of docs/benchmarks-web.md). */
export function webTable(w: WebResult): string {
  return [
    '### Web view: server time of the pages (PostgreSQL)',
    '',
    `One project of ${w.items.toLocaleString('en')} current items (the bench's corpus) and a 200-item dependency tree, in a database of`,
    `its own; ${w.iterations} sequential requests per page after 10 warm-up ones, through the HTTP app in process (\`app.request\`:`,
    'routing, the operations, JSX rendering, the dagre layout of the impact graph; no socket) (bench/web-pages.ts).',
    `Load average ${w.load} (before / after). Targets (issue 21): project home and search p95 ≤ 50 ms, the impact page of`,
    '200 nodes p95 ≤ 300 ms.',
    '',
    '| page | p50 ms | p95 ms | target p95 ms | met |',
    '|---|---:|---:|---:|---|',
    ...w.rows.map((row) => `| ${row.name} | ${row.stats.p50.toFixed(1)} | ${row.stats.p95.toFixed(1)} | ${row.target} | ${row.stats.p95 <= row.target ? 'yes' : 'no'} |`),
  ].join('\n');
}
