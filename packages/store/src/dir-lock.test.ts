import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDirLock, announcedServers, announceServer } from './dir-lock.js';

function tempDataDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-lock-')), 'data');
}

describe('embedded data directory lock', () => {
  it('refuses a second holder while the first is alive, naming it and the ways out', async () => {
    const dir = tempDataDir();
    const lockPath = join(dir, '..', '.data.lock');
    // A live process other than us holds the lock.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(lockPath, JSON.stringify({ pid: child.pid, host: (await import('node:os')).hostname(), started_at: 'then', command: 'svc serve http' }));
      expect(() => acquireDirLock(dir)).toThrow(/in use by process \d+.*SVC_DATABASE_URL/s);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over a stale lock left by a process that died', async () => {
    const dir = tempDataDir();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => child.on('exit', r));
    const lockPath = join(dir, '..', '.data.lock');
    writeFileSync(lockPath, JSON.stringify({ pid: child.pid, host: (await import('node:os')).hostname(), started_at: 'then', command: 'dead' }));
    const lock = acquireDirLock(dir);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('refuses a second acquisition in the same process until the first is released', () => {
    const dir = tempDataDir();
    const first = acquireDirLock(dir);
    expect(() => acquireDirLock(dir)).toThrow(/in use by process/);
    first.release();
    const second = acquireDirLock(dir);
    second.release();
  });
});

describe('the HTTP servers announced beside a data directory', () => {
  it('names each live server on this host, the latest first, and none dead, elsewhere or with a crafted address', async () => {
    const dir = tempDataDir();
    expect(announcedServers(dir)).toEqual([]);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    const host = (await import('node:os')).hostname();
    const path = (pid: number | undefined) => join(dir, '..', `.data.http.${pid}`);
    const write = (fields: Record<string, unknown>, pid = child.pid) =>
      writeFileSync(path(pid), JSON.stringify({ pid, host, bind: '127.0.0.1', port: 18089, started_at: '2026-11-27T10:00:00Z', ...fields }));
    try {
      write({});
      write({ port: 18090, started_at: '2026-11-27T11:00:00Z' }, other.pid);
      // Two servers share the directory (decision 0024): both are named, the latest first.
      expect(announcedServers(dir)).toEqual([
        { pid: other.pid, bind: '127.0.0.1', port: 18090 },
        { pid: child.pid, bind: '127.0.0.1', port: 18089 },
      ]);
      rmSync(path(other.pid));
      write({ bind: '::1' });
      expect(announcedServers(dir)[0]?.bind).toBe('::1');
      write({ bind: 'box.local' });
      expect(announcedServers(dir)[0]?.bind).toBe('box.local');
      for (const crafted of [{ bind: 'evil.example/x' }, { bind: 'a@b' }, { bind: '127.0.0.1:99' }, { port: 0 }, { port: '80' }, { pid: -1 }, { host: 'elsewhere' }]) {
        write(crafted);
        expect(announcedServers(dir), JSON.stringify(crafted)).toEqual([]);
      }
      writeFileSync(path(child.pid), '{not json');
      expect(announcedServers(dir)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      other.kill('SIGKILL');
    }
    await new Promise((r) => child.on('exit', r));
    write({});
    expect(announcedServers(dir)).toEqual([]);
    // This process's announcement is its own file, withdrawn on shutdown; another's stays.
    write({}, 1);
    const withdraw = announceServer(dir, '127.0.0.1', 9999);
    expect(JSON.parse(readFileSync(path(process.pid), 'utf8'))).toMatchObject({ pid: process.pid, port: 9999 });
    withdraw();
    expect(existsSync(path(process.pid))).toBe(false);
    expect(existsSync(path(1))).toBe(true);
  });
});
