/**
 * `pnpm bench:ab --before DIR`: this checkout's code beside another checkout's (DIR: a `git worktree` of the
 * revision to compare with, installed), in one run, on the same PostgreSQL server and the same schema. It is
 * how a refactoring shows "no regression beyond noise" (issue 20): each side gets its own database, migrated
 * by THIS checkout's migrations so only the code differs, seeded with the same `--items` of the bench corpus;
 * then both take the same calls through their own service (svc_item_upsert creating and editing,
 * svc_item_search over the bench's shapes, item_show, svc_brief), in interleaved rounds whose order flips each
 * round, so a burst of other work on the machine lands on both alike. Calls go by operation name, which both
 * revisions understand. Prints a table (and writes it to docs/benchmarks-ab.md with `--write`).
 *
 *   git worktree add --detach ../svc-before 1270946 && (cd ../svc-before && pnpm install --offline)
 *   pnpm bench:ab --before ../svc-before [--items 20000] [--rounds 6] [--calls 60] [--server URL] [--write]
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createService } from '@svc/service';
import { type Database, type Kysely, migrate, openStore } from '@svc/store';
import { sql } from 'kysely';
import { itemText, rng, SEED, VOCABULARY, vocabulary } from './corpus.js';
import { stats } from './measure.js';
import { createProjects, DAY, recreateDatabase, SPAN, seedThenIndex } from './seed.js';
import { shapes } from './shapes.js';

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    server: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    items: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '6' },
    calls: { type: 'string', default: '60' },
    write: { type: 'boolean', default: false },
  },
});
if (!args.before) throw new Error('--before: give the directory of an installed checkout of the revision to compare with');
const ITEMS = Number(args.items);
const ROUNDS = Number(args.rounds);
const CALLS = Number(args.calls);
const server = new URL(args.server);
const log = (m: string) => process.stderr.write(`${m}\n`);

/** What both revisions' packages offer, by name: the bench needs no more, and old revisions have no typed catalog. */
interface Surface {
  call(name: string, input: unknown, ctx: { source: 'cli' }): Promise<unknown>;
}
interface Side {
  name: string;
  root: string;
  db: Kysely<Database>;
  service: Surface;
  close: () => Promise<void>;
  project: string;
  created: string[];
  ms: Map<string, number[]>;
}

async function open(name: string, root: string, database: string): Promise<Side> {
  const url = await recreateDatabase(server, database);
  // This checkout's schema on both sides, so that what differs is the code.
  const schema = await openStore({ databaseUrl: url, statementTimeoutMs: 600_000 });
  await migrate(schema.db);
  const v = vocabulary(VOCABULARY, SEED);
  const [ref] = await createProjects(createService(schema), ['ab']);
  if (!ref) throw new Error('no project');
  const project = ref.id;
  const now = Date.now();
  await seedThenIndex(schema.db, v, rng(SEED + 7), [{ project: ref, items: ITEMS }], { from: now - SPAN, to: now - DAY });
  await sql`vacuum analyze`.execute(schema.db);
  await schema.close();
  const at = (pkg: string) => pathToFileURL(resolve(root, 'packages', pkg, 'src/index.ts')).href;
  const storeMod = (await import(at('store'))) as { openStore: (c: { databaseUrl: string }) => Promise<{ db: Kysely<Database>; close(): Promise<void> }> };
  const serviceMod = (await import(at('service'))) as { createService: (store: unknown) => Surface };
  const store = await storeMod.openStore({ databaseUrl: url });
  return { name, root, db: store.db, service: serviceMod.createService(store), close: () => store.close(), project, created: [], ms: new Map() };
}

async function timed(side: Side, op: string, fn: () => Promise<unknown>, counted: boolean): Promise<unknown> {
  const t0 = process.hrtime.bigint();
  const out = await fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (counted) side.ms.set(op, [...(side.ms.get(op) ?? []), ms]);
  return out;
}

/** One round's calls on one side: the same text and queries on both (the generator is seeded by the round). */
async function round(side: Side, n: number, counted: boolean, queries: string[]): Promise<void> {
  const v = vocabulary(VOCABULARY, SEED);
  const r = rng(SEED + 100 + n);
  const cli = { source: 'cli' } as const;
  const mine: string[] = [];
  for (let i = 0; i < CALLS; i++) {
    const { title, body } = itemText(v, r);
    const out = (await timed(side, 'svc_item_upsert (create)', () => side.service.call('svc_item_upsert', { project_id: side.project, title, body }, cli), counted)) as { id: string };
    mine.push(out.id);
  }
  for (const id of mine) {
    const { body } = itemText(v, r);
    await timed(side, 'svc_item_upsert (edit)', () => side.service.call('svc_item_upsert', { project_id: side.project, item_id: id, body }, cli), counted);
  }
  side.created.push(...mine);
  for (let i = 0; i < CALLS; i++) {
    const query = queries[i % queries.length] as string;
    await timed(side, 'svc_item_search', () => side.service.call('svc_item_search', { project_id: side.project, query, limit: 20 }, cli), counted);
  }
  for (let i = 0; i < CALLS; i++) {
    const id = side.created[Math.floor(r() * side.created.length)] as string;
    await timed(side, 'item_show', () => side.service.call('item_show', { item_id: id }, cli), counted);
  }
  for (let i = 0; i < Math.ceil(CALLS / 4); i++) {
    await timed(side, 'svc_brief', () => side.service.call('svc_brief', { project_id: side.project }, cli), counted);
  }
}

const fmt = (x: number) => x.toFixed(2);

async function main(): Promise<void> {
  const here = resolve(import.meta.dirname, '..');
  const before = resolve(args.before as string);
  const v = vocabulary(VOCABULARY, SEED);
  // The plain shapes; the glossary ones need groups this bench does not seed.
  const queries = shapes(v.words)
    .slice(0, 8)
    .map((s) => s.query);
  log(`ab: two databases of ${ITEMS.toLocaleString('en')} items; ${ROUNDS} rounds of ${CALLS} calls per operation`);
  const sides = [await open('before', before, 'svc_bench_ab_before'), await open('after', here, 'svc_bench_ab_after')];
  try {
    for (let n = 0; n <= ROUNDS; n++) {
      for (const side of n % 2 === 0 ? sides : [...sides].reverse()) await round(side, n, n > 0, queries);
      log(`  round ${n}${n === 0 ? ' (warm-up, not counted)' : ''} done`);
    }
  } finally {
    for (const side of sides) await side.close();
  }
  const [a, b] = sides as [Side, Side];
  const lines = [
    `# Before and after, side by side (\`pnpm bench:ab\`)`,
    '',
    `Generated ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end.`,
    `before: \`${a.root}\`; after: \`${b.root}\`. Both on PostgreSQL, the same schema (this checkout's migrations), ` +
      `${ITEMS.toLocaleString('en')} seeded items each; ${ROUNDS} interleaved rounds (order flipped each round) after a warm-up round.`,
    '',
    '| operation | calls | before p50 / p95 ms | after p50 / p95 ms | after ÷ before (p50) | after ÷ before (p95) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [op, samples] of a.ms) {
    const x = stats(samples);
    const y = stats(b.ms.get(op) ?? []);
    lines.push(`| ${op} | ${x.n} | ${fmt(x.p50)} / ${fmt(x.p95)} | ${fmt(y.p50)} / ${fmt(y.p95)} | ${(y.p50 / x.p50).toFixed(2)} | ${(y.p95 / x.p95).toFixed(2)} |`);
  }
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(text);
  if (args.write) writeFileSync(new URL('../docs/benchmarks-ab.md', import.meta.url), text);
}

await main();
