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

  it('returns the request id on every answer, those the MCP transport builds itself included', async () => {
    const app = createHttpApp(svc);
    const given = { 'x-request-id': 'trace-42' };
    for (const path of ['/health', '/projects/nope/items/search?query=x', '/nope']) {
      expect((await app.request(path, { headers: given })).headers.get('x-request-id')).toBe('trace-42');
    }
    const mcp = await app.request('/mcp', { method: 'POST', headers: { ...given, 'content-type': 'application/json' }, body: '{' });
    expect(mcp.headers.get('x-request-id')).toBe('trace-42');
    expect((await app.request('/health')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 and the JSON error body', async () => {
    const response = await createHttpApp(svc).request('/nope');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});

describe.each(testBackends())('HTTP impact and checks on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('answers GET /items/{id}/impact with the same payload as svc_impact, as JSON', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    const call = svc.as(actorId);
    const a = (await call('svc_item_upsert', { project_id: 'web', title: 'A' })) as { id: string };
    const b = (await call('svc_item_upsert', { project_id: 'web', title: 'B' })) as { id: string };
    await call('link_add', { project_id: 'web', from_id: a.id, type: 'blocks', to_id: b.id });
    const app = createHttpApp(svc);
    const response = await app.request(`/items/${a.id.slice(0, 8)}/impact?project_id=web&depth=9`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { depth: number; reachable: { id: string; link_type: string }[] };
    expect(body).toEqual(await call('svc_impact', { project_id: 'web', item_id: a.id, depth: 9 }));
    expect(body.depth).toBe(5);
    expect(body.reachable.map((r) => [r.id, r.link_type])).toEqual([[b.id, 'blocks']]);
    const missing = await app.request('/items/ffffffff/impact?project_id=web');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('answers GET /checks with findings as JSON and 400 for an unknown rule', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    await svc.as(actorId)('svc_item_upsert', { project_id: 'web', title: 'Empty', body: '' });
    const app = createHttpApp(svc);
    const response = await app.request('/checks?project_id=web&rule=empty-decision');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { rule: string; total: number }[] };
    expect(body.results).toEqual([expect.objectContaining({ rule: 'empty-decision', total: 1 })]);
    const bad = await app.request('/checks?project_id=web&rule=nope');
    expect(bad.status).toBe(400);
  });
});
