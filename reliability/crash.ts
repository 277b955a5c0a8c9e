import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStore } from '@svc/store';
import { CompiledQuery } from 'kysely';
import { cli, count, http, invariants, type Rows, type Server, type Summary, serve } from './harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Refusals are the service keeping its rules under the race; anything else a client sees before the kill is a failure. */
const CRASH_REFUSALS = new Set(['refused_transition']);
/** A request the kill cut (in flight, or sent after it): its outcome is unknown, which is what the checks are for. */
const CUT = 'cut by the kill';

const RANK = { proposed: 0, in_progress: 1, done: 2 } as const;
type TaskStatus = keyof typeof RANK;

/** What the clients of one crash round sent, and what the server acknowledged (answered 200) before it died. */
export interface Ledger {
  /** Prefix of every title written in the round, unique in its database, ending in a digit (`p17`, `e1r4`). */
  tag: string;
  sent: number;
  acked: number;
  inFlight: number;
  /** Decision batch prefix → the ids the server returned for it. */
  batches: Map<string, string[]>;
  units: string[];
  /** Task chain → the last transition acknowledged. */
  tasks: Map<string, TaskStatus>;
  errors: Record<string, number>;
  /** Acknowledged writes and writes in flight at the moment of the kill. */
  atKill: { acked: number; inFlight: number };
  /** Milliseconds from the spawn: server listening, first write acknowledged, server gone after the kill. */
  ms: { listening: number; firstAck: number; gone: number };
  /** CPU milliseconds the server process had used when it was listening and when it was killed (Linux). */
  cpu: { listening: number; killed: number };
}

class Stopped extends Error {}

/**
 * Clients that write until the server dies: two send decision batches of ten (svc_save_decisions), two add,
 * start and finish tasks in one shared work unit (so starts race and some are refused). Each always has one
 * request outstanding, so whenever the kill lands, writes are in flight.
 */
function startWriters(base: string, actor: string, ledger: Ledger, killed: () => boolean): { firstAck: Promise<void>; done: Promise<void> } {
  let acknowledged!: () => void;
  const firstAck = new Promise<void>((resolve) => {
    acknowledged = resolve;
  });
  const call = async (method: string, path: string, body: unknown): Promise<Record<string, unknown> | undefined> => {
    ledger.sent++;
    ledger.inFlight++;
    let response: Awaited<ReturnType<typeof http>>;
    try {
      response = await http(base, method, path, body, actor);
    } catch {
      count(ledger.errors, killed() ? CUT : 'transport error before the kill');
      throw new Stopped();
    } finally {
      ledger.inFlight--;
    }
    if (response.status === 200) {
      ledger.acked++;
      acknowledged();
      return response.body as Record<string, unknown>;
    }
    count(ledger.errors, (response.body as { error?: { code?: string } }).error?.code ?? `http ${response.status}`);
    return undefined;
  };
  const decisions = async (w: number) => {
    for (let n = 0; ; n++) {
      const prefix = `${ledger.tag}b${w}x${n}`;
      const batch = Array.from({ length: 10 }, (_, i) => ({ title: `${prefix}d${i}`, body: 'x'.repeat(200) }));
      const created = (await call('POST', '/projects/rel/decisions', { decisions: batch }))?.created as string[] | undefined;
      if (created) ledger.batches.set(prefix, created);
    }
  };
  // A decision batch goes first, so the first acknowledged write of every round is a whole batch.
  const first = decisions(0);
  const unit = call('POST', '/projects/rel/work-units', { title: `${ledger.tag} unit` }).then((u) => {
    if (u) ledger.units.push(u.id as string);
    return u?.id as string | undefined;
  });
  const tasks = async (w: number) => {
    const id = await unit;
    if (!id) return;
    for (let n = 0; ; n++) {
      const task = (await call('POST', `/work-units/${id}/tasks`, { title: `${ledger.tag}t${w}x${n}` }))?.chain_id as string | undefined;
      if (!task) continue;
      ledger.tasks.set(task, 'proposed');
      if (!(await call('POST', `/tasks/${task}/start`, {}))) continue;
      ledger.tasks.set(task, 'in_progress');
      if (await call('POST', `/tasks/${task}/done`, {})) ledger.tasks.set(task, 'done');
    }
  };
  const writers = [first, unit, decisions(1), tasks(0), tasks(1)];
  const done = Promise.allSettled(writers).then((results) => {
    for (const r of results) if (r.status === 'rejected' && !(r.reason instanceof Stopped)) throw r.reason;
  });
  return { firstAck, done };
}

