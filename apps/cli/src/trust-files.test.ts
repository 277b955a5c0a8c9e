import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, type Run, svcArgs, svcEnv } from './testing/svc-process.js';

/** Run `svc args…` from a shell whose umask is 022, as a login shell usually has. */
function svcUnderUmask022(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const quoted = [process.execPath, ...svcArgs(args)].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', `umask 022; exec ${quoted}`], { cwd: REPO_ROOT, env: env as NodeJS.ProcessEnv }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      resolve({ code: typeof code === 'number' ? code : -1, stdout, stderr });
    });
  });
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('files the svc binary writes', () => {
  it('creates the embedded data directory and the .svc above it 0700 under umask 022', async () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-modes-'));
    const dataDir = join(root, '.svc', 'data');
    const run = await svcUnderUmask022(['project', 'create', 'p'], svcEnv({ SVC_DATA_DIR: dataDir }));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(mode(join(root, '.svc'))).toBe(0o700);
    // PGlite's own files follow the umask; a 0700 directory keeps every one of them from other users.
    expect(mode(dataDir)).toBe(0o700);
  }, 120_000);

  it('tightens an existing data directory it owns to 0700 when it opens it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-modes-'));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    chmodSync(root, 0o755);
    const run = await svcUnderUmask022(['project', 'create', 'p'], svcEnv({ SVC_DATA_DIR: dataDir }));
    expect(run.code).toBe(0);
    expect(mode(dataDir)).toBe(0o700);
    // A parent that existed before is the user's: svc leaves it as it was.
    expect(mode(root)).toBe(0o755);
  }, 120_000);
});
