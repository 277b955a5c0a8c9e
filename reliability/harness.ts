import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

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
  operations: number;
  faults: number;
  errors: Record<string, number>;
  invariants: number;
  violations: number;
}

export const summaries: Summary[] = [];

/** A row of the summary table, in the order the parts are declared. */
export function addSummary(part: string, faults = 0): Summary {
  const summary: Summary = { part, operations: 0, faults, errors: {}, invariants: 0, violations: 0 };
  summaries.push(summary);
  return summary;
}

export function count(errors: Record<string, number>, kind: string): void {
  errors[kind] = (errors[kind] ?? 0) + 1;
}

export function table(): string {
  const rows = summaries.map(
    (s) =>
      `| ${s.part} | ${s.operations} | ${s.faults} | ${Object.entries(s.errors)
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ') || 'none'} | ${s.invariants} | ${s.violations} |`,
  );
  return ['| part | operations | faults injected | errors by kind | invariants checked | violations |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

export function writeReport(seconds: number): void {
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

${table()}
`;
  writeFileSync(new URL('../docs/reliability.md', import.meta.url), text);
}
