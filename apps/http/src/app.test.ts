import { addressedFields, findOperation, ops } from '@svc/service';
import { openTestService, openUnreachableService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from './app.js';
import { pathParams, ROUTES } from './routes.js';

describe('REST paths and the records operations address', () => {
  it('puts in the path only fields an operation addresses, so an unknown path id is 404 and a body id 400', () => {
    for (const route of ROUTES) {
      const op = findOperation(route.operation);
      if (!op || op.kind === 'read') continue;
      const addressed = addressedFields(op);
      for (const param of pathParams(route.path)) expect([route.path, param, addressed.has(param)]).toEqual([route.path, param, true]);
    }
  });
});


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

  it('adopts a client request id only when it is a plain token of at most 128 characters, else makes its own', async () => {
    const app = createHttpApp(svc);
    for (const fine of ['trace:42', 'a.b-c_d', 'x'.repeat(128)]) {
      expect((await app.request('/health', { headers: { 'x-request-id': fine } })).headers.get('x-request-id')).toBe(fine);
    }
    for (const hostile of ['evil id', 'a\tb', '<script>', 'a;b=c', 'é', 'x'.repeat(129), '']) {
      const answered = (await app.request('/health', { headers: { 'x-request-id': hostile } })).headers.get('x-request-id');
      expect(answered).toMatch(/^[0-9a-f-]{36}$/);
    }
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
    const a = (await call(ops.svc_item_upsert, { project_id: 'web', title: 'A' })) as { id: string };
    const b = (await call(ops.svc_item_upsert, { project_id: 'web', title: 'B' })) as { id: string };
    await call(ops.link_add, { project_id: 'web', from_id: a.id, type: 'blocks', to_id: b.id });
    const app = createHttpApp(svc);
    const response = await app.request(`/items/${a.id.slice(0, 8)}/impact?project_id=web&depth=9`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { depth: number; reachable: { id: string; link_type: string }[] };
    expect(body).toEqual(await call(ops.svc_impact, { project_id: 'web', item_id: a.id, depth: 9 }));
    expect(body.depth).toBe(5);
    expect(body.reachable.map((r) => [r.id, r.link_type])).toEqual([[b.id, 'blocks']]);
    const missing = await app.request('/items/ffffffff/impact?project_id=web');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('answers GET /items/{id}/impact without project_id: the id alone names the item', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    const other = await svc.seed('web-other');
    const call = svc.as(actorId);
    const db = (await call(ops.svc_item_upsert, { project_id: 'web', title: 'Use PostgreSQL' })) as { id: string };
    const cache = (await call(ops.svc_item_upsert, { project_id: 'web', title: 'Cache', links: [{ type: 'depends', target_id: db.id }] })) as { id: string };
    const elsewhere = (await svc.as(other.actorId)(ops.svc_item_upsert, { project_id: 'web-other', title: 'Elsewhere' })) as { id: string };
    const app = createHttpApp(svc);

    const byUuid = await app.request(`/items/${cache.id}/impact`);
    expect(byUuid.status).toBe(200);
    const body = (await byUuid.json()) as { direction: string; reachable: { id: string }[] };
    expect(body).toEqual(await call(ops.svc_impact, { project_id: 'web', item_id: cache.id }));
    expect(body.direction).toBe('outgoing');
    expect(body.reachable.map((r) => r.id)).toEqual([db.id]);
    const byPrefix = await app.request(`/items/${elsewhere.id.slice(0, 8)}/impact`);
    expect(byPrefix.status).toBe(200);
    expect(((await byPrefix.json()) as { item: { title: string } }).item.title).toBe('Elsewhere');

    const incoming = await app.request(`/items/${db.id}/impact?direction=incoming`);
    expect(incoming.status).toBe(200);
    const back = (await incoming.json()) as { direction: string; reachable: { id: string; link_type: string }[] };
    expect(back.direction).toBe('incoming');
    expect(back.reachable.map((r) => [r.id, r.link_type])).toEqual([[cache.id, 'depends']]);
    const badDirection = await app.request(`/items/${db.id}/impact?direction=sideways`);
    expect(badDirection.status).toBe(400);
    expect(((await badDirection.json()) as { error: { details: { field: string } } }).error.details.field).toBe('direction');

    // project_id still scopes the id: an item of another project is not found inside this one.
    const scoped = await app.request(`/items/${elsewhere.id}/impact?project_id=web`);
    expect(scoped.status).toBe(404);
  });

  it('answers GET /items/{prefix}/impact for a prefix two projects share with ambiguous_id listing both', async () => {
    await svc.store.reset();
    const first = await svc.seed('web');
    const second = await svc.seed('web-other');
    const id = (n: number) => `abcd${n}000-0000-4000-8000-000000000000`;
    await svc.store.db
      .insertInto('items')
      .values([
        { id: id(1), chain_id: id(1), project_id: first.projectId, item_type: 'decision', title: 'One', context: '{}' },
        { id: id(2), chain_id: id(2), project_id: second.projectId, item_type: 'decision', title: 'Two', context: '{}' },
      ])
      .execute();
    const app = createHttpApp(svc);
    const response = await app.request('/items/abcd/impact');
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; details: { candidates: { id: string }[] } } }).error;
    expect(error.code).toBe('ambiguous_id');
    expect(error.details.candidates.map((c) => c.id).sort()).toEqual([id(1), id(2)]);
    const scoped = await app.request('/items/abcd/impact?project_id=web-other');
    expect(scoped.status).toBe(200);
    expect(((await scoped.json()) as { item: { id: string } }).item.id).toBe(id(2));
  });

  it('answers GET /checks with findings as JSON and 400 for an unknown rule', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    await svc.as(actorId)(ops.svc_item_upsert, { project_id: 'web', title: 'Empty', body: '' });
    const app = createHttpApp(svc);
    const response = await app.request('/checks?project_id=web&rule=empty-decision');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { rule: string; total: number }[] };
    expect(body.results).toEqual([expect.objectContaining({ rule: 'empty-decision', total: 1 })]);
    const bad = await app.request('/checks?project_id=web&rule=nope');
    expect(bad.status).toBe(400);
  });
});

