import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDirLock, announcedServer, announceServer } from './dir-lock.js';

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

describe('the HTTP server announced beside a data directory', () => {
  it('names a live server on this host, and nothing for a dead one, another host or a crafted address', async () => {
    const dir = tempDataDir();
    const path = join(dir, '..', '.data.http');
    expect(announcedServer(dir)).toBeUndefined();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    const host = (await import('node:os')).hostname();
    try {
      const write = (fields: Record<string, unknown>) => writeFileSync(path, JSON.stringify({ pid: child.pid, host, bind: '127.0.0.1', port: 18089, ...fields }));
      write({});
      expect(announcedServer(dir)).toEqual({ pid: child.pid, bind: '127.0.0.1', port: 18089 });
      write({ bind: '::1' });
      expect(announcedServer(dir)?.bind).toBe('::1');
      for (const crafted of [{ bind: 'evil.example' }, { bind: '127.0.0.1/x' }, { port: 0 }, { port: '80' }, { pid: -1 }, { host: 'elsewhere' }]) {
        write(crafted);
        expect(announcedServer(dir), JSON.stringify(crafted)).toBeUndefined();
      }
      writeFileSync(path, '{not json');
      expect(announcedServer(dir)).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.on('exit', r));
    writeFileSync(path, JSON.stringify({ pid: child.pid, host, bind: '127.0.0.1', port: 18089 }));
    expect(announcedServer(dir)).toBeUndefined();
    // This process's own announcement is withdrawn; another's, announced since, is left.
    const withdraw = announceServer(dir, '127.0.0.1', 9999);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, port: 9999 });
    withdraw();
    expect(existsSync(path)).toBe(false);
    const stale = announceServer(dir, '127.0.0.1', 9999);
    writeFileSync(path, JSON.stringify({ pid: 1, host, bind: '127.0.0.1', port: 1234 }));
    stale();
    expect(existsSync(path)).toBe(true);
  });
});
