import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { SvcError } from '@svc/domain';

/**
 * PGlite has no lock between processes: two processes on one data directory silently lose each other's
 * writes. The embedded store therefore holds an exclusive lock file beside its data directory. A lock whose
 * process is gone (killed, crashed) is stale and is taken over, so a crash never blocks a restart.
 */
export interface DirLock {
  readonly path: string;
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  started_at: string;
  command: string;
}

function lockPathFor(dataDir: string): string {
  const abs = resolve(dataDir);
  return join(dirname(abs), `.${abs.split(/[\\/]/).pop() ?? 'data'}.lock`);
}

function readHolder(path: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

function isAlive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true; // cannot tell; a shared volume from another host counts as held
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function refusal(dataDir: string, holder: Holder | undefined): SvcError {
  const who = holder
    ? `process ${holder.pid} on ${holder.host} (started ${holder.started_at}: ${holder.command})`
    : 'another process';
  return new SvcError(
    'unavailable',
    `the embedded database at ${resolve(dataDir)} is in use by ${who}. The embedded database serves one process ` +
      'at a time. Stop that process; or connect to it instead (run `svc serve http` once and point clients at its ' +
      '/mcp endpoint or REST API); or use PostgreSQL for several processes (set SVC_DATABASE_URL).',
    { data_dir: resolve(dataDir), holder: holder ?? null },
  );
}

/** Lock files this process holds: a second open in the same process is refused too. */
const heldHere = new Set<string>();

export function acquireDirLock(dataDir: string): DirLock {
  mkdirSync(dirname(resolve(dataDir)), { recursive: true });
  const path = lockPathFor(dataDir);
  if (heldHere.has(path)) throw refusal(dataDir, readHolder(path));
  const me: Holder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    command: process.argv.slice(1).join(' ').slice(0, 200),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      heldHere.add(path);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          heldHere.delete(path);
          const current = readHolder(path);
          if (current?.pid === me.pid && current.started_at === me.started_at) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(path);
    if (holder && isAlive(holder)) throw refusal(dataDir, holder);
    // Stale (or half-written by a process that died mid-write): claim it by an atomic rename, so of two
    // processes taking over at once only one moves the stale file away; then check it was the stale one.
    const claimed = `${path}.${process.pid}.stale`;
    try {
      renameSync(path, claimed);
    } catch {
      continue;
    }
    const moved = readHolder(claimed);
    if (moved && isAlive(moved)) {
      renameSync(claimed, path);
      throw refusal(dataDir, moved);
    }
    rmSync(claimed, { force: true });
  }
  throw refusal(dataDir, readHolder(path));
}