describe.each(testBackends())('HTTP redaction of a promoted capture on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('redacting a promoted capture "ok" over REST redacts its item and leaves "token" intact everywhere', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    const app = createHttpApp(svc);
    const post = async (path: string, body: unknown) => {
      const response = await app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-actor': actorId },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { id: string; item_id: string };
    };
    const capture = await post('/captures', { text: 'ok' });
    const promoted = await post(`/captures/${capture.id}/promote`, { project_id: 'web', title: 'Token rotation' });
    const edited = await post('/projects/web/items', { item_id: promoted.item_id, body: 'ok: the token rotates monthly' });
    const other = await post('/projects/web/items', { title: 'token looks ok', body: 'this token is ok' });

    expect(await post(`/captures/${capture.id}/redact`, {})).toEqual({ id: capture.id, state: 'redacted', item_id: promoted.item_id });
    const shown = async (id: string) => ((await (await app.request(`/items/${id}`)).json()) as { item: { title: string; body: string } }).item;
    expect(await shown(edited.id)).toMatchObject({ title: '[redacted]', body: '[redacted]' });
    expect(await shown(other.id)).toMatchObject({ title: 'token looks ok', body: 'this token is ok' });
    const hits = (await (await app.request('/projects/web/items/search?query=token')).json()) as { items: { id: string }[] };
    expect(hits.items.map((i) => i.id)).toEqual([other.id]);
  });
});

