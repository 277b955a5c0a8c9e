import { createServer, type Server as NetServer, type Socket, connect } from 'node:net';
import { createEmptyPostgresDatabase } from '@svc/service/testing';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type Env, serveHttp, shippedMigrations, svc, svcEnv, svcJson } from './testing/svc-process.js';

interface Status {
  current: string | null;
  currentRelease: string | null;
  latest: string;
  latestRelease: string;
  applied: { id: string; release: string }[];
  pending: { id: string; release: string }[];
  unknown: string[];
}

const shipped = shippedMigrations();
const latest = shipped.at(-1)!;

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const hasMigrationsTable = async (url: string) =>
  (await query<{ present: boolean }>(url, "select to_regclass('schema_migrations') is not null as present"))[0]?.present;

/**
 * A gate in front of PostgreSQL: each connection is proxied through its start-up and authentication, and then
 * its first query is held until `count` connections are holding one; then all go on at once. Spawned
 * processes boot at different speeds on a loaded machine — seconds apart, longer than a migration takes — so
 * without the gate "twenty at once" could quietly become twenty in a row, and the test would pass even with no
 * lock at all. The gate reads only the framing of the wire protocol, nothing of svc's own statements.
 */
async function startGate(target: URL, count: number, maxWaitMs: number) {
  const waiting: (() => void)[] = [];
  let open = false;
  let releasedTogether = 0;
  const sockets = new Set<Socket>();
  const release = () => {
    if (open) return;
    open = true;
    releasedTogether = waiting.length;
    for (const go of waiting.splice(0)) go();
  };
  const timer = setTimeout(release, maxWaitMs);
  const server: NetServer = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.pipe(client);
    // Client → server: forward whole messages until the first query (Q: simple, P: extended), then hold.
    let buffered = Buffer.alloc(0);
    let startup = true;
    let state: 'scanning' | 'held' | 'through' = 'scanning';
    const flush = () => {
      upstream.write(buffered);
      buffered = Buffer.alloc(0);
      state = 'through';
    };
    client.on('data', (chunk: Buffer) => {
      if (state === 'through') return void upstream.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      while (state === 'scanning') {
        const headerSize = startup ? 4 : 5;
        if (buffered.length < headerSize) return;
        const size = startup ? buffered.readInt32BE(0) : 1 + buffered.readInt32BE(1);
        if (!startup && (buffered[0] === 0x51 || buffered[0] === 0x50)) {
          if (open) return flush();
          state = 'held';
          waiting.push(flush);
          if (waiting.length >= count) release();
          return;
        }
        if (buffered.length < size) return;
        // An SSLRequest (code 80877103) is followed by the real start-up message.
        if (!(startup && size === 8 && buffered.readInt32BE(4) === 80877103)) startup = false;
        upstream.write(buffered.subarray(0, size));
        buffered = buffered.subarray(size);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: url.toString(),
    /** How many connections were holding their first query when the gate opened. */
    releasedTogether: () => releasedTogether,
    close: async () => {
      clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// Real PostgreSQL only: these tests are about what `svc migrate` and `svc serve` do to a shared server
// database (concurrent migrators, refusing to serve a schema that is behind or ahead). The embedded database
// migrates itself and admits one process at a time (see embedded-lock.test.ts).
describe.skipIf(!process.env.SVC_TEST_DATABASE_URL)('svc migrate and start-up on PostgreSQL', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  async function emptyDatabase(): Promise<{ url: string; env: Env }> {
    const db = (await createEmptyPostgresDatabase())!;
    cleanups.push(() => db.drop());
    return { url: db.url, env: svcEnv({ SVC_DATABASE_URL: db.url }) };
  }

  it('twenty `svc migrate` processes released at the same moment on an empty database all exit 0 and apply each migration exactly once', async () => {
    const { url, env } = await emptyDatabase();
    // Twenty processes booting on a loaded 2-core machine can take minutes to all reach the gate.
    const gate = await startGate(new URL(url), 20, 240_000);
    cleanups.push(() => gate.close());
    // The client-side query time-out (statement time-out + 2 s) must outlast the wait at the gate.
    const gated = { ...env, SVC_DATABASE_URL: gate.url, SVC_STATEMENT_TIMEOUT_MS: '300000' };
    const runs = await Promise.all(Array.from({ length: 20 }, () => svc(['migrate', '--json'], gated)));

    // The race was real: all twenty were connected and waiting when the gate opened.
    expect(gate.releasedTogether()).toBeGreaterThanOrEqual(20);
    expect(runs.map((r) => [r.code, r.stderr])).toEqual(Array(20).fill([0, '']));
    const results = runs.map((r) => JSON.parse(r.stdout) as { applied: string[]; current: string; release: string });
    // One process applied the whole schema in its transaction; the other nineteen waited and found nothing to do.
    const appliers = results.filter((r) => r.applied.length > 0);
    expect(appliers).toHaveLength(1);
    expect(appliers[0]?.applied).toEqual(shipped.map((m) => m.id));
    for (const r of results) expect(r).toMatchObject({ current: latest.id, release: latest.release });

    const rows = await query<{ id: string; release: string; n: number }>(
      url,
      'select id, release, count(*) over (partition by id)::int as n from schema_migrations order by id',
    );
    expect(rows).toEqual(shipped.map((m) => ({ ...m, n: 1 })));

    const status = await svcJson<Status>(['migrate', '--status'], env);
    expect(status).toMatchObject({ current: latest.id, currentRelease: latest.release, pending: [], unknown: [] });
    expect(status.applied.map((a) => ({ id: a.id, release: a.release }))).toEqual(shipped);

    // And once more, after the race: nothing left to apply.
    const again = await svc(['migrate'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`schema ${latest.id} (${latest.release}) is up to date\n`);
  }, 360_000);

  it('`svc migrate --status --json` on an empty database lists every shipped migration as pending and changes nothing', async () => {
    const { url, env } = await emptyDatabase();
    const status = await svcJson<Status>(['migrate', '--status'], env);
    expect(status).toMatchObject({ current: null, currentRelease: null, latest: latest.id, latestRelease: latest.release, applied: [], unknown: [] });
    expect(status.pending).toEqual(shipped.map((m) => expect.objectContaining(m)));
    expect(await hasMigrationsTable(url)).toBe(false);
  }, 120_000);

  it('`svc serve http` refuses to start while migrations are pending, telling the operator to run `svc migrate`, and applies nothing', async () => {
    const { url, env } = await emptyDatabase();
    const refused = await svc(['serve', 'http', '--port', '0'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^svc: unavailable: .*pending.*Run `svc migrate` \(or start with --migrate\)/);
    expect(refused.stderr).not.toContain('listening');
    expect(await hasMigrationsTable(url)).toBe(false);
  }, 120_000);

  it('`svc serve http --migrate` applies the pending migrations, answers /health and /ready with 200, logs only to stderr and stops cleanly on SIGTERM', async () => {
    const { env } = await emptyDatabase();
    const server = await serveHttp({ ...env, SVC_LOG_LEVEL: 'info' }, ['--port', '0', '--migrate']);
    try {
      const [health, ready] = await Promise.all([fetch(`${server.url}/health`), fetch(`${server.url}/ready`)]);
      expect([health.status, ready.status]).toEqual([200, 200]);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output().stdout).toBe('');
    expect(server.output().stderr).toContain('"msg":"applied migrations"');
    const status = await svcJson<Status>(['migrate', '--status'], env);
    expect(status).toMatchObject({ current: latest.id, pending: [] });
  }, 120_000);

  it('refuses to serve or migrate a database whose schema is newer than the code, naming the versions', async () => {
    const { url, env } = await emptyDatabase();
    expect((await svc(['migrate'], env)).code).toBe(0);
    await query(url, "insert into schema_migrations (id, name, release, checksum) values ('9999', 'from_the_future', 'v9.9.9', 'x')");
    const [served, migrated, status] = await Promise.all([
      svc(['serve', 'http', '--port', '0'], env),
      svc(['migrate'], env),
      svcJson<Status>(['migrate', '--status'], env),
    ]);
    for (const run of [served, migrated]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`svc: unavailable: the database has schema 9999 (v9.9.9), newer than this svc (${latest.id}, ${latest.release}); upgrade svc`);
    }
    expect(status).toMatchObject({ current: '9999', unknown: ['9999'], pending: [] });
  }, 120_000);
});
