import { connect } from 'node:net';
import { type CallContext, createLogger, ops, type Service } from '@svc/service';
import { openTestService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from './server.js';
import { type Answer, send } from './testing/index.js';

interface LogLine {
  level: number;
  msg: string;
  err?: { stack?: string };
}

const ERROR = 50;

const errorOf = (answer: Answer) => (answer.body as { error: { code: string; message: string; details: { field?: string } } }).error;

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

interface ToolAnswer {
  id: number;
  result: { isError?: boolean; structuredContent?: { error?: { code: string; details: { field?: string } } } & Record<string, unknown> };
}

describe.each(testBackends())('trust at the HTTP edge on $name', (backend) => {
  let svc: TestService;
  let logs: LogLine[];
  let plain: RunningHttpServer;
  let withDefault: RunningHttpServer;
  let proxied: RunningHttpServer;
  let seeded: { actorId: string; projectId: string };
  let other: string;

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    seeded = await svc.seed('pa');
    other = ((await svc.call(ops.actor_add, { email: 'other@example.test' }, { source: 'cli' })) as { id: string }).id;
    logs = [];
    const logger = createLogger('info', { write: (line) => logs.push(JSON.parse(line) as LogLine) });
    // close() of a server closes its service: give each server a service of its own over the shared store.
    const own = (defaultActorId?: string): Service => svc.sibling({ defaultActorId, logger });
    plain = await startHttpServer(own(), { host: '127.0.0.1', port: 0 });
    withDefault = await startHttpServer(own(seeded.actorId), { host: '127.0.0.1', port: 0 });
    proxied = await startHttpServer(own(), { host: '127.0.0.1', port: 0, allowedHosts: ['svc.example:8443', 'ops.example'] });
  });
  afterAll(async () => {
    await plain?.close();
    await withDefault?.close();
    await proxied?.close();
    await svc.close();
  });
  beforeEach(() => {
    logs.length = 0;
  });

  const json = { 'content-type': 'application/json' };
  const itemCount = async () => Number((await svc.store.db.selectFrom('items').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const captureCount = async () => Number((await svc.store.db.selectFrom('captures').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('refuses a cross-site text/plain write with 415 and writes nothing, even with a default actor', async () => {
    const [items, captures] = [await itemCount(), await captureCount()];
    const simple = { 'content-type': 'text/plain', origin: `${withDefault.url}` };
    const item = await send(withDefault.url, 'POST', '/projects/pa/items', simple, JSON.stringify({ title: 'Forged' }));
    expect(item.status).toBe(415);
    expect(errorOf(item)).toMatchObject({ code: 'unsupported_media_type', details: { field: 'content-type' } });
    const capture = await send(withDefault.url, 'POST', '/captures', { 'content-type': 'text/plain' }, JSON.stringify({ text: 'forged' }));
    expect(capture.status).toBe(415);
    const form = await send(withDefault.url, 'POST', '/captures', { 'content-type': 'application/x-www-form-urlencoded' }, 'text=forged');
    expect(form.status).toBe(415);
    const lookalike = await send(withDefault.url, 'POST', '/captures', { 'content-type': 'application/jsonx' }, '{"text":"forged"}');
    expect(lookalike.status).toBe(415);
    const unit = (await send(withDefault.url, 'POST', '/projects/pa/work-units', json, '{"title":"U"}')).body as { id: string };
    const task = (await send(withDefault.url, 'POST', `/work-units/${unit.id}/tasks`, json, '{"title":"T"}')).body as { id: string };
    // A body-less POST is a "simple" cross-site request too.
    expect((await send(withDefault.url, 'POST', `/tasks/${task.id}/start`, {})).status).toBe(415);
    expect(await itemCount()).toBe(items + 1);
    expect(await captureCount()).toBe(captures);
    const withCharset = await send(withDefault.url, 'POST', '/captures', { 'content-type': 'Application/JSON; charset=utf-8' }, '{"text":"kept"}');
    expect(withCharset.status).toBe(200);
  });

  it('refuses a foreign Host or Origin on every route, reads included, and leaves /health open', async () => {
    const rebound = await send(plain.url, 'GET', '/projects/pa/brief', { host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    expect(errorOf(rebound)).toMatchObject({ code: 'forbidden', details: { field: 'host' } });
    expect((await send(plain.url, 'GET', '/ready', { host: 'attacker.example:8080' })).status).toBe(403);
    expect((await send(plain.url, 'GET', '/openapi.json', { host: 'attacker.example' })).status).toBe(403);
    expect((await send(plain.url, 'GET', '/health', { host: 'attacker.example' })).status).toBe(200);
    for (const origin of ['http://evil.example', 'null', 'http://localhost.evil.example', 'file://', 'http://[::1]evil']) {
      const crossSite = await send(withDefault.url, 'POST', '/captures', { ...json, origin }, '{"text":"forged"}');
      expect(crossSite.status, origin).toBe(403);
      expect(errorOf(crossSite).details.field).toBe('origin');
    }
    // Node itself answers 400 to some of these; either way nothing is served.
    for (const host of ['[::1]evil.example', 'localhost@evil.example', 'localhost:80:80', '127.0.0.1.evil.example', 'localhost:8080/x']) {
      expect([400, 403], host).toContain((await send(plain.url, 'GET', '/projects/pa/brief', { host })).status);
    }
    const port = new URL(plain.url).port;
    expect((await send(plain.url, 'GET', '/projects/pa/brief', { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await send(plain.url, 'GET', '/projects/pa/brief', { host: '[::1]' })).status).toBe(200);
    const mcp = await send(plain.url, 'POST', '/mcp', { ...MCP_HEADERS, host: 'attacker.example' }, JSON.stringify(toolCall(1, 'svc_brief', { project_id: 'pa' })));
    expect(mcp.status).toBe(403);
  });

  it('serves another site only a page navigation: its <img>, script or fetch reads are refused (an attacker froze the embedded server with <img src=search>)', async () => {
    const search = '/projects/pa/items/search?query=cache';
    for (const [site, mode, dest] of [
      ['cross-site', 'no-cors', 'image'],
      ['cross-site', 'cors', 'empty'],
      ['same-site', 'no-cors', 'script'],
      ['cross-site', 'navigate', 'iframe'],
    ] as const) {
      const read = await send(plain.url, 'GET', search, { 'sec-fetch-site': site, 'sec-fetch-mode': mode, 'sec-fetch-dest': dest });
      expect(read.status, `${site} ${mode} ${dest}`).toBe(403);
      expect(errorOf(read).details.field).toBe('sec-fetch-site');
    }
    // A link followed from another site, the user's own tab or bookmark, this origin's own page, and clients that are
    // not browsers (no such header) are served.
    const served: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
      { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' },
      {},
    ];
    for (const headers of served) {
      expect((await send(plain.url, 'GET', search, headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  it("accepts only the request's own origin: another port, allowed name or scheme of this machine is another site", async () => {
    const port = new URL(withDefault.url).port;
    const host = `localhost:${port}`;
    const write = (headers: Record<string, string>) => send(withDefault.url, 'POST', '/captures', { ...json, host, ...headers }, '{"text":"from a page"}');
    const read = (headers: Record<string, string>) => send(withDefault.url, 'GET', '/projects/pa/brief', { host, ...headers });
    const captures = await captureCount();
    // Another local app's page (http://localhost:3000), or this port under the other loopback name or scheme.
    for (const origin of ['http://localhost:3000', 'http://localhost', `http://127.0.0.1:${port}`, `http://[::1]:${port}`, `https://localhost:${port}`]) {
      for (const answer of [await write({ origin }), await read({ origin })]) {
        expect({ origin, status: answer.status }).toEqual({ origin, status: 403 });
        expect(errorOf(answer)).toMatchObject({ code: 'forbidden', details: { field: 'origin' } });
      }
    }
    expect(errorOf(await read({ origin: 'http://localhost:3000' })).message).toContain(`http://localhost:${port}`);
    expect(await captureCount()).toBe(captures);
    // Its own origin, as a browser sends it (the host's case and a default port do not matter).
    expect((await write({ origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await read({ origin: `http://LOCALHOST:${port}` })).status).toBe(200);
    expect((await send(withDefault.url, 'GET', '/projects/pa/brief', { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    // Behind a TLS-terminating proxy the scheme is the one it reports, and only that one.
    expect((await read({ origin: `https://localhost:${port}`, 'x-forwarded-proto': 'https' })).status).toBe(200);
    expect((await read({ origin: `http://localhost:${port}`, 'x-forwarded-proto': 'https' })).status).toBe(403);
    // /mcp is guarded the same way.
    const mcp = await send(withDefault.url, 'POST', '/mcp', { ...MCP_HEADERS, host, origin: 'http://localhost:3000' }, JSON.stringify(toolCall(1, 'svc_brief', { project_id: 'pa' })));
    expect(mcp.status).toBe(403);
  });

  it('compares SVC_ALLOWED_HOSTS entries by host and, when an entry names one, port', async () => {
    const brief = (headers: Record<string, string>) => send(proxied.url, 'GET', '/projects/pa/brief', headers);
    expect((await brief({ host: 'svc.example:8443' })).status).toBe(200);
    // The proxy terminates TLS and says so; the page's origin is then the request's own.
    expect((await brief({ host: 'svc.example:8443', origin: 'https://svc.example:8443', 'x-forwarded-proto': 'https' })).status).toBe(200);
    // Another allowed name is another site.
    expect((await brief({ host: 'ops.example', origin: 'http://ops.example' })).status).toBe(200);
    expect((await brief({ host: 'ops.example:1234', origin: 'http://ops.example' })).status).toBe(403);
    expect((await brief({ host: 'svc.example:9999' })).status).toBe(403);
    expect((await brief({ host: 'svc.example' })).status).toBe(403);
    expect((await brief({ host: 'ops.example:1234' })).status).toBe(200);
    expect((await brief({ host: 'ops.example', origin: 'https://svc.example' })).status).toBe(403);
    expect((await brief({ host: 'localhost' })).status).toBe(403);
  });

  it('refuses a body actor_id naming someone else than X-Actor, over REST and /mcp', async () => {
    const asSeeded = { ...json, 'x-actor': seeded.actorId };
    const spoofed = await send(plain.url, 'POST', '/captures', asSeeded, JSON.stringify({ text: 'spoof', actor_id: other }));
    expect(spoofed.status).toBe(400);
    expect(errorOf(spoofed)).toMatchObject({ code: 'invalid_input', details: { field: 'actor_id' } });
    expect(errorOf(spoofed).message).toMatch(/^actor_id: /);
    const unit = (await send(plain.url, 'POST', '/projects/pa/work-units', asSeeded, '{"title":"Ideas"}')).body as { id: string };
    const idea = await send(plain.url, 'POST', `/work-units/${unit.id}/ideas`, asSeeded, JSON.stringify({ text: 'spoof', actor_id: other }));
    expect(errorOf(idea).details.field).toBe('actor_id');
    const same = await send(plain.url, 'POST', '/captures', asSeeded, JSON.stringify({ text: 'same', actor_id: seeded.actorId.toUpperCase() }));
    expect(same.status).toBe(200);

    const mcp = await send(plain.url, 'POST', '/mcp', { ...MCP_HEADERS, 'x-actor': seeded.actorId }, JSON.stringify(toolCall(1, 'svc_capture_add', { text: 'spoof', actor_id: other })));
    const result = (mcp.body as ToolAnswer).result;
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.error).toMatchObject({ code: 'invalid_input', details: { field: 'actor_id' } });
    const spoofedRows = await svc.store.db.selectFrom('captures').select('id').where('text', '=', 'spoof').execute();
    expect(spoofedRows).toEqual([]);
  });

  it('refuses a body actor_id alone (no X-Actor, no default actor) with 400 actor_required over REST and /mcp; over the default actor it names the author', async () => {
    const alone = await send(plain.url, 'POST', '/captures', json, JSON.stringify({ text: 'body alone', actor_id: other }));
    expect(alone.status).toBe(400);
    expect(errorOf(alone)).toMatchObject({ code: 'actor_required', details: { field: 'actor' } });
    const mcp = await send(plain.url, 'POST', '/mcp', MCP_HEADERS, JSON.stringify(toolCall(1, 'svc_capture_add', { text: 'body alone', actor_id: other })));
    const result = (mcp.body as ToolAnswer).result;
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.error).toMatchObject({ code: 'actor_required', details: { field: 'actor' } });
    expect(await svc.store.db.selectFrom('captures').select('id').where('text', '=', 'body alone').execute()).toEqual([]);

    const byBody = await send(withDefault.url, 'POST', '/captures', json, JSON.stringify({ text: 'by body', actor_id: other }));
    expect(byBody.status).toBe(200);
    const emptyHeader = await send(withDefault.url, 'POST', '/captures', { ...json, 'x-actor': '' }, JSON.stringify({ text: 'by default' }));
    expect(emptyHeader.status).toBe(200);
    const rows = await svc.store.db.selectFrom('captures').select(['text', 'created_by']).where('text', 'in', ['by body', 'by default']).orderBy('text').execute();
    expect(rows).toEqual([
      { text: 'by body', created_by: other },
      { text: 'by default', created_by: seeded.actorId },
    ]);
    const noActor = await send(plain.url, 'POST', '/captures', { ...json, 'x-actor': '' }, JSON.stringify({ text: 'nobody' }));
    expect(errorOf(noActor).code).toBe('actor_required');
  });

  it('refuses prototype keys as query parameters, body keys and MCP arguments with 400 naming the key, without an error log', async () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const query = await send(plain.url, 'GET', `/projects/pa/brief?${key}=x`, {});
      expect(query.status, key).toBe(400);
      expect(errorOf(query), key).toMatchObject({ code: 'invalid_input', details: { field: key } });
      const body = await send(plain.url, 'POST', '/captures', { ...json, 'x-actor': seeded.actorId }, `{"text":"x","${key}":"x"}`);
      expect(body.status, key).toBe(400);
      expect(errorOf(body).details.field, key).toBe(key);
      const mcp = await send(plain.url, 'POST', '/mcp', MCP_HEADERS, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_brief","arguments":{"project_id":"pa","${key}":"x"}}}`);
      const result = (mcp.body as ToolAnswer).result;
      expect(result.isError, key).toBe(true);
      expect(result.structuredContent?.error, key).toMatchObject({ code: 'invalid_input', details: { field: key } });
    }
    expect(logs.filter((line) => line.level >= ERROR)).toEqual([]);
  });

  it('runs a JSON-RPC batch of 100 calls a few at a time, so a concurrent request is answered before it ends', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const links = ids.slice(-3).map((target_id) => ({ type: 'depends' as const, target_id }));
      ids.push(((await svc.as(seeded.actorId)(ops.svc_item_upsert, { project_id: 'pa', title: `Node ${i}`, links })) as { id: string }).id);
    }
    let inFlight = 0;
    let most = 0;
    let firstStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      firstStarted = resolve;
    });
    const base = svc.sibling();
    const counting: Service = {
      ...base,
      call: (async (name: string, input: unknown, call: CallContext) => {
        if (call.source !== 'mcp') return base.call(name, input, call);
        inFlight++;
        most = Math.max(most, inFlight);
        firstStarted();
        try {
          return await base.call(name, input, call);
        } finally {
          inFlight--;
        }
      }) as Service['call'],
      close: async () => {},
    };
    const server = await startHttpServer(counting, { host: '127.0.0.1', port: 0 });
    try {
      const batch = Array.from({ length: 100 }, (_, i) => toolCall(i, 'svc_impact', { project_id: 'pa', item_id: ids[19 - (i % 5)], depth: 5 }));
      const order: string[] = [];
      const whole = send(server.url, 'POST', '/mcp', MCP_HEADERS, JSON.stringify(batch)).then((answer) => {
        order.push('batch');
        return answer;
      });
      await started;
      const ready = await send(server.url, 'GET', '/ready', {});
      order.push('ready');
      expect(ready.status).toBe(200);
      const answer = await whole;
      expect(answer.status).toBe(200);
      const answers = answer.body as ToolAnswer[];
      expect(answers).toHaveLength(100);
      expect(answers.every((a) => a.result.isError !== true)).toBe(true);
      expect(order).toEqual(['ready', 'batch']);
      // Never more than a few of the batch's calls held the database at once (the pool holds 10).
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(4);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['Content-Length: 1000', '{"text":"half'],
    ['Transfer-Encoding: chunked', 'd\r\n{"text":"half\r\n'],
  ])('logs a client that drops its upload mid-body (%s) as one warning, without a stack', async (framing, partial) => {
    const { port } = new URL(plain.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /captures HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-Actor: ${seeded.actorId}\r\n${framing}\r\n\r\n${partial}`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
      socket.on('error', reject);
    });
    // The server notices the reset on its next turn; give it a moment to log.
    for (let i = 0; i < 50 && !logs.some((line) => line.msg !== 'request'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(logs.filter((line) => line.level >= ERROR)).toEqual([]);
    expect(logs.filter((line) => line.err?.stack !== undefined)).toEqual([]);
    expect(logs.filter((line) => /closed the connection/.test(line.msg))).toHaveLength(1);
    expect(await svc.store.db.selectFrom('captures').select('id').where('text', 'like', 'half%').execute()).toEqual([]);
  });
});
