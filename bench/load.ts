/**
 * Loopback HTTP load (issue 8): autocannon on svc's GET /items/{id} and its search route, each beside a bare
 * hono route that runs one pg query, in the same run. The real `svc serve http` (apps/cli/dist, so run
 * `pnpm build` first) and the bare server (bench/bare-server.ts) each run in a child process of their own,
 * one at a time, while autocannon runs here.
 *
 * Standalone, against a database `pnpm bench` seeded (project `bench`):
 *
 *   node --conditions=@svc/source --import tsx bench/load.ts --database postgres://postgres@127.0.0.1:5432/svc_bench
 *     [--project bench] [--duration 10] [--warmup 3] [--connections 10] [--rounds 1] [--log-level warn]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { expandableTerms, parseQuery, planQuery } from '@svc/domain';
import { type Database, glossarySynonyms, openStore, resolveProject, searchItems } from '@svc/store';
import autocannon from 'autocannon';
import { type CompiledQuery, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import type { BareSpec } from './bare-server.js';
import { SEED, VOCABULARY, vocabulary } from './corpus.js';
import { shapes } from './shapes.js';

/** svc must reach this share of the bare route's req/s (issue 8). */
const LOAD_TARGET = 0.6;
/** svc's pg pool size (openStore's default, which `svc serve http` uses); the bare server gets the same. */
const POOL_SIZE = 10;
/** Results per search, as an assistant would ask. */
const SEARCH_LIMIT = 20;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SVC_MAIN = join(ROOT, 'apps/cli/dist/main.js');
const BARE_SERVER = fileURLToPath(new URL('./bare-server.ts', import.meta.url));

export interface LoadOptions {
  /** PostgreSQL database holding the project (e.g. svc_bench after `pnpm bench`). */
  databaseUrl: string;
  /** The project searched: slug, id or id prefix. */
  project: string;
  /** Items fetched by GET /items/{id}, in rotation (one cached row would flatter both servers). */
  itemIds: string[];
  /** Search texts in svc's dialect, in rotation. */
  searchQueries: string[];
  /** Measured seconds per route and round (default 10). */
  durationSeconds?: number;
  /** Unmeasured seconds before each measured run, same settings (default 3). */
  warmupSeconds?: number;
  /** Concurrent HTTP connections (default POOL_SIZE). */
  connections?: number;
  /** Requests in flight per connection (default 1). */
  pipelining?: number;
  /** Rounds, alternating which server goes first; each route reports its best round (default 1). */
  rounds?: number;
  /** SVC_LOG_LEVEL of the svc server (default 'warn': no per-request line). */
  logLevel?: string;
  log: (message: string) => void;
}

interface RouteLoad {
  server: 'bare' | 'svc';
  kind: 'item' | 'search';
  /** A bare route shown for reference only: svc's share is always of the kind's first bare route. */
  reference?: boolean | undefined;
  /** The route as documented, e.g. `GET /items/{id}`. */
  route: string;
  /** Mean requests per second of the best round. */
  requestsPerSecond: number;
  /** Latency percentiles of the best round, milliseconds. */
  p50: number;
  p99: number;
  /** Responses in the best round. */
  requests: number;
  /** Over every round (warm-ups included): connection errors and time-outs, and non-2xx responses. */
  errors: number;
  non2xx: number;
  /** Status of one request sent before the load, whose body was checked too; undefined when it failed. */
  preflight: { status: number | undefined; ok: boolean; note?: string | undefined };
}

export interface LoadResult {
  connections: number;
  pipelining: number;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  poolSize: number;
  logLevel: string;
  itemCount: number;
  searchQueries: string[];
  routes: RouteLoad[];
  /** 1-minute load average before / after. */
  load: string;
}

interface Target {
  server: 'bare' | 'svc';
  kind: 'item' | 'search';
  reference?: boolean;
  route: string;
  paths: string[];
  /** Whether a 200 body is the expected one (so a 200 for the wrong thing cannot pass unseen). */
  check: (body: unknown, index: number) => boolean;
}

interface Running {
  url: string;
  stop(): Promise<void>;
}

/**
 * The single statement svc's search runs last for each query, compiled by svc's own store code on a Kysely
 * that records instead of executing; the glossary look-up it depends on runs on the real database.
 */
