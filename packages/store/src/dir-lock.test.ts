import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDirLock } from './dir-lock.js';

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
