import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { expect } from 'vitest';

export const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The built binary (the suite runs `pnpm build` first): a server starts in well under a second. */
export const SVC = [fileURLToPath(new URL('../apps/cli/dist/main.js', import.meta.url))];

export interface Server {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** `nodeArgs` go to node itself (V8 flags), before the binary. */
export async function serve(env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [...nodeArgs, ...SVC, 'serve', 'http', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1] as string);
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${seen.slice(-2000)}`)));
  });
  return { url, child, exited };
}

export async function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [...SVC, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function http(base: string, method: string, path: string, body?: unknown, actor?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(actor ? { 'X-Actor': actor } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, body: parsed };
}

/** Runs one SQL statement and returns its rows: over a pg connection, or in an embedded database. */
export type Rows = <T extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<T[]>;

/** One connection for a series of statements (a connection per statement costs a backend start each). */
export async function withRows<T>(url: string, use: (rows: Rows) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(async (text, values) => (await client.query(text, values)).rows);
  } finally {
    await client.end();
  }
}

/** The invariants every part checks after its faults. Returns the violations found (none is success). */
export async function invariants(rows: Rows): Promise<string[]> {
  const problems: string[] = [];
  const heads = await rows<{ chain_id: string; n: number }>('select chain_id, count(*) filter (where is_head)::int as n from items group by chain_id having count(*) filter (where is_head) <> 1');
  if (heads.length > 0) problems.push(`${heads.length} chain(s) without exactly one head`);
  const running = await rows<{ work_unit_id: string; n: number }>(
    "select work_unit_id, count(*)::int as n from items where item_type = 'task' and status = 'in_progress' and is_head and deleted_at is null group by work_unit_id having count(*) > 1",
  );
  if (running.length > 0) problems.push(`${running.length} work unit(s) with two tasks in progress`);
  const unattributed = await rows<{ n: number }>("select count(*)::int as n from audit_log where source in ('http', 'mcp') and actor_id is null");
  if ((unattributed[0]?.n ?? 0) > 0) problems.push(`${unattributed[0]?.n} HTTP/MCP write(s) in audit_log without an actor`);
  return problems;
}

export interface Summary {
  part: string;
  /** Added while a test ran (a part's own row); rows declared at load time belong to tests that may be skipped. */
  inTest: boolean;
  operations: number;
  faults: number;
  errors: Record<string, number>;
  invariants: number;
  violations: number;
}

export const summaries: Summary[] = [];

/** Whether a test is running now (false at load time, in hooks, and outside vitest). */
function inATest(): boolean {
  try {
    return expect.getState().currentTestName !== undefined;
  } catch {
    return false;
  }
}

/** A row of the summary table, in the order the parts are declared. */
export function addSummary(part: string, faults = 0): Summary {
  const inTest = inATest();
  const summary: Summary = { part, inTest, operations: 0, faults, errors: {}, invariants: 0, violations: 0 };
  summaries.push(summary);
  return summary;
}

export function count(errors: Record<string, number>, kind: string): void {
  errors[kind] = (errors[kind] ?? 0) + 1;
}

const kinds = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .sort()
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ') || 'none';

const TABLE_HEAD = ['| part | operations | faults injected | errors by kind | invariants checked | violations |', '|---|---|---|---|---|---|'];

function row(s: Summary): string {
  return `| ${s.part} | ${s.operations} | ${s.faults} | ${kinds(s.errors)} | ${s.invariants} | ${s.violations} |`;
}

/**
 * The summary table. `carried` (a filtered run's) holds the previous report's rows by part: a part this run
 * did not run keeps its previous row, so `-t` never leaves a report with rows missing or half counted.
 */
export function table(carried?: Map<string, string>): string {
  if (!carried) return [...TABLE_HEAD, ...summaries.map(row)].join('\n');
  const fresh = new Map(summaries.filter((s) => s.inTest).map((s) => [s.part, row(s)]));
  const rows = [...carried].map(([part, line]) => ({ part, line: fresh.get(part) ?? line.replace(`| ${part} |`, `| ${part} † |`) }));
  // A part new since the previous report goes after the part declared before it.
  summaries.forEach((s, i) => {
    if (!s.inTest || carried.has(s.part)) return;
    const after = rows.findIndex((r) => r.part === summaries[i - 1]?.part);
    rows.splice(after === -1 ? rows.length : after + 1, 0, { part: s.part, line: row(s) });
  });
  return [...TABLE_HEAD, ...rows.map((r) => r.line)].join('\n');
}

/**
 * One door of issue 16 as the hostile part tried it: the generated inputs, through which surfaces, and what
 * came back. `failures` counts a 5xx, an internal_error or unavailable, a transport failure, a refusal that
 * wrote, or an answer other than the refusal the door must give.
 */
export interface Probe {
  door: string;
  surfaces: string;
  tried: string;
  calls: number;
  answers: Record<string, number>;
  failures: number;
}

export const probes: Probe[] = [];

export function addProbe(door: string, surfaces: string, tried: string): Probe {
  const probe: Probe = { door, surfaces, tried, calls: 0, answers: {}, failures: 0 };
  probes.push(probe);
  return probe;
}

export function probeTable(): string {
  return [
    '| door (issue 16) | surfaces | what was tried (generated with fast-check unless named) | calls | answers | failures |',
    '|---|---|---|---|---|---|',
    ...probes.map((p) => `| ${p.door} | ${p.surfaces} | ${p.tried} | ${p.calls} | ${kinds(p.answers)} | ${p.failures} |`),
  ].join('\n');
}

const HOSTILE_HEADING = '## Hostile input: what part 3 tries';

const HOSTILE_PROSE = `Part 3 sends generated hostile values (1.2 MB strings, 2,000-deep objects, NUL bytes, lone surrogates, SQL
and query-dialect syntax, prototype-pollution objects, malformed UUIDs, extreme numbers, random binary strings) to
every parameter of every tool, each call over MCP (/mcp) and over REST, and after each refusal checks that the row
counts of the written tables did not move. Part 3b then tries each door the independent probe of issue 16 found
open, one table row each: a foreign \`Host\` or \`Origin\` on every route and on /mcp (403), a write that is not
\`application/json\` (415), a body \`actor_id\` contradicting \`X-Actor\` (refused naming \`actor_id\`), crafted
export files through \`svc import\` processes (exit 1, the message names the line, nothing written), values nested
past 64 levels up to 5,000 (refused naming the parameter, 64 itself accepted), writes of a custom type whose
schema says \`pattern: "^(a+)+$"\` with catastrophic strings while /health is polled (each write and each poll
timed), prototype keys as query parameters, body keys and MCP arguments (400 naming the key), and searches over a
500-term glossary group with long OR queries (answered or refused as too long, never unavailable). A refused call
must leave the row count of every table as it was (audit_log included, which every write adds to); any 500,
internal_error, unavailable or transport failure fails the part.`;

function hostileSection(previous: string | undefined): string {
  if (probes.length === 0) {
    const kept = previous?.slice(previous.indexOf(HOSTILE_HEADING)).trimEnd();
    return kept && previous?.includes(HOSTILE_HEADING) ? `\n${kept}\n` : '';
  }
  return `\n${HOSTILE_HEADING}\n\n${HOSTILE_PROSE}\n\n${probeTable()}\n`;
}

const REPORT = new URL('../docs/reliability.md', import.meta.url);

/** The rows of a report's summary table, by part, in order (the † of a carried row dropped). */
function previousRows(text: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of text.split('\n')) {
    const part = /^\| ([^|]+?)( †)? \| \d/.exec(line)?.[1];
    if (part && !line.startsWith('| door')) rows.set(part, line.replace(`| ${part} † |`, `| ${part} |`));
  }
  return rows;
}