describe.each(testBackends())('HTTP refusals name their field on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('answers a bad id in a POST body with 400 naming the field, and an unknown id in the path with 404', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    const app = createHttpApp(svc);
    const post = (path: string, body: unknown) =>
      app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-actor': actorId }, body: JSON.stringify(body) });
    type ErrorBody = { error: { code: string; message: string; details: { field: string } } };

    const inBody = await post('/projects/web/decisions', { decisions: [{ title: 'A' }, { title: 'B', system_id: 'no-such-system' }] });
    expect(inBody.status).toBe(400);
    const refused = ((await inBody.json()) as ErrorBody).error;
    expect(refused).toMatchObject({ code: 'invalid_input', details: { field: 'decisions[1].system_id' } });
    expect(refused.message).toMatch(/^decisions\[1\]\.system_id: /);

    const unit = await post('/projects/web/items', { title: 'x', work_unit_id: 'ffffffff' });
    expect(unit.status).toBe(400);
    expect(((await unit.json()) as ErrorBody).error.details.field).toBe('work_unit_id');

    const inPath = await post('/work-units/ffffffff/tasks', { title: 'x' });
    expect(inPath.status).toBe(404);
    expect(((await inPath.json()) as ErrorBody).error).toMatchObject({ code: 'not_found', details: { field: 'work_unit_id' } });
    expect((await post('/projects/no-such-project/items', { title: 'x' })).status).toBe(404);
  });
});

describe.each(testBackends())('HTTP captures filed under a project on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('POST /captures files under project_id; GET /captures and /captures/search filter by it', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    const app = createHttpApp(svc);
    const add = async (body: unknown) =>
      (await (await app.request('/captures', { method: 'POST', headers: { 'content-type': 'application/json', 'x-actor': actorId }, body: JSON.stringify(body) })).json()) as { id: string };
    const filed = await add({ text: 'quince filed', project_id: 'web' });
    const loose = await add({ text: 'quince loose' });
    const ids = async (path: string) => ((await (await app.request(path)).json()) as { captures: { id: string }[] }).captures.map((c) => c.id);
    expect(await ids('/captures?project_id=web')).toEqual([filed.id]);
    expect(await ids('/captures/search?query=quince&project_id=web')).toEqual([filed.id]);
    expect(await ids('/captures?project_id=')).toEqual([loose.id, filed.id]);
    expect((await app.request('/captures?project_id=nowhere')).status).toBe(404);
  });
});

describe.each(testBackends())('HTTP item search snippets on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc.close();
  });

  it("answers GET /projects/{project}/items/search with **word** around each match and the body's own asterisks escaped", async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    await svc.as(actorId)(ops.svc_item_upsert, { project_id: 'web', title: 'Session store', body: 'Keep **Redis** for sessions' });
    const snippet = async (query: string) =>
      ((await (await createHttpApp(svc).request(`/projects/web/items/search?query=${query}`)).json()) as { items: { snippet: string }[] }).items[0]?.snippet;
    expect(await snippet('sessions')).toBe('Keep \\*\\*Redis\\*\\* for **sessions**');
    expect(await snippet('redis')).toBe('Keep \\*\\***Redis**\\*\\* for sessions');
  });
});

describe.each(testBackends())('HTTP path and body naming one field on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('refuses a body that names another record than the path, naming the field, and writes nothing', async () => {
    await svc.store.reset();
    const { actorId } = await svc.seed('web');
    await svc.seed('other');
    const app = createHttpApp(svc);
    const post = (body: unknown) =>
      app.request('/projects/web/decisions', { method: 'POST', headers: { 'content-type': 'application/json', 'x-actor': actorId }, body: JSON.stringify(body) });
    const refused = await post({ project_id: 'other', decisions: [{ title: 'Where does this go?' }] });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string; details: { field: string } } }).error).toMatchObject({
      code: 'invalid_input',
      details: { field: 'project_id' },
    });
    expect(await svc.store.db.selectFrom('items').select('id').execute()).toEqual([]);
    expect((await post({ project_id: 'web', decisions: [{ title: 'Here' }] })).status).toBe(200);
  });
});
