import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROUTES } from '@svc/http';
import { listTools } from '@svc/mcp';
import { type PrivateCluster, startPrivateCluster } from '@svc/service/testing';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCrashes, crashRound, embeddedCrashes, type Ledger, medians, roundFailures, tally, withEmbedded } from './crash.js';
import { addProbe, addSummary, anySkipped, cli, count, http, invariants, query, SVC, type Server, type Summary, serve, withRows, writeReport } from './harness.js';
import {
  BACKTRACK_TYPE,
  type Door,
  doorActor,
  doorGlossary,
  doorHostOrigin,
  doorImport,
  doorNesting,
  doorPattern,
  doorPrototypeKeys,
  FINGERPRINT_SQL,
  IMPORT_KINDS,
  type Prepared,
  prepareDoors,
} from './hostile.js';
import { HalfOpenProxy } from './proxy.js';

const started = Date.now();
let cluster: PrivateCluster;
let env: NodeJS.ProcessEnv;
let actor: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const EXPECTED = new Set(['conflict', 'refused_transition']);

/** The embedded rounds use their own processes and data directories; they run while parts 1 and 2 do. */
const EMBEDDED_KILLS = 100;
const crashPostgres = addSummary('crash, kill -9 (PostgreSQL)');
const crashEmbedded = addSummary('crash, kill -9 (embedded)');
let embedded: Promise<{ failures: string[]; ledgers: Ledger[] }>;

beforeAll(async () => {
  embedded = embeddedCrashes(EMBEDDED_KILLS, 2, 600, crashEmbedded);
  // Settled here, awaited by its test: a failure must not surface as an unhandled rejection meanwhile.
  embedded.catch(() => {});
  cluster = await startPrivateCluster();
  env = { ...process.env, SVC_DATABASE_URL: cluster.url, SVC_LOG_LEVEL: 'silent' };
  delete env.SVC_DEFAULT_ACTOR_ID;
  await cli(env, ['migrate']);
  actor = (JSON.parse(await cli(env, ['actor', 'add', '--email', 'reliability@example.test', '--json'])) as { id: string }).id;
  await cli(env, ['project', 'create', 'rel']);
});

// biome-ignore lint/correctness/noEmptyPattern: vitest hands a hook the file's tasks only when its first argument is destructured
afterAll(async ({}, file) => {
  await cluster?.destroy();
  const seconds = Math.round((Date.now() - started) / 1000);
  writeReport(seconds, anySkipped(file));
  console.log(`\nreliability summary (${seconds} s):\n${(await import('./harness.js')).table()}\n`);
});

describe('1. crash safety: kill -9 mid-write', () => {
  it('PostgreSQL: 100 kills; every batch all-or-nothing, every acknowledged write kept, one head per chain, one task in progress per unit', async () => {
    const ledgers: Ledger[] = [];
    for (let round = 0; round < 100; round++) {
      const ledger = await crashRound(env, actor, `p${round}`, 60);
      ledgers.push(ledger);
      tally(crashPostgres, ledger);
      const { checked, problems } = await withRows(cluster.url, (rows) => checkCrashes(rows, [ledger], `^p${round}`));
      crashPostgres.invariants += checked;
      crashPostgres.violations += problems.length;
      expect(roundFailures(ledger)).toEqual([]);
      expect(problems).toEqual([]);
    }
    console.log(`crash (PostgreSQL): ${medians(ledgers)}`);
    // A round is a server's start, writes and kill: 3.0–3.4 s each on this machine on 2026-11-27 (the built server
    // took 1.4–2.0 s to listen, at this commit as at the one before), so 100 rounds outgrew the suite's 300 s and
    // the part failed by the clock after passing every round.
  }, 600_000);
});