/**
 * Write docs/reliability.md. A filtered run (`filtered`: some test of the suite was skipped, as with \`-t\`)
 * keeps the previous rows of the parts it skipped, marked †, instead of dropping them.
 */
export function writeReport(seconds: number, filtered = false): void {
  const previous = existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : undefined;
  const carried = filtered && previous ? previousRows(previous) : undefined;
  const summaryTable = table(carried?.size ? carried : undefined);
  const note = carried?.size
    ? `\nThis run was filtered (\`-t\`): rows marked † are parts it did not run, carried over from the previous report.\n`
    : '';
  const text = `# Reliability

Produced by \`pnpm test:reliability\` (run by \`.ci/run\`) on ${new Date().toISOString().slice(0, 10)}, in ${seconds} s, on a
${process.arch} machine with Node ${process.version}. Each part runs against real processes: \`svc serve http\` from the
built binary, a PostgreSQL cluster of the suite's own on a free port (stopped, restarted and cut off here, never the
shared server), and the embedded database for the crash part. "Errors by kind" counts what callers saw; refusals
(conflict, refused_transition) are the service working, unavailable is a fault reported cleanly, "cut by the kill" is
a request the kill interrupted; a 500 or an internal_error would be a failure.

In the two crash rows the faults are kill -9s of the server process, one per round, on PostgreSQL and on the
embedded database (two data directories side by side, killed in turn). Every kill lands after at least one write
was acknowledged and while writes are in flight (a round without both fails). After the restart, every decision
batch is whole or absent, every acknowledged write is present (decision ids, work units, task transitions at least
as far as acknowledged), every chain has one head and no work unit two tasks in progress: PostgreSQL is checked
after each round, each embedded directory after its last round, opened under its lock (a round writes only its
own rows, so a loss or a split would still be there).
${note}
${summaryTable}
${hostileSection(previous)}`;
  writeFileSync(REPORT, text);
}

interface TaskLike {
  mode: string;
  tasks?: readonly TaskLike[];
}

/** Whether any test under `suite` was skipped (a run filtered with `-t`, or a `.skip`). */
export function anySkipped(suite: TaskLike): boolean {
  return (suite.tasks ?? []).some((task) => (task.tasks ? anySkipped(task) : task.mode === 'skip' || task.mode === 'todo'));
}
