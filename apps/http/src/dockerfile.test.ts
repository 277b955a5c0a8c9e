import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@svc/service/testing';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The build stage's RUN steps and the final CMD, as the Dockerfile states them. */
function recipe(): { build: string[]; cmd: string[] } {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n');
  const build: string[] = [];
  let stage = 0;
  let cmd: string[] = [];
  for (const line of lines) {
    if (line.startsWith('FROM ')) stage++;
    if (stage === 1 && line.startsWith('RUN ')) build.push(line.slice(4));
    if (line.startsWith('CMD ')) cmd = JSON.parse(line.slice(4)) as string[];
  }
  return { build, cmd };
}

/**
 * No Docker engine runs here, so the image recipe is exercised outside Docker: the same build commands in a
 * clean copy of the repository (what `COPY . .` copies), then the same start command, answering /health.
 */
describe('the Dockerfile recipe, outside Docker', () => {
  it('builds from a clean copy and starts a server that answers /health and /ready', async () => {
    const { build, cmd } = recipe();
    expect(build).toContain('pnpm build');
    const dir = mkdtempSync(join(tmpdir(), 'svc-image-'));
    const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    for (const file of stdout.split('\n').filter((f) => f !== '')) {
      try {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        cpSync(join(ROOT, file), join(dir, file));
      } catch {
        // deleted in the working tree
      }
    }
    for (const step of build) {
      if (step.startsWith('npm install -g pnpm')) continue; // pnpm is on this machine already (same version)
      await run('sh', ['-c', step], { cwd: dir, env: { ...process.env, CI: 'true' }, maxBuffer: 64 * 1024 * 1024 });
    }
    const port = await freePort();
    const [command, ...args] = cmd as [string, ...string[]];
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: String(port), SVC_DATA_DIR: join(dir, 'data'), SVC_LOG_LEVEL: 'warn' };
    delete env.SVC_DATABASE_URL;
    const server = spawn(command === 'node' ? process.execPath : command, args, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    try {
      const deadline = Date.now() + 60_000;
      let health = 0;
      while (Date.now() < deadline && health !== 200) {
        health = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0);
        if (health !== 200) await new Promise((r) => setTimeout(r, 300));
      }
      expect(health, log).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
    } finally {
      server.kill('SIGTERM');
    }
  }, 300_000);
});