describe('2. load: 4 clients × 2,000 mixed operations over HTTP and MCP', () => {
  it('sees no errors but the expected refusals, and the invariants hold', async () => {
    const summary = addSummary('load');
    const server = await serve(env);
    try {
      const unit = (await http(server.url, 'POST', '/projects/rel/work-units', { title: 'load' }, actor)).body as { id: string };
      const shared = (await http(server.url, 'POST', '/projects/rel/items', { title: 'shared item' }, actor)).body as { id: string; chain_id: string };
      const clients = await Promise.all(
        [0, 1].map(async () => {
          const client = new Client({ name: 'load', version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-Actor': actor } } }));
          return client;
        }),
      );
      const viaHttp = async (method: string, path: string, body?: unknown): Promise<string | undefined> => {
        const r = await http(server.url, method, path, body, actor);
        if (r.status === 200) return undefined;
        return (r.body as { error?: { code: string } }).error?.code ?? `http ${r.status}`;
      };
      const viaMcp = (client: Client) => async (name: string, args: Record<string, unknown>) => {
        const r = await client.callTool({ name, arguments: args });
        return r.isError ? ((r.structuredContent as { error: { code: string } }).error.code) : undefined;
      };
      const head = async () =>
        ((await http(server.url, 'GET', `/items/${shared.chain_id}`)).body as { item: { id: string } }).item.id;
      const worker = async (w: number) => {
        const mcp = w >= 2 ? viaMcp(clients[w - 2] as Client) : undefined;
        for (let i = 0; i < 2000; i++) {
          const marker = `loadmarker${w}x${i}`;
          let code: string | undefined;
          switch (i % 8) {
            case 0:
              code = mcp
                ? await mcp('svc_item_upsert', { project_id: 'rel', title: `w${w} item ${i}`, body: 'load body' })
                : await viaHttp('POST', '/projects/rel/items', { title: `w${w} item ${i}`, body: 'load body' });
              break;
            case 1:
              code = mcp
                ? await mcp('svc_item_upsert', { project_id: 'rel', item_id: await head(), body: `edit ${w}-${i}` })
                : await viaHttp('POST', '/projects/rel/items', { item_id: await head(), body: `edit ${w}-${i}` });
              break;
            case 2:
              code = mcp ? await mcp('svc_item_search', { project_id: 'rel', query: 'load OR body -nothing' }) : await viaHttp('GET', '/projects/rel/items/search?query=load%20body');
              break;
            case 3: {
              const add = mcp ? undefined : await http(server.url, 'POST', `/work-units/${unit.id}/tasks`, { title: `t${w}-${i}` }, actor);
              const id = (add?.body as { id?: string } | undefined)?.id;
              code = id ? await viaHttp('POST', `/tasks/${id}/start`, {}) : mcp ? await mcp('svc_task_list', { work_unit_id: unit.id, status: 'in_progress' }) : undefined;
              if (id && code === undefined) code = await viaHttp('POST', `/tasks/${id}/done`, {});
              break;
            }
            case 4: {
              const r = await http(server.url, 'POST', '/captures', { text: `capture ${marker}` }, actor);
              const id = (r.body as { id?: string }).id;
              code = r.status === 200 ? undefined : 'capture add failed';
              if (id && i % 16 === 4) code = await viaHttp('POST', `/captures/${id}/redact`, {});
              break;
            }
            case 5:
              code = mcp ? await mcp('svc_brief', { project_id: 'rel' }) : await viaHttp('GET', '/projects/rel/brief');
              break;
            case 6:
              code = mcp
                ? await mcp('svc_qa_add', { project_id: 'rel', title: `qa ${i}`, target_item_ids: [shared.chain_id] })
                : await viaHttp('GET', `/projects/rel/qa-checks/pending?item_id=${shared.chain_id}&limit=5`);
              break;
            default:
              code = mcp ? await mcp('svc_history_query', { project_id: 'rel', item_id: shared.chain_id, limit: 5 }) : await viaHttp('GET', `/items/${shared.chain_id}/impact?project_id=rel`);
          }
          summary.operations++;
          if (code) count(summary.errors, code);
        }
      };
      await Promise.all([0, 1, 2, 3].map(worker));
      await Promise.all(clients.map((c) => c.close()));
      const unexpected = Object.keys(summary.errors).filter((k) => !EXPECTED.has(k));
      const problems = await withRows(cluster.url, invariants);
      const leaked = await query<{ n: number }>(
        cluster.url,
        "select (select count(*) from audit_log where details::text ~ 'loadmarker') + (select count(*) from items_history where details::text ~ 'loadmarker') + (select count(*) from captures where review_state = 'redacted' and (text ~ 'loadmarker' or coalesce(summary, '') ~ 'loadmarker')) as n",
      );
      summary.invariants += 4;
      summary.violations += problems.length + (Number(leaked[0]?.n) > 0 ? 1 : 0) + unexpected.length;
      expect(unexpected).toEqual([]);
      expect(problems).toEqual([]);
      expect(Number(leaked[0]?.n)).toBe(0);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('1. crash safety, embedded database (its rounds ran beside parts 1 and 2)', () => {
  it('100 kills; the server restarts every time (no stale lock), every batch all-or-nothing, every acknowledged write kept, the invariants hold', async () => {
    const { failures, ledgers } = await embedded;
    console.log(`crash (embedded): ${medians(ledgers)}`);
    expect(ledgers.length).toBe(EMBEDDED_KILLS);
    expect(failures).toEqual([]);
  });
});

describe('3. hostile input through MCP and HTTP for every tool', () => {
  it('never answers 500 or internal_error, never crashes, never writes part of a refused call', async () => {
    const summary = addSummary('hostile input');
    const server = await serve(env);
    const client = new Client({ name: 'hostile', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-Actor': actor } } }));
    try {
      const unit = ((await http(server.url, 'POST', '/projects/rel/work-units', { title: 'hostile' }, actor)).body as { id: string }).id;
      const task = ((await http(server.url, 'POST', `/work-units/${unit}/tasks`, { title: 'hostile task' }, actor)).body as { id: string }).id;
      const item = ((await http(server.url, 'POST', '/projects/rel/items', { title: 'hostile item' }, actor)).body as { id: string }).id;
      const qa = ((await http(server.url, 'POST', '/projects/rel/qa-checks', { title: 'hostile qa' }, actor)).body as { id: string }).id;
      const capture = ((await http(server.url, 'POST', '/captures', { text: 'hostile capture' }, actor)).body as { id: string }).id;
      const idea = ((await http(server.url, 'POST', `/work-units/${unit}/ideas`, { text: 'hostile idea' }, actor)).body as { id: string }).id;
      const valid: Record<string, unknown> = { project_id: 'rel', work_unit_id: unit, task_id: task, item_id: item, qa_id: qa, capture_id: capture, idea_id: idea };
      let nested: unknown = { leaf: true };
      for (let d = 0; d < 2000; d++) nested = { d: nested };
      const hostile = fc.oneof(
        fc.constant('x'.repeat(1_200_000)),
        fc.constant(nested),
        fc.constant('nul\u0000byte'),
        fc.constant('lone \ud800 surrogate \udfff'),
        fc.constantFrom("'; drop table items; --", '& | ! ( ) : * \\', '"unbalanced', 'a:* & !b', '$1', '%_%'),
        fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}') as unknown),
        fc.constantFrom('1a2b3c4d-0000-4000-8000-00000000000g', 'aaaa-', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000'),
        fc.constantFrom(null, true, -1, 1e308, 2 ** 53 + 1, [], [1, 'two', null], {}),
        fc.string({ unit: 'binary', maxLength: 50 }),
      );
      const tables = ['items', 'links', 'work_units', 'captures', 'capture_promotions', 'ideas', 'items_history', 'sync_jobs', 'glossary_terms'];
      const fingerprint = async () =>
        JSON.stringify(await query(cluster.url, `select ${tables.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')}`));
      for (const tool of listTools()) {
        const properties = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
        const samples = fc.sample(fc.array(fc.tuple(fc.constantFrom(...properties), fc.boolean(), hostile), { minLength: 1, maxLength: 4 }), 8);
        for (const sample of samples) {
          const args: Record<string, unknown> = {};
          for (const key of properties) if (key in valid) args[key] = valid[key];
          for (const [key, keepValid, value] of sample) if (!keepValid || !(key in valid)) args[key] = value;
          for (const transport of ['mcp', 'http'] as const) {
            const before = await fingerprint();
            // Bodies over the 2 MiB limit are refused at the door (413, and the connection may close early).
            const oversize = JSON.stringify(args).length > 2 * 1024 * 1024 - 10_000;
            let code: string | undefined;
            if (transport === 'mcp') {
              const result = await client
                .callTool({ name: tool.name, arguments: args })
                .catch((e: Error) => ({ isError: true, structuredContent: { error: { code: oversize ? 'payload_too_large' : `transport: ${e.message.slice(0, 60)}` } } }));
              code = result.isError ? (result.structuredContent as { error: { code: string } }).error.code : undefined;
            } else {
              const route = ROUTES.find((candidate) => candidate.operation === tool.name);
              if (!route) throw new Error(`no REST route for ${tool.name}`);
              const rest = { ...args };
              const path = route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
                const value = rest[name];
                delete rest[name];
                const text = typeof value === 'string' && value !== '' ? value.slice(0, 200) : JSON.stringify(value ?? 'none');
                return encodeURIComponent(text.toWellFormed());
              });
              const search = new URLSearchParams();
              for (const [k, v] of Object.entries(rest)) search.append(k, (typeof v === 'string' ? v.slice(0, 2000) : (JSON.stringify(v)?.slice(0, 2000) ?? '')).toWellFormed());
              const r = await (route.method === 'get'
                ? http(server.url, 'GET', `${path}?${search.toString()}`)
                : http(server.url, route.method.toUpperCase(), path, rest, actor)
              ).catch(() => ({ status: oversize ? 413 : 0, body: { error: { code: oversize ? 'payload_too_large' : 'transport: connection failed' } } }));
              // 414/431: a URL too long for the HTTP server itself, refused before svc sees it.
              code =
                r.status === 414 || r.status === 431
                  ? 'url_too_long'
                  : r.status >= 500 || r.status === 0
                    ? ((r.body as { error?: { code: string } }).error?.code ?? `http ${r.status}`)
                    : r.status === 200
                      ? undefined
                      : ((r.body as { error?: { code: string } }).error?.code ?? `http ${r.status}`);
            }
            summary.operations++;
            if (code) {
              count(summary.errors, code);
              summary.invariants++;
              if ((await fingerprint()) !== before) {
                summary.violations++;
                count(summary.errors, `partial write after ${code}`);
              }
            }
          }
        }
      }
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect(server.child.exitCode).toBeNull();
      const bad = Object.keys(summary.errors).filter((k) => k === 'internal_error' || k.startsWith('http 5') || k.startsWith('transport') || k.startsWith('partial'));
      expect(bad).toEqual([]);
      expect(await withRows(cluster.url, invariants)).toEqual([]);
    } finally {
      await client.close();
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('3b. hostile input: the doors issue 16 found open (1–7), generated, over REST, /mcp and svc import', () => {
  let server: Server;
  let db: pg.Client;
  let prepared: Prepared;
  let door: Door | undefined;
  let summary: Summary | undefined;
  const tools = listTools();

  beforeAll(async () => {
    server = await serve(env);
    db = new pg.Client({ connectionString: cluster.url });
    await db.connect();
    prepared = await prepareDoors(server.url, env, actor);
  });
  afterAll(async () => {
    await db?.end();
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  /** The door context; the part's row of the summary table is added by the first test that runs. */
  const open = (): Door => {
    summary ??= addSummary('hostile input, issue 16 doors (3b)');
    door ??= { base: server.url, actor, valid: prepared.valid, fingerprint: async () => JSON.stringify((await db.query(FINGERPRINT_SQL)).rows[0]), summary, problems: [] };
    door.problems = [];
    return door;
  };
  const healthy = async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  };

  it('1. a foreign Host or Origin is refused on every route and /mcp (403); a write that is not application/json gets 415', async () => {
    const d = open();
    const probe = addProbe(
      '1. Host/Origin allow-list; JSON-only writes',
      'REST (all routes, /ready, /openapi.json), /mcp',
      `each of the ${ROUTES.length + 3} targets: a generated foreign Host (domains, IPv4, look-alikes of localhost), a generated foreign Origin (http/https of those, \`null\`, \`file://\`) with an allowed Host, and on writes a Content-Type a page can send without a preflight or a near miss of JSON (text/plain, form, multipart, application/jsonx, none)`,
    );
    await doorHostOrigin(d, probe, ROUTES);
    expect(d.problems).toEqual([]);
    await healthy();
  });

  it('2. a body actor_id naming someone else than X-Actor, or alone, is refused, writing nothing', async () => {
    const d = open();
    const probe = addProbe(
      '2. body actor_id against X-Actor',
      'MCP and REST',
      'every tool that takes actor_id (captures, ideas), twice each: a generated UUID, another actor of the database, or its id in capitals, with X-Actor naming the suite\'s actor (invalid_input); then once another actor with no X-Actor (actor_required)',
    );
    await doorActor(d, probe, tools, ROUTES, prepared.intruder);
    expect(d.problems).toEqual([]);
  });

  it('3. a crafted import file is refused by svc import with exit 1, naming its line, never "internal", writing nothing', async () => {
    const d = open();
    const probe = addProbe(
      '3. import confines a crafted file',
      '`svc import --as` processes',
      `the export of a small project (a custom type, items, a link, a task, a QA check, a promoted capture, an idea, an audit trail) with one line changed, 2 files of each kind: ${IMPORT_KINDS.join(', ')} (generated: ids, actors, schemas, settings values, depths 65–5,000, wrong-typed values); then the honest file`,
    );
    await doorImport(d, probe, env, prepared.source, { projectId: prepared.relId, actorId: prepared.intruder }, 2);
    expect(d.problems).toEqual([]);
  });

  it('4. values nested deeper than 64 levels are refused naming the parameter; 64 levels are accepted', async () => {
    const d = open();
    const probe = addProbe(
      '4. nesting over 64 levels',
      'MCP (raw JSON-RPC) and REST',
      'context (item upsert, capture promote), signals (capture annotate) and decisions (save decisions) nested 65, 5,000 and a generated depth (65–5,000) of objects and arrays; a context exactly 64 deep',
    );
    await doorNesting(d, probe, ROUTES);
    expect(d.problems).toEqual([]);
    await healthy();
  });

  it('5. a custom type with pattern ^(a+)+$: catastrophic strings are refused at once, and /health answers meanwhile', async () => {
    const d = open();
    const probe = addProbe('5. backtracking pattern', 'MCP and REST, /health polled', '');
    const { slowestWrite, slowestHealth, polls } = await doorPattern(d, probe, BACKTRACK_TYPE);
    probe.tried = `a type registered with \`svc type add\` whose context.code has \`pattern: "^(a+)+$"\`; writes with 40 and 5,000 \`a\`s then \`!\`, and generated runs of 25–20,000 \`a\`s ending in a non-match; a matching value; slowest write ${slowestWrite} ms, slowest of ${polls} /health polls ${slowestHealth} ms`;
    expect(d.problems).toEqual([]);
    expect(slowestWrite).toBeLessThan(5_000);
    expect(slowestHealth).toBeLessThan(2_000);
  });

  it('6. prototype keys as query parameters, body keys and MCP arguments are refused with 400 invalid_input naming the key', async () => {
    const d = open();
    const probe = addProbe(
      '6. prototype keys',
      'MCP (every tool) and REST (every route)',
      '__proto__, constructor, toString, hasOwnProperty, valueOf, isPrototypeOf, __defineGetter__, toLocaleString (one generated per call) with a generated value, as a query parameter on GET routes, a JSON body key on writes, an argument of every tool',
    );
    await doorPrototypeKeys(d, probe, tools, ROUTES);
    expect(d.problems).toEqual([]);
    await healthy();
  });

  it('7. searches over a 500-term glossary group with long OR queries are answered (expansion cut), never unavailable or internal_error', async () => {
    const d = open();
    const probe = addProbe('7. glossary expansion', 'MCP and REST', '');
    const cut = await doorGlossary(d, probe, prepared.terms);
    probe.tried = `a glossary group of 500 generated terms; item searches with the longest query the parser allows (1,000 characters of group terms in one OR group), 32 OR groups, 8 generated OR queries of 2–60 words and 4 mixed ones (phrases, exclusions); briefs with a group term as keyword; ${cut} answers said expansion_cut`;
    expect(d.problems).toEqual([]);
    expect(cut).toBeGreaterThan(0);
    expect(await withRows(cluster.url, invariants)).toEqual([]);
  });
});

describe('4. database faults', () => {
  it('PostgreSQL restarted under load: clean 503s within a bounded time, /ready says so, then everything succeeds without a restart', async () => {
    const summary = addSummary('PostgreSQL restart', 1);
    const server = await serve(env);
    try {
      let stop = false;
      let slowest = 0;
      const load = async () => {
        while (!stop) {
          const t0 = Date.now();
          const r = await http(server.url, 'POST', '/captures', { text: 'under restart' }, actor).catch(() => ({ status: 0, body: {} }));
          slowest = Math.max(slowest, Date.now() - t0);
          summary.operations++;
          if (r.status !== 200) count(summary.errors, r.status === 503 ? 'unavailable' : `http ${r.status}`);
          await sleep(20);
        }
      };
      const workers = [load(), load()];
      await sleep(1_000);
      await cluster.stop();
      await sleep(1_000);
      const readyDown = (await fetch(`${server.url}/ready`)).status;
      await cluster.start();
      await sleep(1_500);
      stop = true;
      await Promise.all(workers);
      let readyUp = 0;
      for (let i = 0; i < 50 && readyUp !== 200; i++) {
        readyUp = (await fetch(`${server.url}/ready`)).status;
        if (readyUp !== 200) await sleep(200);
      }
      const after = await Promise.all(Array.from({ length: 20 }, () => http(server.url, 'POST', '/captures', { text: 'after restart' }, actor)));
      summary.operations += after.length;
      summary.invariants += 3;
      expect(readyDown).toBe(503);
      expect(readyUp).toBe(200);
      expect(after.every((r) => r.status === 200)).toBe(true);
      expect(Object.keys(summary.errors).filter((k) => k !== 'unavailable')).toEqual([]);
      expect(slowest).toBeLessThan(10_000);
      expect(await withRows(cluster.url, invariants)).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('a half-open link that silently drops traffic: requests fail within a bounded time, /ready says so, and recover', async () => {
    const summary = addSummary('half-open link', 1);
    const proxy = new HalfOpenProxy(cluster.port);
    const port = await proxy.listen();
    const proxied = { ...env, SVC_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, SVC_STATEMENT_TIMEOUT_MS: '1500' };
    const server = await serve(proxied);
    try {
      for (let i = 0; i < 20; i++) expect((await http(server.url, 'POST', '/captures', { text: 'before' }, actor)).status).toBe(200);
      proxy.blackhole = true;
      const t0 = Date.now();
      const during = await Promise.all(Array.from({ length: 6 }, () => http(server.url, 'POST', '/captures', { text: 'during' }, actor)));
      const elapsed = Date.now() - t0;
      const ready = (await fetch(`${server.url}/ready`)).status;
      summary.operations += 26;
      for (const r of during) if (r.status !== 200) count(summary.errors, r.status === 503 ? 'unavailable' : `http ${r.status}`);
      if (!during.every((r) => r.status === 503)) console.log('half-open answers:', JSON.stringify(during.map((r) => [r.status, r.body])));
      proxy.blackhole = false;
      let recovered = false;
      for (let i = 0; i < 40 && !recovered; i++) {
        recovered = (await http(server.url, 'POST', '/captures', { text: 'after' }, actor)).status === 200;
        summary.operations++;
        if (!recovered) await sleep(250);
      }
      const after = await Promise.all(Array.from({ length: 20 }, () => http(server.url, 'POST', '/captures', { text: 'after' }, actor)));
      summary.operations += after.length;
      summary.invariants += 4;
      expect(during.every((r) => r.status === 503)).toBe(true);
      expect(elapsed).toBeLessThan(15_000);
      expect(ready).toBe(503);
      expect(recovered).toBe(true);
      expect(after.every((r) => r.status === 200)).toBe(true);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await proxy.close();
    }
  });
});

describe('5. attribution and redaction', () => {
  it('every HTTP and MCP write names its actor; no audit or history row holds redacted text', async () => {
    const summary = addSummary('attribution and redaction');
    const server = await serve(env);
    try {
      const marker = `secretmarker${randomBytes(4).toString('hex')}`;
      const id = ((await http(server.url, 'POST', '/captures', { text: `the code is ${marker}` }, actor)).body as { id: string }).id;
      await http(server.url, 'POST', `/captures/${id}/annotate`, { summary: marker, signals: { [marker]: marker } }, actor);
      await http(server.url, 'POST', `/captures/${id}/redact`, {}, actor);
      summary.operations += 3;
      const leaks = await query<{ n: number }>(
        cluster.url,
        `select (select count(*) from audit_log where details::text like $1) + (select count(*) from items_history where details::text like $1)
              + (select count(*) from captures where text like $1 or summary like $1 or signals::text like $1) as n`,
        [`%${marker}%`],
      );
      const writes = await query<{ n: number; unattributed: number }>(
        cluster.url,
        "select count(*)::int as n, count(*) filter (where actor_id is null)::int as unattributed from audit_log where source in ('http', 'mcp')",
      );
      summary.invariants += 2;
      summary.operations += writes[0]?.n ?? 0;
      expect(Number(leaks[0]?.n)).toBe(0);
      expect(writes[0]?.unattributed).toBe(0);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('6. one embedded data directory, three processes (docs/decisions/0024)', () => {
  it('an HTTP server, a stdio MCP server and CLI runs write at once; kill -9 of the owner is survived; every acknowledged write is there once', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-share-')), 'data');
    const shared: NodeJS.ProcessEnv = { ...process.env, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' };
    delete shared.SVC_DATABASE_URL;
    delete shared.SVC_DEFAULT_ACTOR_ID;
    const who = (JSON.parse(await cli(shared, ['actor', 'add', '--email', 'share@example.test', '--json'])) as { id: string }).id;
    await cli(shared, ['project', 'create', 'share']);
    // The server opens the directory first and owns it; the MCP server and every CLI run are its clients.
    const server = await serve(shared);
    const mcp = new Client({ name: 'share', version: '1.0.0' });
    await mcp.connect(
      new StdioClientTransport({ command: process.execPath, args: [...SVC, 'serve', 'mcp', '--actor', who], env: shared as Record<string, string>, stderr: 'ignore' }),
    );
    const acked = { http: [] as string[], mcp: [] as string[], cli: [] as string[] };
    const failures: string[] = [];
    let killed = false;
    let stop = false;
    const afterKill = { mcp: 0, cli: 0 };
    const viaHttp = async () => {
      for (let i = 0; !stop && !killed; i++) {
        const title = `http-${i}`;
        try {
          const r = await http(server.url, 'POST', '/projects/share/items', { title }, who);
          if (r.status === 200) acked.http.push(title);
          else if (!killed) failures.push(`http ${r.status}`);
        } catch (error) {
          if (!killed) failures.push(`http: ${(error as Error).message}`);
        }
      }
    };
    const viaMcp = async () => {
      for (let i = 0; !stop; i++) {
        const title = `mcp-${i}`;
        // A throw here (Connection closed) means the MCP server died: the failure this test exists for.
        const result = (await mcp.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'share', title } })) as { isError?: boolean; content: { text: string }[] };
        if (!result.isError) {
          acked.mcp.push(title);
          if (killed) afterKill.mcp++;
        } else if (!killed || !/unavailable/.test(result.content[0]?.text ?? '')) failures.push(`mcp: ${result.content[0]?.text}`);
      }
    };
    const viaCli = async () => {
      for (let i = 0; !stop; i++) {
        const slug = `cli-${i}`;
        try {
          await cli(shared, ['project', 'create', slug]);
          acked.cli.push(slug);
          if (killed) afterKill.cli++;
        } catch (error) {
          if (!killed) failures.push(`cli: ${(error as Error).message.slice(0, 300)}`);
        }
      }
    };
    const loops = Promise.all([viaHttp(), viaMcp(), viaCli()]);
    await sleep(15_000);
    killed = true;
    server.child.kill('SIGKILL');
    await server.exited;
    // The MCP server and the CLI go on: one of them takes the directory over.
    const until = Date.now() + 45_000;
    while (Date.now() < until && (afterKill.mcp < 5 || afterKill.cli < 2)) await sleep(250);
    stop = true;
    await loops;
    await mcp.close();
    expect(failures).toEqual([]);
    expect(afterKill.mcp).toBeGreaterThanOrEqual(5);
    expect(afterKill.cli).toBeGreaterThanOrEqual(2);
    expect(acked.http.length).toBeGreaterThan(0);
    await withEmbedded(dataDir, async (rows) => {
      const items = await rows<{ title: string; n: string }>(
        `select i.title, count(*)::int as n from items i join projects p on p.id = i.project_id where p.slug = 'share' group by i.title`,
      );
      const seen = new Map(items.map((r) => [r.title, Number(r.n)]));
      for (const title of [...acked.http, ...acked.mcp]) expect(seen.get(title), title).toBe(1);
      for (const [title, n] of seen) expect(n, title).toBe(1);
      const projects = new Set((await rows<{ slug: string }>(`select slug from projects`)).map((r) => r.slug));
      for (const slug of acked.cli) expect(projects.has(slug), slug).toBe(true);
    });
  }, 120_000);
});
