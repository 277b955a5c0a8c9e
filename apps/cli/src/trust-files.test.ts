import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDataDir, lockHolders, migratedPostgres, REPO_ROOT, type Run, serveHttp, svc, svcArgs, svcEnv, svcJson } from './testing/svc-process.js';

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

  it('`export --out` writes a new file 0600, makes an existing one 0600, and refuses a symbolic link planted at the path, writing nothing', async () => {
    const env = svcEnv({ SVC_DATA_DIR: freshDataDir() });
    const dir = mkdtempSync(join(tmpdir(), 'svc-out-'));
    expect((await svc(['project', 'create', 'p'], env)).code).toBe(0);
    const out = join(dir, 'p.jsonl');
    const written = await svcUnderUmask022(['export', 'p', '--out', out], env);
    expect(written.code).toBe(0);
    expect(mode(out)).toBe(0o600);
    expect(readFileSync(out, 'utf8')).toContain('"type":"project"');
    // A file that was there already, readable by others, is made 0600 before the export goes in.
    const existing = join(dir, 'existing.jsonl');
    writeFileSync(existing, 'old text that is longer than nothing\n'.repeat(200));
    chmodSync(existing, 0o644);
    expect((await svc(['export', 'p', '--out', existing], env)).code).toBe(0);
    expect(mode(existing)).toBe(0o600);
    expect(readFileSync(existing, 'utf8')).toBe(readFileSync(out, 'utf8'));

    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    const planted = join(dir, 'planted.jsonl');
    symlinkSync(victim, planted);
    const refused = await svc(['export', 'p', '--out', planted], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`invalid_input: --out: ${planted} is a symbolic link`);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    const dangling = join(dir, 'dangling.jsonl');
    symlinkSync(join(dir, 'not-yet'), dangling);
    expect((await svc(['export', 'p', '--out', dangling], env)).code).toBe(1);
    expect(existsSync(join(dir, 'not-yet'))).toBe(false);
  }, 240_000);

  it.skipIf(!existsSync('/dev/full') || !existsSync('/dev/null'))(
    '`export` to a device or a full disk: the device keeps its mode, and a failed write is one line naming where, never a stack',
    async () => {
      const env = svcEnv({ SVC_DATA_DIR: freshDataDir() });
      expect((await svc(['project', 'create', 'p'], env)).code).toBe(0);
      const modes = { null: mode('/dev/null'), full: mode('/dev/full') };
      // Run as root, svc made /dev/full 0600 for every user, then failed on ftruncate with "internal error: EINVAL".
      const full = await svc(['export', 'p', '--out', '/dev/full'], env);
      expect(full.code).toBe(1);
      expect(full.stderr).toBe('svc: invalid_input: --out: could not write /dev/full (ENOSPC)\n');
      const toNull = await svc(['export', 'p', '--out', '/dev/null'], env);
      expect(toNull.code).toBe(0);
      expect(toNull.stdout).toContain('to /dev/null');
      expect({ null: mode('/dev/null'), full: mode('/dev/full') }).toEqual(modes);
      // Standard output on a full disk: Node's unhandled 'error' event printed a stack and the command said nothing else.
      const quoted = [process.execPath, ...svcArgs(['export', 'p'])].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
      const stdout = await new Promise<Run>((resolve) => {
        execFile('/bin/sh', ['-c', `exec ${quoted} > /dev/full`], { cwd: REPO_ROOT, env: env as NodeJS.ProcessEnv }, (error, out, err) => {
          const code = error ? (error as { code?: unknown }).code : 0;
          resolve({ code: typeof code === 'number' ? code : -1, stdout: out, stderr: err });
        });
      });
      expect(stdout.code).toBe(1);
      expect(stdout.stderr).toBe('svc: cannot write standard output (ENOSPC)\n');
    },
    240_000,
  );

  // PostgreSQL: the file-size limit that makes standard output's file fill up would stop the embedded database too.
  it.skipIf(!process.env.SVC_TEST_DATABASE_URL)(
    '`export` never leaves a cut export behind exit 0: a file that fills fails the command; `--out ""` is refused, `--out -` is standard output',
    async () => {
      const db = await migratedPostgres();
      try {
        const { env } = db;
        expect((await svc(['project', 'create', 'p'], env)).code).toBe(0);
        expect((await svc(['item', 'add', 'p', 'Long', '--body', 'lorem ipsum dolor '.repeat(200)], env)).code).toBe(0);
        const dir = mkdtempSync(join(tmpdir(), 'svc-cut-'));
        const quoted = [process.execPath, ...svcArgs(['export', 'p'])].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
        // A file limited to 1 KiB (a full disk behaves alike): Node's stream wrote 1 KiB, dropped the rest and exited 0.
        const cut = await new Promise<Run>((resolve) => {
          execFile('/bin/sh', ['-c', `ulimit -f 1; exec ${quoted} > '${join(dir, 'cut.jsonl')}'`], { cwd: REPO_ROOT, env: env as NodeJS.ProcessEnv }, (error, out, err) => {
            const code = error ? (error as { code?: unknown }).code : 0;
            resolve({ code: typeof code === 'number' ? code : -1, stdout: out, stderr: err });
          });
        });
        expect(cut.stderr).toBe('svc: cannot write standard output (EFBIG)\n');
        expect(cut.code).toBe(1);
        // `--out "$FILE"` with FILE unset printed the whole project on standard output.
        const empty = await svc(['export', 'p', '--out', ''], env);
        expect(empty.code).toBe(1);
        expect(empty.stdout).toBe('');
        expect(empty.stderr).toContain('invalid_input: --out: give a file name');
        const dash = await svc(['export', 'p', '--out', '-'], env);
        expect(dash.code).toBe(0);
        expect(dash.stdout).toContain('"type":"project"');
        expect(existsSync(join(REPO_ROOT, '-'))).toBe(false);
        // A newline in a path cannot print a line of its own that reads as svc's.
        const odd = await svc(['export', 'p', '--out', '/nonexistent-svc-dir/a\nsvc: all good'], env);
        expect(odd.code).toBe(1);
        expect(odd.stderr).toBe('svc: invalid_input: --out: cannot write "/nonexistent-svc-dir/a\\nsvc: all good" (ENOENT)\n');
      } finally {
        await db.close();
      }
    },
    240_000,
  );

  it('`type add --schema` names where a file is not JSON, never a byte of what it holds', async () => {
    const env = svcEnv({ SVC_DATA_DIR: freshDataDir() });
    const dir = mkdtempSync(join(tmpdir(), 'svc-json-'));
    const cases: [string, RegExp][] = [
      ['root:$y$j9T$SECRETHASH:19000:0:99999:7:::\n', /is not valid JSON \(at line 1, column 1\)/],
      ['{"type":"object",\n "SECRETHASH": }', /is not valid JSON \(at line 2, column 16\)/],
      ['{"SECRETHASH":', /is not valid JSON \(it ends before the value is complete\)/],
    ];
    for (const [text, expected] of cases) {
      const file = join(dir, 'shadow');
      writeFileSync(file, text);
      const run = await svc(['type', 'add', 'leak', '--schema', file], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(expected);
      expect(run.stderr).not.toContain('SECRETHASH');
      expect(run.stderr).not.toContain('root');
    }
  }, 240_000);

  // Another user can write where the data directory's lock, socket and announcements live when its parent is a shared
  // folder (`SVC_DATA_DIR=/tmp/…`). An attacker planted a lock naming their own server's socket, and the victim's
  // svc wrote its secrets into the attacker's database; a planted announcement made `svc init` print the attacker's
  // URL; a folder they made for the data directory left the WAL readable (2026-11-28). Files of another user need
  // root to make, which CI has.
  it.skipIf(process.getuid?.() !== 0)(
    'trusts no lock, announcement or data directory another user made beside its own: refused, or passed over, never followed',
    async () => {
      const NOBODY = 65534;
      const root = mkdtempSync(join(tmpdir(), 'svc-planted-'));
      chmodSync(root, 0o1777);
      // The attacker's own svc, serving its database on a socket.
      const theirs = join(root, 'theirs');
      const theirEnv = svcEnv({ SVC_DATA_DIR: theirs });
      expect((await svc(['project', 'create', 'bait'], theirEnv)).code).toBe(0);
      const server = await serveHttp(theirEnv);
      try {
        const socket = (lockHolders(theirs)[0] as { socket?: string }).socket as string;
        // A lock beside the victim's data directory, made by another user, naming that socket.
        const victim = join(root, 'victim');
        const lock = join(root, '.victim.lock');
        writeFileSync(lock, JSON.stringify({ pid: server.child.pid, host: hostname(), started_at: new Date().toISOString(), command: 'svc serve http', socket }));
        chownSync(lock, NOBODY, NOBODY);
        const env = svcEnv({ SVC_DATA_DIR: victim });
        const planted = await svc(['project', 'create', 'secrets'], env);
        expect(planted.code).not.toBe(0);
        expect(planted.stderr).toContain(`${lock} belongs to another user (uid ${NOBODY}), so svc will not trust it`);
        // Nothing reached the attacker's database.
        const projects = await svcJson<{ projects: { slug: string }[] }>(['project', 'list'], theirEnv);
        expect(projects.projects.map((p) => p.slug)).not.toContain('secrets');
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }

      // An announcement another user made is passed over: `svc init` names no server of theirs.
      const own = join(root, 'own');
      const ownEnv = svcEnv({ SVC_DATA_DIR: own });
      const announcement = join(root, `.own.http.${process.pid}`);
      writeFileSync(announcement, JSON.stringify({ pid: process.pid, host: hostname(), bind: '127.0.0.1', port: 18392, started_at: '2099-01-01T00:00:00.000Z' }));
      chownSync(announcement, NOBODY, NOBODY);
      const init = await svc(['init'], ownEnv);
      expect(init.code).toBe(0);
      expect(init.stderr + init.stdout).not.toContain('18392');

      // A data directory another user made is refused, and nothing is written into it.
      const made = join(root, 'made');
      mkdirSync(made, { mode: 0o777 });
      chmodSync(made, 0o777);
      chownSync(made, NOBODY, NOBODY);
      const refused = await svc(['project', 'create', 'p'], svcEnv({ SVC_DATA_DIR: made }));
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`the data directory ${made} belongs to another user (uid ${NOBODY})`);
      expect(existsSync(join(made, 'PG_VERSION'))).toBe(false);
    },
    240_000,
  );
});