async function searchStatements(databaseUrl: string, project: string, queries: string[]): Promise<{ projectId: string; statements: CompiledQuery[] }> {
  const store = await openStore({ databaseUrl, poolSize: 1 });
  let recorded: CompiledQuery | undefined;
  const recorder = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      recorded = event.query;
    },
  });
  try {
    const p = await resolveProject(store.db, project);
    const statements: CompiledQuery[] = [];
    for (const query of queries) {
      const ast = parseQuery(query);
      const plan = planQuery(ast, await glossarySynonyms(store.db, p.id, expandableTerms(ast)));
      if (!plan) throw new Error(`search query ${JSON.stringify(query)} plans to nothing`);
      recorded = undefined;
      // The recorder answers no rows, so the search ends after its analysis statement: having no lexemes, it refuses
      // the query as holding no word (decision 0045). The statement recorded is what counts.
      await searchItems(recorder, plan, { project_id: p.id, research_ttl_days: p.settings.research.ttl_days }, SEARCH_LIMIT).catch(() => undefined);
      if (!recorded) throw new Error('searchItems ran no statement');
      statements.push(recorded);
    }
    return { projectId: p.id, statements };
  } finally {
    await recorder.destroy();
    await store.close();
  }
}

/** Start a child server and wait for the line naming its URL; stderr is kept (tail) for the error message. */
async function start(name: string, args: string[], env: NodeJS.ProcessEnv, stream: 'stdout' | 'stderr'): Promise<Running> {
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  let buffered = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start within 60 s`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${tail.slice(-2000)}`));
    };
    child.on('exit', (code, signal) => fail(new Error(`${name} exited (${signal ?? code}) before listening`)));
    child.on('error', fail);
    child.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-8000);
    });
    child[stream]?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(buffered);
      if (match?.[1]) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        buffered = '';
        resolve(match[1]);
      }
    });
  });
  // Keep draining both pipes so a chatty server can never block on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Newest modification time of the files under `dir` whose name passes `keep` (0 when there are none). */
function newest(dir: string, keep: (name: string) => boolean): number {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && keep(entry.name)) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** Workspace packages whose sources changed after their last build: the server would run older code. */
function staleBuilds(): string[] {
  const stale: string[] = [];
  for (const group of ['apps', 'packages']) {
    for (const name of readdirSync(join(ROOT, group))) {
      const src = newest(join(ROOT, group, name, 'src'), (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
      if (src > newest(join(ROOT, group, name, 'dist'), (f) => f.endsWith('.js'))) stale.push(`${group}/${name}`);
    }
  }
  return stale;
}

function startSvc(databaseUrl: string, logLevel: string): Promise<Running> {
  if (!existsSync(SVC_MAIN)) throw new Error(`${SVC_MAIN} is missing: run \`pnpm build\` first`);
  // Reads need no actor; the rest of the environment passes through (PATH, NODE_OPTIONS…).
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_DATABASE_URL: databaseUrl, SVC_LOG_LEVEL: logLevel };
  return start('svc serve http', [SVC_MAIN, 'serve', 'http', '--host', '127.0.0.1', '--port', '0'], env, 'stderr');
}

function startBare(specFile: string): Promise<Running> {
  return start('bench/bare-server.ts', ['--import', 'tsx', BARE_SERVER, specFile], process.env, 'stdout');
}

/** One request before the load: the route answers 200 with the expected body. */
async function preflight(url: string, target: Target): Promise<RouteLoad['preflight']> {
  try {
    const response = await fetch(url + target.paths[0]);
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const ok = response.status === 200 && target.check(body, 0);
    return { status: response.status, ok, note: ok ? undefined : text.slice(0, 200) };
  } catch (error) {
    return { status: undefined, ok: false, note: (error as Error).message };
  }
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));

interface Run {
  result: autocannon.Result;
  /** Every response's latency, milliseconds (autocannon's own histogram keeps whole milliseconds only). */
  latencies: number[];
}

function cannon(url: string, paths: string[], o: { connections: number; pipelining: number; seconds: number }): Promise<Run> {
  let next = 0;
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: o.connections,
        pipelining: o.pipelining,
        duration: o.seconds,
        timeout: 10,
        requests: [
          {
            method: 'GET',
            // A shared counter: successive requests, whichever connection sends them, ask for different rows.
            setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] as string }),
          },
        ],
      },
      (error: unknown, result) => (error ? reject(error) : resolve({ result, latencies })),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

/** Nearest-rank percentile of sorted samples. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/**
 * Run the load: for each round, each server in turn (alternating which goes first) is started, every route of
 * it is warmed up and measured, and it is stopped before the other starts. Never throws for a route that
 * answers errors: they are counted and shown.
 */
