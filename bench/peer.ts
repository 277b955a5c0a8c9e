/**
 * svc beside a peer over MCP stdio (issue 18): mcp-memory-keeper (SQLite through better-sqlite3, a `LIKE` scan
 * over key and value) and `svc serve mcp` on PostgreSQL, each driven by the same @modelcontextprotocol/sdk
 * client over stdio, on the same corpus, with the same single-word queries answered with 20 records each.
 *
 * The peer is installed at bench time outside the repository (`npm install --prefix <dir>`, default
 * $TMPDIR/svc-bench-peer); when it cannot be installed or loaded, the run says so and is skipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createService } from '@svc/service';
import { migrate, openStore } from '@svc/store';
import { sql } from 'kysely';
import { itemText, rng, SEED, uuid, type Vocabulary } from './corpus.js';
import { type Stats, stats } from './measure.js';
import { createProjects, DAY, insertRows, type Row, recreateDatabase, SPAN } from './seed.js';

/** Pinned: better-sqlite3 12 runs on Node 20 (13 does not). */
const PEER = { name: 'mcp-memory-keeper', version: '0.14.1', sqlite: 'better-sqlite3@12.4.1' } as const;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SVC_MAIN = join(ROOT, 'apps/cli/src/main.ts');
const LIMIT = 20;
/** Calls each server answers, alternating over the queries, before the first one is timed. */
const WARMUP = 500;

interface PeerRow {
  records: number;
  query: string;
  svc: Stats;
  peer: Stats;
  /** Records in each answer (the same for a fair comparison) and the answer's text size. */
  svcAnswer: { records: number; chars: number };
  peerAnswer: { records: number; chars: number };
}

export interface PeerResult {
  rows: PeerRow[];
  skipped?: string | undefined;
  load: string;
}

/** Install the peer into `dir` unless it is there; the reason it cannot run, or undefined when it can. */
function installPeer(dir: string, log: (m: string) => void): string | undefined {
  const entry = join(dir, 'node_modules', PEER.name, 'dist', 'index.js');
  if (!existsSync(entry)) {
    log(`peer: installing ${PEER.name}@${PEER.version} and ${PEER.sqlite} into ${dir} (outside the repository)`);
    const out = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir, `${PEER.name}@${PEER.version}`, PEER.sqlite], {
      encoding: 'utf8',
      timeout: 1_800_000,
    });
    if (out.status !== 0 || !existsSync(entry)) {
      return `npm install of ${PEER.name} failed (${out.error?.message ?? `exit ${out.status}`}): ${(out.stderr ?? '').trim().split('\n').slice(-3).join(' / ')}`;
    }
  }
  // better-sqlite3's native module must load on this Node (13 segfaults on Node 20).
  const probe = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"], {
    cwd: join(dir, 'node_modules', PEER.name),
    encoding: 'utf8',
  });
  if (probe.status !== 0) return `better-sqlite3 does not load on Node ${process.version}: ${(probe.stderr || `signal ${probe.signal}`).trim().split('\n')[0]}`;
  return undefined;
}

async function connect(name: string, command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: `bench-${name}`, version: '1.0.0' });
  // Starting from source under a loaded machine can take longer than the SDK's default minute.
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }), { timeout: 600_000 });
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((c) => c.text ?? '').join('');
}

async function sample(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** The corpus: `n` records, each a title and a body (svc's title and body; the peer's value holds both). */
function corpus(v: Vocabulary, n: number): { id: string; title: string; body: string; at: string }[] {
  const r = rng(SEED + 41);
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const { title, body } = itemText(v, r);
    return { id: uuid(r), title, body, at: new Date(now - SPAN + ((SPAN - DAY) * i) / n).toISOString() };
  });
}

