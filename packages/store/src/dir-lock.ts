import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, type Stats, writeFileSync, writeSync } from 'node:fs';
import { isIP } from 'node:net';
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
  /** Name the socket this holder serves the data directory on, for the processes that come after it. */
  publish(socket: string): void;
  release(): void;
}

export interface DirLockHolder {
  pid: number;
  host: string;
  started_at: string;
  command: string;
  /** The Unix socket the holder serves the database on (session-server.ts); absent while it starts. */
  socket?: string;
}
type Holder = DirLockHolder;

function lockPathFor(dataDir: string): string {
  const abs = resolve(dataDir);
  return join(dirname(abs), `.${abs.split(/[\\/]/).pop() ?? 'data'}.lock`);
}

/**
 * What svc finds beside a data directory (its lock, announcements, socket) is trusted only if this user made it. The
 * files sit in the data directory's parent, which may be a folder others can write (`SVC_DATA_DIR=/tmp/…`): there
 * an attacker planted a lock naming their own server's socket, and every read and write of the victim's svc went to
 * the attacker's database; a planted announcement made `svc init` print the attacker's URL (2026-11-28).
 * `lstat`: a symbolic link is never followed, whoever owns it.
 */
function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** This process's user id, or undefined where the platform has none (Windows: nothing to compare). */
const myUid = (): number | undefined => process.getuid?.();

/** Whether `stat` is of this user's (where users exist). */
function mine(stat: Stats): boolean {
  const uid = myUid();
  return uid === undefined || stat.uid === uid;
}

/**
 * Refuse what another user made beside the data directory, or anything but `kind` (a lock file that is a link,
 * a socket's folder others may enter). Returns whether it exists.
 */
export function assertOwnPlace(path: string, kind: 'file' | 'private dir' | 'socket'): boolean {
  const stat = lstatOrUndefined(path);
  if (stat === undefined) return false;
  const right = kind === 'file' ? stat.isFile() : kind === 'socket' ? stat.isSocket() : stat.isDirectory() && (myUid() === undefined || (stat.mode & 0o077) === 0);
  if (mine(stat) && right) return true;
  const what = !mine(stat) ? `belongs to another user (uid ${stat.uid})` : kind === 'private dir' ? 'is not a folder only you can enter' : `is not a ${kind === 'file' ? 'regular file' : 'socket'}`;
  throw new SvcError(
    'unavailable',
    `${path} ${what}, so svc will not trust it: someone else may be trying to serve or read this embedded database. ` +
      'Keep the data directory in a folder only you can write (SVC_DATA_DIR), or remove that file if you know where it comes from.',
    { path },
  );
}

function readHolder(path: string): Holder | undefined {
  if (!assertOwnPlace(path, 'file')) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

/**
 * Write `data` to a new file `path` (never through a link or file someone left there) and rename it over `to`, so a
 * reader never sees half a file.
 */
function replaceFile(path: string, to: string, data: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, data, { mode: 0o600, flag: 'wx' });
  renameSync(path, to);
}

/** The process holding the data directory's lock, if any (alive or not). */
export function readDirLockHolder(dataDir: string): DirLockHolder | undefined {
  return readHolder(lockPathFor(dataDir));
}

