import { openTestService, openUnreachableService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from './app.js';

describe.each(testBackends())('HTTP probes on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('answers /health and /ready while the database answers', async () => {
    const app = createHttpApp(svc);
    expect(await (await app.request('/health')).json()).toEqual({ status: 'ok' });
    const ready = await app.request('/ready');
    expect(ready.status).toBe(200);
  });

  it('answers /ready with 503 when the database does not answer', async () => {
    const unreachable = await openUnreachableService();
    try {
      const ready = await createHttpApp(unreachable).request('/ready');
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { status: string }).status).toBe('unavailable');
      expect((await createHttpApp(unreachable).request('/health')).status).toBe(200);
    } finally {
      await unreachable.close();
    }
  });

  it('answers an unknown route with 404 and the JSON error body', async () => {
    const response = await createHttpApp(svc).request('/nope');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