export async function measurePeer(
  server: URL,
  v: Vocabulary,
  sizes: number[],
  options: { database: string; peerDir: string; iterations: number; log: (m: string) => void; load: () => string },
): Promise<PeerResult> {
  const { log } = options;
  const skipped = installPeer(options.peerDir, log);
  if (skipped) {
    log(`peer: SKIPPED — ${skipped}`);
    return { rows: [], skipped, load: options.load() };
  }
  const loadBefore = options.load();
  const rows: PeerRow[] = [];
  for (const n of sizes) {
    const records = corpus(v, n);
    // svc: a fresh database, the records inserted as decisions (SQL in batches of 2,000; the index kept by its triggers).
    const database = `${options.database}_${n}`;
    await recreateDatabase(server, database);
    const databaseUrl = new URL(`/${database}`, server).toString();
    const store = await openStore({ databaseUrl, statementTimeoutMs: 600_000 });
    try {
      await migrate(store.db);
      const [project] = await createProjects(createService(store), ['peer']);
      if (!project) throw new Error('no project');
      for (let i = 0; i < records.length; i += 2_000) {
        const batch: Row[] = records.slice(i, i + 2_000).map((x) => ({
          ...{ id: x.id, project_id: project.id, item_type: 'decision', title: x.title, body: x.body, context: '{}', source_url: null },
          ...{ work_unit_id: null, status: null, chain_id: x.id, supersedes_id: null, is_head: true, version: 1, at: x.at, deleted_at: null },
        }));
        await insertRows(store.db, batch);
      }
      await sql`vacuum analyze`.execute(store.db);
    } finally {
      await store.close();
    }
    const env = { ...(process.env as Record<string, string>), SVC_DATABASE_URL: databaseUrl, SVC_LOG_LEVEL: 'warn' };
    const svcClient = await connect('svc', process.execPath, ['--conditions=@svc/source', '--import', 'tsx', SVC_MAIN, 'serve', 'mcp'], env);
    // The peer: a fresh data directory, the same records through its own batch tool (100 a call, its maximum).
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-peer-data-'));
    const peerEntry = join(options.peerDir, 'node_modules', PEER.name, 'dist', 'index.js');
    const peerClient = await connect('peer', process.execPath, [peerEntry], { ...(process.env as Record<string, string>), DATA_DIR: dataDir });
    try {
      log(`peer: ${n.toLocaleString('en')} records into mcp-memory-keeper (context_batch_save, 100 a call)`);
      for (let i = 0; i < records.length; i += 100) {
        // The peer's keys may not hold spaces: the text goes in the value, which its search reads too.
        const items = records.slice(i, i + 100).map((x, j) => ({ key: `decision-${i + j + 1}`, value: `${x.title}. ${x.body}`, category: 'decision' }));
        const out = await peerClient.callTool({ name: 'context_batch_save', arguments: { items } }, undefined, { timeout: 600_000 });
        if (out.isError || !text(out).includes('"failed": 0')) throw new Error(`peer batch save failed: ${text(out).slice(0, 500)}`);
      }
      // Single words both answer with 20 records: svc's words match whole (stemmed) words, the peer's LIKE any
      // substring, so words frequent enough for both to fill the page keep the answers the same size.
      const queries = [0, 10, 30, 60, 100].map((k) => v.words[k] as string);
      const svcCall = (query: string) => () => svcClient.callTool({ name: 'svc_item_search', arguments: { project_id: 'peer', query, limit: LIMIT } });
      const peerCall = (query: string) => () => peerClient.callTool({ name: 'context_search', arguments: { query, limit: LIMIT } });
      // Both servers are long-lived processes: each gets the same WARMUP calls over every query, alternating, before
      // any query is timed, so the first query timed is not the one that pays for the JIT compiling the call's code.
      for (let i = 0; i < WARMUP; i++) {
        const query = queries[i % queries.length] as string;
        await svcCall(query)();
        await peerCall(query)();
      }
      for (const query of queries) {
        const a = await svcCall(query)();
        const b = await peerCall(query)();
        const svcRecords = ((a.structuredContent as { items?: unknown[] } | undefined)?.items ?? []).length;
        const peerRecords = (text(b).match(/^• /gm) ?? []).length;
        const svcSamples: number[] = [];
        const peerSamples: number[] = [];
        // Alternate call by call, so a burst of other work on the machine lands on both alike.
        for (let i = 0; i < options.iterations; i++) {
          svcSamples.push(await sample(svcCall(query)));
          peerSamples.push(await sample(peerCall(query)));
        }
        const row: PeerRow = {
          records: n,
          query,
          svc: stats(svcSamples),
          peer: stats(peerSamples),
          svcAnswer: { records: svcRecords, chars: text(a).length },
          peerAnswer: { records: peerRecords, chars: text(b).length },
        };
        log(
          `  ${n} records, \`${query}\`: svc p50 ${row.svc.p50.toFixed(2)} p95 ${row.svc.p95.toFixed(2)} ms (${svcRecords} records); ` +
            `peer p50 ${row.peer.p50.toFixed(2)} p95 ${row.peer.p95.toFixed(2)} ms (${peerRecords} records); p95 ratio ${(row.peer.p95 / row.svc.p95).toFixed(1)}×`,
        );
        rows.push(row);
      }
    } finally {
      await svcClient.close();
      await peerClient.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return { rows, load: `${loadBefore} / ${options.load()}` };
}

export function peerTable(result: PeerResult): string {
  const head = [
    '### Over MCP stdio beside mcp-memory-keeper (PostgreSQL for svc, SQLite for the peer)',
    '',
    `bench/peer.ts: \`svc serve mcp\` and ${PEER.name}@${PEER.version} (${PEER.sqlite}, installed at bench time outside the`,
    'repository), each a child process driven by the same @modelcontextprotocol/sdk client over stdio, one call at',
    `a time, the two alternating call by call; the same records (svc: decisions, title and body; the peer: the same text as value, key \`decision-N\`);`,
    `single-word queries with limit ${LIMIT}, which both answer with ${LIMIT} records (the peer: \`LIKE\` over key and value, newest first;`,
    `svc: BM25F over every match). Round trip as the client sees it, after ${WARMUP} calls to each server over all the queries`,
    '(both are long-lived processes: the first calls pay for compiling their code); latencies in ms.',
    '',
  ];
  if (result.skipped) return [...head, `**Skipped:** ${result.skipped}`].join('\n');
  const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
  const lines = [
    ...head,
    `Load average (1 min) before / after: ${result.load}.`,
    '',
    '| records | query | svc p50 | svc p95 | peer p50 | peer p95 | peer p95 ÷ svc p95 | records answered (svc / peer) | answer chars (svc / peer) |',
    '|--:|---|--:|--:|--:|--:|--:|--:|--:|',
    ...result.rows.map(
      (r) =>
        `| ${r.records.toLocaleString('en')} | \`${r.query}\` | ${ms(r.svc.p50)} | ${ms(r.svc.p95)} | ${ms(r.peer.p50)} | ${ms(r.peer.p95)} | ` +
        `${(r.peer.p95 / r.svc.p95).toFixed(1)}× | ${r.svcAnswer.records} / ${r.peerAnswer.records} | ${r.svcAnswer.chars} / ${r.peerAnswer.chars} |`,
    ),
  ];
  for (const n of [...new Set(result.rows.map((r) => r.records))]) {
    const all = result.rows.filter((r) => r.records === n);
    const ratios = all.map((r) => r.peer.p95 / r.svc.p95);
    const target = n <= 5_000 ? 5 : 10;
    lines.push(
      '',
      `${n.toLocaleString('en')} records: peer p95 ÷ svc p95 from ${Math.min(...ratios).toFixed(1)}× to ${Math.max(...ratios).toFixed(1)}× over the queries ` +
        `(target ≥ ${target}×: ${Math.min(...ratios) >= target ? 'met' : '**not met**'}).`,
    );
  }
  return lines.join('\n');
}
