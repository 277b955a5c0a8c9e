import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmptyPostgresDatabase } from '@svc/service/testing';
import pg from 'pg';

/**
 * The `svc` binary as `pnpm svc` runs it, for tests that spawn real processes. Test-only (excluded from the
 * build): every helper here starts `node --conditions=@svc/source --import tsx apps/cli/src/main.ts`, or, with
 * SVC_TEST_CLI_BUILD=1 (set by .ci/run, which builds first), `node apps/cli/dist/main.js`: compiling the source on
 * every start cost 3–4 s a process, and the CLI suite was most of CI's test stage (15 of its minutes, 2026-11-28).
 * Locally the source runs, so a test never meets a stale build.
 */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const BUILT = process.env.SVC_TEST_CLI_BUILD === '1';
const MAIN = fileURLToPath(new URL(BUILT ? '../../dist/main.js' : '../main.ts', import.meta.url));
const NODE_ARGS = BUILT ? [MAIN] : ['--conditions=@svc/source', '--import', 'tsx', MAIN];

/** The arguments to `process.execPath` that run `svc args…` (for clients that spawn svc themselves). */
export function svcArgs(args: string[]): string[] {
  return [...NODE_ARGS, ...args];
}

export type Env = Record<string, string | undefined>;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a spawned svc: this process's, minus every SVC_ setting (so neither the developer's
 * shell nor CI leaks a database or an actor into a test), plus `extra`.
 */
export function svcEnv(extra: Env = {}): Env {
  const env: Env = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('SVC_')) env[key] = value;
  return { ...env, SVC_LOG_LEVEL: 'warn', ...extra };
}

/** A fresh embedded data directory (its parent is a new temp dir, so the lock file beside it is private). */
export function freshDataDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-cli-')), 'data');
}

/** Run `svc args…` to completion. */
export function svc(args: string[], env: Env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      svcArgs(args),
      { cwd: REPO_ROOT, env: env as NodeJS.ProcessEnv, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ code: typeof code === 'number' ? code : -1, stdout, stderr });
      },
    );
  });
}

/**
 * Run `svc args… --json`, expecting success, and parse stdout. Parsing the whole of stdout (not a line of
 * it) is the point: with --json, stdout carries the result and nothing else.
 */
export async function svcJson<T = Record<string, unknown>>(args: string[], env: Env): Promise<T> {
  const run = await svc([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`svc ${args.join(' ')} --json exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

export interface Started {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
  /** Date.now() when the process last wrote to stderr (0 before it has). */
  lastStderrAt(): number;
}

/** Start `svc args…` without waiting for it, for commands that keep running (servers). */
export function spawnSvc(args: string[], env: Env): Started {
  const child = spawn(process.execPath, svcArgs(args), {
    cwd: REPO_ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let stderrAt = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    stderrAt = Date.now();
  });
  // 'close', not 'exit': by then stdout and stderr have been read to the end.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => ({ stdout, stderr }), lastStderrAt: () => stderrAt };
}

export interface Server extends Started {
  readonly url: string;
}

/** Start `svc serve http …` and wait for its "svc listening on URL" line on stderr. */
export async function serveHttp(env: Env, args: string[] = ['--port', '0']): Promise<Server> {
  const started = spawnSvc(['serve', 'http', ...args], env);
  const url = await new Promise<string>((resolve, reject) => {
    started.child.stderr?.on('data', () => {
      const match = /svc listening on (http:\/\/\S+)/.exec(started.output().stderr);
      if (match) resolve(match[1] as string);
    });
    void started.exited.then(({ code, signal }) =>
      reject(new Error(`svc serve http exited (${code ?? signal}) before listening: ${started.output().stderr}`)),
    );
  });
  return { ...started, url };
}

/** The holders recorded in lock files beside an embedded data directory (see freshDataDir). */
export function lockHolders(dataDir: string): { pid: number }[] {
  return readdirSync(dirname(dataDir))
    .filter((f) => f.endsWith('.lock'))
    .map((f) => JSON.parse(readFileSync(join(dirname(dataDir), f), 'utf8')) as { pid: number });
}

/** The migrations this checkout ships, read from the files themselves: id and the release of its header. */
export function shippedMigrations(): { id: string; release: string }[] {
  const dir = join(REPO_ROOT, 'migrations');
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.slice(0, 4), release: /^--\s*release:\s*(\S+)/m.exec(readFileSync(join(dir, f), 'utf8'))?.[1] ?? '?' }));
}

/** A fresh PostgreSQL database that `svc migrate` set up, the env that points svc at it, and a client on it. */
export interface MigratedPostgres {
  env: Env;
  /** For rows a test seeds or reads directly (items can only be written through the service's tools). */
  client: pg.Client;
  /** End the client and drop the database. */
  close(): Promise<void>;
}

/** Needs SVC_TEST_DATABASE_URL (createEmptyPostgresDatabase); the caller skips without it. */
export async function migratedPostgres(): Promise<MigratedPostgres> {
  const db = await createEmptyPostgresDatabase();
  if (!db) throw new Error('migratedPostgres needs SVC_TEST_DATABASE_URL');
  const env = svcEnv({ SVC_DATABASE_URL: db.url });
  const migrated = await svc(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`svc migrate failed: ${migrated.stderr}`);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return {
    env,
    client,
    async close() {
      await client.end();
      await db.drop();
    },
  };
}

/** Seed a decision row directly, with the id given (tests that need known ids or prefixes). */
export async function seedDecision(client: pg.Client, projectId: string, id: string, title: string): Promise<void> {
  await client.query("insert into items (id, chain_id, project_id, item_type, title, context) values ($1, $1, $2, 'decision', $3, '{}')", [id, projectId, title]);
}
