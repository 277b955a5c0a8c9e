import { loadConfig } from '@svc/service';
import { openServiceForTest, openTestService, type TestService, testBackends } from '@svc/service/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from './server.js';

// An attacker (2026-11-28) held every connection of the pool with ten slow searches at once: a cheap search waited
// 10 s behind them, and so would a write. Searches stuck on the database are made here by a lock on the search
// statistics, which every item search reads and no capture writes.
describe.each(testBackends().filter((b) => b.name === 'postgres'))('searches under load on $name', (backend) => {
  let svc: TestService;
  let actor: string;

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    actor = (await svc.seed('load')).actorId;
  });
  afterAll(async () => {
    await svc?.close();
  });

  /** A server on a pool of four connections of its own, on the test's database. */
  const serve = async (env: Record<string, string> = {}) =>
    startHttpServer(await openServiceForTest(loadConfig({ SVC_DATABASE_URL: svc.store.url, SVC_POOL_SIZE: '4', SVC_LOG_LEVEL: 'silent', ...env })), {
      host: '127.0.0.1',
      port: 0,
    });

  /** Hold an exclusive lock on `table` (on a connection of the test's own pool) until the answer's call. */
  const lock = async (table: 'search_stats' | 'captures' | 'ideas' = 'search_stats'): Promise<() => Promise<void>> => {
    let release = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    let locked = () => {};
    const taken = new Promise<void>((r) => {
      locked = r;
    });
    const held = svc.store.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(conn);
      locked();
      await released;
      await sql`rollback`.execute(conn);
    });
    await taken;
    return async () => {
      release();
      await held;
    };
  };
  const search = (server: RunningHttpServer, q: string) => fetch(`${server.url}/projects/load/items/search?query=${encodeURIComponent(q)}`);

  it('keeps connections for writes and other reads while searches wait on the database', async () => {
    const server = await serve();
    const release = await lock();
    let searches: Promise<Response>[] = [];
    try {
      // More searches than the pool has connections, one of them of one word (answered in one statement where it can).
      searches = ['cache pool', 'retry budget', 'cache', 'lease renewal', 'queue depth', 'token bucket'].map((q) => search(server, q));
      await new Promise((r) => setTimeout(r, 300));
      const write = await fetch(`${server.url}/captures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-actor': actor },
        body: JSON.stringify({ text: 'written while searches wait' }),
      });
      expect(write.status, await write.clone().text()).toBe(200);
      expect((await fetch(`${server.url}/projects/load/brief`)).status).toBe(200);
    } finally {
      await release();
    }
    for (const answer of await Promise.all(searches)) expect(answer.status).toBe(200);
    await server.close();
  }, 30_000);

  it('stops a search at SVC_SEARCH_TIMEOUT_MS and says so, rather than hold its connection', async () => {
    const server = await serve({ SVC_SEARCH_TIMEOUT_MS: '300' });
    const release = await lock();
    try {
      // Filtered by type: the search's first statement (its project and glossary, bounded work) sets the time-out, and
      // the statements after it read the statistics (decision 0065).
      const answer = fetch(`${server.url}/projects/load/items/search?query=cache%20pool&item_types=decision`);
      // Well past the budget, well before the statement time-out (30 s).
      const first = await Promise.race([answer.then(() => 'answered'), new Promise((r) => setTimeout(() => r('still waiting'), 5_000))]);
      expect(first).toBe('answered');
      const response = await answer;
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toMatch(/SVC_SEARCH_TIMEOUT_MS/);
      expect(body.error.message).toMatch(/300 ms/);
    } finally {
      await release();
    }
    // The same search answers once nothing holds it.
    expect((await search(server, 'cache pool')).status).toBe(200);
    // Capture and idea search are bounded the same way.
    for (const [table, path] of [
      ['captures', '/captures/search?query=cache'],
      ['ideas', '/projects/load/ideas/search?query=cache'],
    ] as const) {
      const held = await lock(table);
      try {
        const response = await fetch(`${server.url}${path}`);
        expect(response.status, path).toBe(503);
        expect(((await response.json()) as { error: { message: string } }).error.message, path).toMatch(/took longer than the 300 ms .*SVC_SEARCH_TIMEOUT_MS/);
      } finally {
        await held();
      }
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
    await server.close();
  }, 30_000);
});
