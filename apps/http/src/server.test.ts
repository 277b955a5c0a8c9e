import { once } from 'node:events';
import { connect } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openTestService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from './routes.js';
import { type RunningHttpServer, startHttpServer } from './server.js';

describe.each(testBackends())('HTTP service against a listening server on $name', (backend) => {
  let svc: TestService;
  let server: RunningHttpServer;
  let withDefault: RunningHttpServer;
  let seeded: { actorId: string; projectId: string };

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    seeded = await svc.seed('rest');
    // close() of a server closes its service: give each server a service of its own over the shared store.
    server = await startHttpServer(svc.sibling(), { host: '127.0.0.1', port: 0 });
    withDefault = await startHttpServer(svc.sibling({ defaultActorId: seeded.actorId }), { host: '127.0.0.1', port: 0, maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await server?.close();
    await withDefault?.close();
    await svc.close();
  });

  const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  // A client (undici's fetch, a reverse proxy) that reuses an idle keep-alive connection just as the server closes
  // it gets ECONNRESET; Node closes idle connections after 5 s, so a pause of a few seconds between requests met it.
  it.runIf(backend.name === 'pglite')("keeps an idle keep-alive connection open well past Node's 5 s", async () => {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    let closed = false;
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('close', () => {
      closed = true;
    });
    const ask = () => socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    const answers = () => received.split('HTTP/1.1 200').length - 1;
    await once(socket, 'connect');
    ask();
    await expect.poll(answers, { timeout: 5_000 }).toBe(1);
    expect(received).toMatch(/keep-alive: timeout=(\d+)/i);
    expect(Number(/keep-alive: timeout=(\d+)/i.exec(received)?.[1])).toBeGreaterThanOrEqual(60);
    await new Promise((r) => setTimeout(r, 6_000));
    expect(closed).toBe(false);
    ask();
    await expect.poll(answers, { timeout: 5_000 }).toBe(2);
    socket.destroy();
  }, 30_000);

  it('refuses a write without X-Actor or SVC_DEFAULT_ACTOR_ID with 400 and a clear error', async () => {
    const response = await post(server.url, '/projects/rest/items', { title: 'No actor' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('actor_required');
    expect(body.error.message).toContain('X-Actor');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('accepts a write with X-Actor, or with the default actor, and attributes it in audit_log', async () => {
    const viaHeader = await post(server.url, '/projects/rest/items', { title: 'Header actor' }, { 'X-Actor': seeded.actorId });
    expect(viaHeader.status).toBe(200);
    const item = (await viaHeader.json()) as { id: string };
    const viaDefault = await post(withDefault.url, '/captures', { text: 'default actor' });
    expect(viaDefault.status).toBe(200);
    const capture = (await viaDefault.json()) as { id: string };
    const rows = await svc.store.db
      .selectFrom('audit_log')
      .select(['target_id', 'actor_id', 'source'])
      .where('target_id', 'in', [item.id, capture.id])
      .execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ actor_id: seeded.actorId, source: 'http' });
    const read = await fetch(`${server.url}/items/${item.id.slice(0, 8)}`);
    expect(((await read.json()) as { item: { title: string } }).item.title).toBe('Header actor');
  });

  it('answers malformed JSON with 400, an oversize body with 413, an unknown route with 404 and the JSON error body', async () => {
    const malformed = await post(server.url, '/captures', '{"text": ', { 'X-Actor': seeded.actorId });
    expect(malformed.status).toBe(400);
    // The request's body, not an item's `body` field (a newcomer read `body:` as about that).
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_input', message: 'request body: not valid JSON (it ends before the value is complete)', details: { field: 'request body' } } });
    // Where it breaks, never the text: the parser's own message quotes it, and a log would keep a secret.
    const quoted = await post(server.url, '/captures', '{"text": SECRETHASH}', { 'X-Actor': seeded.actorId });
    expect(quoted.status).toBe(400);
    const refusal = await quoted.json();
    expect(JSON.stringify(refusal)).not.toContain('SECRETHASH');
    expect(refusal).toMatchObject({ error: { message: 'request body: not valid JSON (at line 1, column 10)' } });
    const big = await post(withDefault.url, '/captures', { text: 'x'.repeat(100 * 1024) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    const missing = await fetch(`${server.url}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/nowhere'), details: {} } });
  });

  it('maps query strings to typed inputs and errors to statuses', async () => {
    const headers = { 'X-Actor': seeded.actorId };
    const unit = (await (await post(server.url, '/projects/rest/work-units', { title: 'Unit' }, headers)).json()) as { id: string };
    const task = (await (await post(server.url, `/work-units/${unit.id}/tasks`, { title: 'T' }, headers)).json()) as { id: string };
    expect((await post(server.url, `/tasks/${task.id}/start`, {}, headers)).status).toBe(200);
    const again = await post(server.url, `/tasks/${task.id}/start`, {}, headers);
    expect(again.status).toBe(409);
    const listed = (await (await fetch(`${server.url}/work-units/${unit.id}/tasks?status=in_progress&limit=5`)).json()) as { tasks: unknown[] };
    expect(listed.tasks).toHaveLength(1);
    const search = await fetch(`${server.url}/projects/rest/items/search?query=header&item_types=decision,policy&limit=3`);
    expect(((await search.json()) as { items: unknown[] }).items).toHaveLength(1);
    // A space after the comma, as people write lists, is not part of the type (a newcomer's was refused).
    const spaced = await fetch(`${server.url}/projects/rest/items/search?query=header&item_types=decision,%20policy&limit=3`);
    expect(spaced.status).toBe(200);
    expect(((await spaced.json()) as { items: unknown[] }).items).toHaveLength(1);
    for (const list of ['item_types=decision&item_types=%20policy', 'item_types=decision,,policy,']) {
      const listed = await fetch(`${server.url}/projects/rest/items/search?query=header&${list}&limit=3`);
      expect(listed.status, list).toBe(200);
      expect(((await listed.json()) as { items: unknown[] }).items, list).toHaveLength(1);
    }
    expect((await fetch(`${server.url}/projects/rest/items/search?query=x&limit=abc`)).status).toBe(400);
  });

  it('publishes a valid OpenAPI 3.1 document listing every route', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const route of ROUTES) {
      expect(doc.paths[route.path.replace(/:([a-z_]+)/g, '{$1}')]?.[route.method]).toBeDefined();
    }
    expect(doc.paths['/health']).toBeDefined();
  });
});
