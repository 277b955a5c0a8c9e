import { loadConfig, openService } from '@svc/service';
import { canStartPrivateCluster, type PrivateCluster, startPrivateCluster } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from './server.js';

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}

// A private cluster of the test's own: it is stopped and restarted here, never the shared server on 5432.
describe.skipIf(!canStartPrivateCluster())('readiness against a PostgreSQL that goes away and comes back', () => {
  let cluster: PrivateCluster;
  let server: RunningHttpServer;

  beforeAll(async () => {
    cluster = await startPrivateCluster();
    const service = await openService(loadConfig({ SVC_DATABASE_URL: cluster.url, SVC_LOG_LEVEL: 'silent' }), { migrate: true });
    server = await startHttpServer(service, { host: '127.0.0.1', port: 0, readyTimeoutMs: 1_000 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await cluster?.destroy();
  });

  const ready = async () => (await fetch(`${server.url}/ready`)).status;

  it('answers 503 while PostgreSQL is stopped and 200 once it is back, with no server restart', async () => {
    expect(await ready()).toBe(200);
    await cluster.stop();
    expect(await ready()).toBe(503);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const during = await fetch(`${server.url}/captures`);
    expect(during.status).toBe(503);
    expect(((await during.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    await cluster.start();
    await until(async () => (await ready()) === 200);
    expect((await fetch(`${server.url}/captures`)).status).toBe(200);
  }, 120_000);
});