function newLedger(tag: string): Ledger {
  return { tag, sent: 0, acked: 0, inFlight: 0, batches: new Map(), units: [], tasks: new Map(), errors: {}, atKill: { acked: 0, inFlight: 0 }, ms: { listening: 0, firstAck: 0, gone: 0 }, cpu: { listening: 0, killed: 0 } };
}

/** User and system CPU time of a live process, from /proc (0 where there is none). */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * One crash round: start a server (which must come up: a killed predecessor leaves no lock that blocks it),
 * write until at least one write is acknowledged, then kill -9 it at a random moment up to `windowMs` later,
 * while writes are in flight. Returns when the server is gone and every client has seen its answer or its cut.
 */
export async function crashRound(env: NodeJS.ProcessEnv, actor: string, tag: string, windowMs: number, nodeArgs: string[] = []): Promise<Ledger> {
  const ledger = newLedger(tag);
  const t0 = performance.now();
  const server: Server = await serve(env, nodeArgs);
  ledger.ms.listening = performance.now() - t0;
  ledger.cpu.listening = cpuMs(server.child.pid);
  let killed = false;
  const writers = startWriters(server.url, actor, ledger, () => killed);
  await Promise.race([writers.firstAck, writers.done]);
  ledger.ms.firstAck = performance.now() - t0;
  await sleep(Math.floor(Math.random() * windowMs));
  killed = true;
  ledger.atKill = { acked: ledger.acked, inFlight: ledger.inFlight };
  ledger.cpu.killed = cpuMs(server.child.pid);
  server.child.kill('SIGKILL');
  await server.exited;
  ledger.ms.gone = performance.now() - t0;
  await writers.done;
  return ledger;
}

/**
 * After a restart, what a set of crash rounds left behind: every decision batch whole or absent, every
 * acknowledged write present (batches, work units, task transitions at least as far as acknowledged), and the
 * invariants. `titles` is a regular expression matching the titles of exactly these rounds.
 */
export async function checkCrashes(rows: Rows, ledgers: Ledger[], titles: string): Promise<{ checked: number; problems: string[] }> {
  const problems: string[] = [];
  const batches = await rows<{ batch: string; n: number }>(
    `select substring(title from '^(.*)d[0-9]+$') as batch, count(*)::int as n from items where title ~ $1 and item_type = 'decision' group by 1`,
    [`${titles}b[0-9]+x[0-9]+d[0-9]+$`],
  );
  for (const b of batches) if (b.n !== 10) problems.push(`batch ${b.batch} is partial: ${b.n} of 10 decisions`);
  const ackedItems = ledgers.flatMap((l) => [...l.batches.values()].flat());
  const presentItems = new Set(
    (await rows<{ id: string }>(`select id::text as id from items where id = any(string_to_array($1, ',')::uuid[])`, [ackedItems.join(',')])).map((r) => r.id),
  );
  const lostItems = ackedItems.filter((id) => !presentItems.has(id));
  if (lostItems.length > 0) problems.push(`${lostItems.length} acknowledged decision(s) lost, e.g. ${lostItems[0]}`);
  const ackedUnits = ledgers.flatMap((l) => l.units);
  const presentUnits = new Set(
    (await rows<{ id: string }>(`select id::text as id from work_units where id = any(string_to_array($1, ',')::uuid[])`, [ackedUnits.join(',')])).map((r) => r.id),
  );
  const lostUnits = ackedUnits.filter((id) => !presentUnits.has(id));
  if (lostUnits.length > 0) problems.push(`${lostUnits.length} acknowledged work unit(s) lost, e.g. ${lostUnits[0]}`);
  const ackedTasks = new Map(ledgers.flatMap((l) => [...l.tasks]));
  const heads = new Map(
    (
      await rows<{ chain_id: string; status: TaskStatus }>(
        `select chain_id::text as chain_id, status from items where is_head and chain_id = any(string_to_array($1, ',')::uuid[])`,
        [[...ackedTasks.keys()].join(',')],
      )
    ).map((r) => [r.chain_id, r.status]),
  );
  let behind = 0;
  for (const [chain, status] of ackedTasks) {
    const head = heads.get(chain);
    if (head === undefined || RANK[head] < RANK[status]) behind++;
  }
  if (behind > 0) problems.push(`${behind} task(s) lost or behind their acknowledged transition`);
  problems.push(...(await invariants(rows)));
  return { checked: batches.length + ackedItems.length + ackedUnits.length + ackedTasks.size + 3, problems };
}

/** The embedded database, opened in this process as svc opens it (so it takes the data directory's lock). */
export async function withEmbedded<T>(dataDir: string, use: (rows: Rows) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir });
  async function rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await store.db.executeQuery<T>(CompiledQuery.raw(text, values))).rows as T[];
  }
  try {
    return await use(rows);
  } finally {
    await store.close();
  }
}

