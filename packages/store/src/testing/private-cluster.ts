import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own, on a free port, that the test may stop, start and break without
 * touching the shared server on 5432. Built from the machine's initdb and pg_ctl; as root they run as the
 * postgres user (initdb refuses root).
 */
export interface PrivateCluster {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  return undefined;
}

export function canStartPrivateCluster(): boolean {
  return binDir() !== undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const bin = binDir();
  if (!bin) throw new Error('no PostgreSQL server binaries (initdb, pg_ctl) on this machine');
  const asRoot = process.getuid?.() === 0;
  const base = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(base, 'data');
  const port = await freePort();
  if (asRoot) {
    chmodSync(base, 0o755);
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(base, Number(stdout.trim()), Number(gid.trim()));
  }
  const exec = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : run(join(bin, cmd), args));
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await exec('pg_ctl', ['-D', data, '-o', options, '-l', join(base, 'log'), '-w', '-t', '60', 'start']);
  };
  const stop = async () => {
    await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      await stop().catch(() => {});
      rmSync(base, { recursive: true, force: true });
    },
  };
}