function isAlive(holder: Pick<Holder, 'pid' | 'host'>): boolean {
  if (holder.host !== hostname()) return true; // cannot tell; a shared volume from another host counts as held
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function refusal(dataDir: string, holder: Holder | undefined): SvcError {
  const who = holder
    ? `process ${holder.pid} on ${holder.host} (started ${holder.started_at}: ${holder.command})`
    : 'another process';
  return new SvcError(
    'unavailable',
    `the embedded database at ${resolve(dataDir)} is in use by ${who}, which does not serve it to this process ` +
      '(it runs on another host, or is an svc from before sharing, or never finished starting). Stop that process; ' +
      'or connect to it instead (its HTTP server\'s /mcp endpoint or REST API); or use PostgreSQL for several ' +
      'machines (set SVC_DATABASE_URL).',
    { data_dir: resolve(dataDir), holder: holder ?? null },
  );
}

/** Lock files this process holds: a second open in the same process is refused too. */
const heldHere = new Set<string>();

export function acquireDirLock(dataDir: string): DirLock {
  const lock = tryAcquireDirLock(dataDir);
  if (lock === undefined) throw refusal(dataDir, readHolder(lockPathFor(dataDir)));
  return lock;
}

/** Take the lock, or return undefined while a live process (or this one) holds it. */
export function tryAcquireDirLock(dataDir: string): DirLock | undefined {
  // A parent svc creates (./.svc) is private like the data directory itself (connection.ts, privateDataDir).
  mkdirSync(dirname(resolve(dataDir)), { recursive: true, mode: 0o700 });
  const path = lockPathFor(dataDir);
  if (heldHere.has(path)) return undefined;
  const me: Holder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    command: process.argv.slice(1).join(' ').slice(0, 200),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      heldHere.add(path);
      let released = false;
      return {
        path,
        publish(socket) {
          replaceFile(`${path}.${process.pid}.next`, path, JSON.stringify({ ...me, socket }));
        },
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
    if (holder && isAlive(holder)) return undefined;
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
      return undefined;
    }
    rmSync(claimed, { force: true });
  }
  return undefined;
}

/** A `svc serve http` serving an embedded data directory, as it announced itself beside it: its process and where it listens. */
export interface AnnouncedServer {
  pid: number;
  /** The address it listens on, as given (an IP literal or a host name), and its port. */
  bind: string;
  port: number;
}

/** `.data.http.<pid>` beside the data directory: one per serving process, as several may share it (decision 0024). */
function announcePrefixFor(dataDir: string): string {
  return `${lockPathFor(dataDir).replace(/\.lock$/, '.http')}.`;
}

/**
 * Announce beside `dataDir` that this process serves it over HTTP on `bind`:`port`, so that `svc init` run without
 * the server's settings names the URL that answers. Returns the withdrawal, for the server's shutdown; one left by a
 * process that died is passed over by readers (its process is gone, or no svc answers at its address).
 */
export function announceServer(dataDir: string, bind: string, port: number): () => void {
  const path = `${announcePrefixFor(dataDir)}${process.pid}`;
  const me = { pid: process.pid, host: hostname(), bind, port, started_at: new Date().toISOString() };
  replaceFile(`${path}.next`, path, JSON.stringify(me));
  return () => rmSync(path, { force: true });
}

function readAnnouncement(path: string): (AnnouncedServer & { host: string; started_at: string }) | undefined {
  try {
    // Another user's announcement is passed over: it would send this user's assistant to their server.
    const stat = lstatSync(path);
    if (!stat.isFile() || !mine(stat)) return undefined;
    const read = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const { pid, host, bind, port, started_at } = read;
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0 || typeof host !== 'string' || typeof started_at !== 'string') return undefined;
    if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535) return undefined;
    // An address to connect to: an IP literal or a host name, nothing that would make another URL of it.
    if (typeof bind !== 'string' || (isIP(bind) === 0 && !/^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/i.test(bind))) return undefined;
    return { pid: pid as number, host, bind, port: port as number, started_at };
  } catch {
    return undefined;
  }
}

/**
 * The servers announced beside `dataDir` (announceServer) whose process is alive on this host, the latest first. A
 * process id can be reused after a crash: a caller that must be sure asks the address itself.
 */
export function announcedServers(dataDir: string): AnnouncedServer[] {
  const prefix = announcePrefixFor(dataDir);
  let names: string[];
  try {
    names = readdirSync(dirname(prefix));
  } catch {
    return [];
  }
  const base = prefix.slice(dirname(prefix).length + 1);
  const live: NonNullable<ReturnType<typeof readAnnouncement>>[] = [];
  for (const name of names) {
    if (!name.startsWith(base) || !/^\d+$/.test(name.slice(base.length))) continue;
    const found = readAnnouncement(join(dirname(prefix), name));
    if (found !== undefined && found.host === hostname() && isAlive(found)) live.push(found);
  }
  live.sort((a, b) => b.started_at.localeCompare(a.started_at));
  return live.map(({ pid, bind, port }) => ({ pid, bind, port }));
}