/**
 * What makes a round fail besides the data checks: a kill that landed before any acknowledged write or with
 * no write in flight (the round would check nothing), and any error a client saw other than a refusal or a cut.
 */
export function roundFailures(ledger: Ledger): string[] {
  const failures: string[] = [];
  if (ledger.atKill.acked < 1) failures.push(`${ledger.tag}: killed before any write was acknowledged`);
  if (ledger.atKill.inFlight < 1) failures.push(`${ledger.tag}: killed with no write in flight`);
  for (const kind of Object.keys(ledger.errors)) {
    if (kind !== CUT && !CRASH_REFUSALS.has(kind)) failures.push(`${ledger.tag}: a client saw ${kind}`);
  }
  return failures;
}

export function tally(summary: Summary, ledger: Ledger): void {
  summary.faults++;
  summary.operations += ledger.sent;
  for (const [kind, n] of Object.entries(ledger.errors)) summary.errors[kind] = (summary.errors[kind] ?? 0) + n;
}

export function medians(ledgers: Ledger[]): string {
  const median = (pick: (l: Ledger) => number) => {
    const sorted = ledgers.map(pick).sort((a, b) => a - b);
    return ((sorted[Math.floor(sorted.length / 2)] ?? 0) / 1000).toFixed(2);
  };
  return (
    `${ledgers.length} rounds; median from spawn: listening ${median((l) => l.ms.listening)} s, first write acknowledged ` +
    `${median((l) => l.ms.firstAck)} s, process gone ${median((l) => l.ms.gone)} s; server CPU at listening ` +
    `${median((l) => l.cpu.listening)} s, at the kill ${median((l) => l.cpu.killed)} s`
  );
}

/**
 * V8 flags for the embedded servers. A killed server lives about a second, in which V8's optimising tier spends
 * more CPU compiling PGlite's 9 MB of WebAssembly than the code it makes saves: measured here, the server's CPU
 * to its first acknowledged batch falls by a third (and writes before the kill run about three times faster);
 * a warm server is as fast either way. The flag only chooses how V8 compiles the same code.
 */
const LIFTOFF_ONLY = ['--liftoff-only'];

/**
 * The embedded crash part: `lanes` data directories side by side (the embedded database serves one process, so
 * each has its own server), each killed in turn until `kills` kills in all; then each directory is opened in
 * this process, under its lock, and checked.
 */
export async function embeddedCrashes(kills: number, lanes: number, windowMs: number, summary: Summary): Promise<{ failures: string[]; ledgers: Ledger[] }> {
  const base: NodeJS.ProcessEnv = { ...process.env, SVC_LOG_LEVEL: 'silent' };
  delete base.SVC_DATABASE_URL;
  delete base.SVC_DEFAULT_ACTOR_ID;
  const dirs = Array.from({ length: lanes }, () => join(mkdtempSync(join(tmpdir(), 'svc-rel-')), 'data'));
  const first = { ...base, SVC_DATA_DIR: dirs[0] };
  await cli(first, ['project', 'create', 'rel']);
  const actor = (JSON.parse(await cli(first, ['actor', 'add', '--email', 'embedded@example.test', '--json'])) as { id: string }).id;
  // One initialised directory copied: each lane starts from the same project and actor without another initdb.
  for (const dir of dirs.slice(1)) cpSync(dirs[0] as string, dir, { recursive: true });
  const failures: string[] = [];
  const perLane = await Promise.all(
    dirs.map(async (dir, lane) => {
      const ledgers: Ledger[] = [];
      for (let round = lane; round < kills; round += lanes) {
        let ledger: Ledger;
        try {
          ledger = await crashRound({ ...base, SVC_DATA_DIR: dir }, actor, `e${lane}r${round}`, windowMs, LIFTOFF_ONLY);
        } catch (error) {
          failures.push(`e${lane}r${round}: ${(error as Error).message}`);
          break;
        }
        ledgers.push(ledger);
        tally(summary, ledger);
        failures.push(...roundFailures(ledger));
      }
      const { checked, problems } = await withEmbedded(dir, (rows) => checkCrashes(rows, ledgers, `^e${lane}r[0-9]+`));
      summary.invariants += checked;
      summary.violations += problems.length;
      failures.push(...problems.map((p) => `lane ${lane}: ${p}`));
      if (problems.length === 0) rmSync(dirname(dir), { recursive: true, force: true });
      return ledgers;
    }),
  );
  return { failures, ledgers: perLane.flat() };
}
