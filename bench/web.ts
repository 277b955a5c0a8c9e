/**
 * `pnpm bench:web`: server time of the web view's pages (issue 21) on PostgreSQL. Seeds a project of --items
 * items (default 100,000) straight to SQL like `pnpm bench`, plus a 200-item dependency tree through the
 * service, then times the project home, search pages (the bench's query shapes) and the impact page of the
 * tree's root (200 nodes, dagre layout and SVG included) through the HTTP app in process, as `app.request`:
 * routing, the operations, rendering; no socket. Prints the figures and writes docs/benchmarks-web.md.
 *
 *   pnpm bench:web [--server URL] [--database NAME] [--items N] [--iterations N] [--no-write]
 *
 * The bench drops and recreates its own database (default `svc_bench_web`) on the server and touches no other.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createHttpApp } from '@svc/http';
import { createService, type InputOf, ops, type Service } from '@svc/service';
import { migrate, openStore } from '@svc/store';
import { sql } from 'kysely';
import { rng, SEED, VOCABULARY, vocabulary } from './corpus.js';
import { type Stats, time } from './measure.js';
import { createProjects, DAY, SPAN, seedItems, seedWorkUnits } from './seed.js';
import { shapes } from './shapes.js';

const TARGETS = { home: 50, search: 50, impact: 300 };
const DOC = new URL('../docs/benchmarks-web.md', import.meta.url);

const { values: args } = parseArgs({
  options: {
    server: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    database: { type: 'string', default: 'svc_bench_web' },
    items: { type: 'string', default: '100000' },
    iterations: { type: 'string', default: '200' },
    'no-write': { type: 'boolean', default: false },
  },
});
const ITEMS = Number(args.items);
const ITERATIONS = Number(args.iterations);
if (!/^[a-z_][a-z0-9_]*$/.test(args.database)) throw new Error(`--database: '${args.database}' is not a plain database name`);

const log = (message: string) => process.stderr.write(`${message}\n`);

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

async function main(): Promise<void> {
  const admin = await openStore({ databaseUrl: new URL('/postgres', args.server).toString(), poolSize: 1 });
  try {
    await sql.raw(`drop database if exists ${args.database} with (force)`).execute(admin.db);
    await sql.raw(`create database ${args.database}`).execute(admin.db);
  } finally {
    await admin.close();
  }
  const store = await openStore({ databaseUrl: new URL(`/${args.database}`, args.server).toString(), statementTimeoutMs: 600_000 });
  const service = createService(store);
  try {
    await migrate(store.db);
    const v = vocabulary(VOCABULARY, SEED);
    const r = rng(SEED);
    const now = Date.now();
    const t0 = Date.now();
    const [bench] = await createProjects(service, ['bench']);
    if (!bench) throw new Error('no project');
    const tasks = await seedWorkUnits(store.db, v, r, bench, 200, now);
    await seedItems(store.db, v, r, [{ project: bench, items: ITEMS - tasks }], { from: now - SPAN, to: now - DAY }, (done, total) => {
      if (done === total || done % 20_000 < 2_000) log(`  seeded ${done.toLocaleString('en')} / ${total.toLocaleString('en')} items`);
    });
    const actor = (await service.call(ops.actor_add, { email: 'bench-web@example.test' }, { source: 'cli' }));
    const root = await seedTree(service, actor.id, bench.slug);
    await sql`vacuum analyze`.execute(store.db);
    log(`  seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

    const app = createHttpApp(service);
    const page = (path: string) => async () => {
      const response = await app.request(path);
      const body = await response.text();
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 300)}`);
      return body;
    };
    const budget = { iterations: ITERATIONS, warmup: 10, maxMs: 120_000, min: 20 };
    const impactPath = `/p/bench/impact/${root}?depth=2&direction=incoming`;
    const nodes = ((await page(impactPath)()).match(/class="node/g) ?? []).length;
    const rows: { name: string; path: string; stats: Stats; target: number }[] = [];
    const measure = async (name: string, path: string, target: number) => {
      const stats = await time(page(path), budget);
      log(`  ${name}: p50 ${stats.p50.toFixed(1)} p95 ${stats.p95.toFixed(1)} ms`);
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
    const table = [
      '| page | p50 ms | p95 ms | target p95 ms | met |',
      '|---|---:|---:|---:|---|',
      ...rows.map((row) => `| ${row.name} | ${row.stats.p50.toFixed(1)} | ${row.stats.p95.toFixed(1)} | ${row.target} | ${row.stats.p95 <= row.target ? 'yes' : 'no'} |`),
    ].join('\n');
    const doc = `# Web view page timings

Generated by \`pnpm bench:web\` (bench/web.ts) on ${new Date().toISOString().slice(0, 10)}: PostgreSQL, one project of
${heads.toLocaleString('en')} current items (the bench's corpus), ${ITERATIONS} sequential requests per page after 10 warm-up
ones, through the HTTP app in process (\`app.request\`: routing, the operations, JSX rendering, dagre layout; no
socket). Load average ${loadBefore} before, ${loadAfter} after, on a machine shared with other work.

${table}
`;
    process.stdout.write(`${table}\n`);
    if (!args['no-write']) writeFileSync(DOC, doc);
  } finally {
    await store.close();
  }
}

await main();