export async function httpLoad(opts: LoadOptions): Promise<LoadResult> {
  const durationSeconds = opts.durationSeconds ?? 10;
  const warmupSeconds = opts.warmupSeconds ?? 3;
  const connections = opts.connections ?? POOL_SIZE;
  const pipelining = opts.pipelining ?? 1;
  const rounds = opts.rounds ?? 1;
  const logLevel = opts.logLevel ?? 'warn';
  if (opts.itemIds.length === 0 || opts.searchQueries.length === 0) throw new Error('httpLoad needs item ids and search queries');
  const loadBefore = (loadavg()[0] ?? 0).toFixed(2);

  const stale = staleBuilds();
  if (stale.length > 0) opts.log(`  warning: ${stale.join(', ')} changed since the last build; \`pnpm build\` to measure the current code`);
  const { projectId, statements } = await searchStatements(opts.databaseUrl, opts.project, opts.searchQueries);
  const dir = mkdtempSync(join(tmpdir(), 'svc-load-'));
  const specFile = join(dir, 'bare.json');
  const spec: BareSpec = {
    databaseUrl: opts.databaseUrl,
    poolSize: POOL_SIZE,
    searches: statements.map((s) => ({ sql: s.sql, parameters: s.parameters })),
  };
  writeFileSync(specFile, JSON.stringify(spec));

  const ids = opts.itemIds;
  const isObject = (b: unknown): b is Record<string, unknown> => typeof b === 'object' && b !== null;
  const hasItems = (b: unknown) => isObject(b) && Array.isArray(b.items);
  const targets: Target[] = [
    {
      server: 'bare',
      kind: 'item',
      route: 'GET /items/{id} (bare: one select by id)',
      paths: ids.map((id) => `/items/${id}`),
      check: (b, i) => isObject(b) && b.id === ids[i],
    },
    {
      server: 'bare',
      kind: 'item',
      reference: true,
      route: 'GET /items-prepared/{id} (bare: the same select, prepared by name; reference)',
      paths: ids.map((id) => `/items-prepared/${id}`),
      check: (b, i) => isObject(b) && b.id === ids[i],
    },
    {
      server: 'svc',
      kind: 'item',
      route: 'GET /items/{id} (svc item_show)',
      paths: ids.map((id) => `/items/${id}`),
      check: (b, i) => isObject(b) && isObject(b.item) && b.item.id === ids[i],
    },
    {
      server: 'bare',
      kind: 'search',
      route: "GET /search (bare: svc's search statement)",
      paths: statements.map((_, i) => `/search/${i}`),
      check: hasItems,
    },
    {
      server: 'svc',
      kind: 'search',
      route: 'GET /projects/{project_id}/items/search (svc_item_search)',
      paths: opts.searchQueries.map((q) => `/projects/${projectId}/items/search?query=${encodeURIComponent(q)}&limit=${SEARCH_LIMIT}`),
      check: hasItems,
    },
  ];

  const best = new Map<Target, Run>();
  const errors = new Map<Target, { errors: number; non2xx: number }>();
  const checked = new Map<Target, RouteLoad['preflight']>();
  const settings = { connections, pipelining };
  try {
    for (let round = 0; round < rounds; round++) {
      const order: ('bare' | 'svc')[] = round % 2 === 0 ? ['bare', 'svc'] : ['svc', 'bare'];
      for (const server of order) {
        const running = server === 'svc' ? await startSvc(opts.databaseUrl, logLevel) : await startBare(specFile);
        try {
          for (const target of targets.filter((t) => t.server === server)) {
            if (!checked.has(target)) checked.set(target, await preflight(running.url, target));
            const warm = await cannon(running.url, target.paths, { ...settings, seconds: warmupSeconds });
            const result = await cannon(running.url, target.paths, { ...settings, seconds: durationSeconds });
            const e = errors.get(target) ?? { errors: 0, non2xx: 0 };
            errors.set(target, {
              errors: e.errors + warm.result.errors + result.result.errors,
              non2xx: e.non2xx + warm.result.non2xx + result.result.non2xx,
            });
            const previous = best.get(target);
            if (!previous || result.result.requests.mean > previous.result.requests.mean) best.set(target, result);
            const sorted = [...result.latencies].sort((a, b) => a - b);
            opts.log(
              `  load round ${round + 1}/${rounds} ${target.route}: ${result.result.requests.mean.toFixed(0)} req/s, ` +
                `p50 ${ms(percentile(sorted, 50))} ms, p99 ${ms(percentile(sorted, 99))} ms, ` +
                `${result.result.errors} errors, ${result.result.non2xx} non-2xx`,
            );
          }
        } finally {
          await running.stop();
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const routes: RouteLoad[] = targets.map((t) => {
    const { result: r, latencies } = best.get(t) as Run;
    const sorted = latencies.sort((a, b) => a - b);
    const e = errors.get(t) ?? { errors: 0, non2xx: 0 };
    return {
      server: t.server,
      kind: t.kind,
      reference: t.reference,
      route: t.route,
      requestsPerSecond: r.requests.mean,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      requests: r.requests.total,
      errors: e.errors,
      non2xx: e.non2xx,
      preflight: checked.get(t) ?? { status: undefined, ok: false },
    };
  });
  return {
    connections,
    pipelining,
    durationSeconds,
    warmupSeconds,
    rounds,
    poolSize: POOL_SIZE,
    logLevel,
    itemCount: ids.length,
    searchQueries: opts.searchQueries,
    routes,
    load: `${loadBefore} / ${(loadavg()[0] ?? 0).toFixed(2)}`,
  };
}

/** The markdown section for docs/benchmarks.md: method, then one row per route. */
export function loadTable(result: LoadResult): string {
  const lines = [
    '### HTTP load (loopback)',
    '',
    `autocannon (in the bench process) against the real \`svc serve http\` from the built CLI (SVC_LOG_LEVEL=${result.logLevel}) and ` +
      `against a bare hono app whose routes run one pg query each (bench/bare-server.ts; its search runs the very statement ` +
      `svc's search ends with, compiled by svc's store code), each in its own process with a pg pool of ${result.poolSize}, ` +
      `one at a time. Every route: ${result.warmupSeconds} s warm-up, ${result.durationSeconds} s measured, ` +
      `${result.connections} connections, pipelining ${result.pipelining}, requests rotating over ` +
      `${result.itemCount.toLocaleString('en')} item ids or ${result.searchQueries.length} search queries` +
      (result.rounds > 1 ? `; best of ${result.rounds} rounds, alternating which server goes first` : '') +
      `. Errors are connection errors and time-outs / non-2xx answers over every run, warm-ups included. ` +
      `Load average (1 min) before / after: ${result.load}. ` +
      `svc answers GET /items/{id} with one statement (the head of the chain and its links as one JSON array), which it keeps ` +
      `prepared by name on each connection (SVC_PREPARED_STATEMENTS, docs/decisions/0009); the baseline runs its plain query ` +
      `unprepared, as pg does by default, and the reference row shows the bare route with its statement prepared too.`,
    '',
    '| route | req/s | p50 ms | p99 ms | errors / non-2xx | % of bare | target ≥ 60% |',
    '|---|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of result.routes) {
    const bare = result.routes.find((b) => b.server === 'bare' && b.kind === r.kind && !b.reference);
    const share = (r.server === 'svc' || r.reference) && bare && bare.requestsPerSecond > 0 ? r.requestsPerSecond / bare.requestsPerSecond : undefined;
    const failed = r.errors + r.non2xx > 0 || !r.preflight.ok;
    const errorCell = `${r.errors} / ${r.non2xx}${r.preflight.ok ? '' : ` (check request: ${r.preflight.status ?? 'no answer'})`}`;
    let verdict = 'baseline';
    if (r.reference) verdict = 'reference';
    else if (share !== undefined) verdict = share >= LOAD_TARGET ? 'met' : '**missed**';
    if (failed) verdict = `${verdict}; **errors**`;
    lines.push(
      `| ${r.route} | ${Math.round(r.requestsPerSecond).toLocaleString('en')} | ${ms(r.p50)} | ${ms(r.p99)} | ${failed ? `**${errorCell}**` : errorCell} | ` +
        `${share === undefined ? '—' : `${Math.round(share * 100)}%`} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

/** The items GET /items/{id} rotates through: a fixed spread of current items (md5 order), the same on every run. */
export async function loadItems(db: Kysely<Database>, projectId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select id from items where project_id = ${projectId}::uuid and is_head and deleted_at is null
    order by md5(id::text) limit 1000`.execute(db);
  return rows.map((r) => r.id);
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/svc_bench' },
      project: { type: 'string', default: 'bench' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: String(POOL_SIZE) },
      rounds: { type: 'string', default: '1' },
      'log-level': { type: 'string', default: 'warn' },
    },
  });
  const log = (message: string) => process.stderr.write(`[load ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
  const store = await openStore({ databaseUrl: args.database, poolSize: 1 });
  let itemIds: string[];
  try {
    itemIds = await loadItems(store.db, (await resolveProject(store.db, args.project)).id);
  } finally {
    await store.close();
  }
  const searchQueries = shapes(vocabulary(VOCABULARY, SEED).words).map((s) => s.query);
  log(`HTTP load on ${args.database}: ${itemIds.length} items, ${searchQueries.length} search queries`);
  const result = await httpLoad({
    databaseUrl: args.database,
    project: args.project,
    itemIds,
    searchQueries,
    durationSeconds: Number(args.duration),
    warmupSeconds: Number(args.warmup),
    connections: Number(args.connections),
    rounds: Number(args.rounds),
    logLevel: args['log-level'],
    log,
  });
  process.stdout.write(`${loadTable(result)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
