import { ops } from '@svc/service';
import { openTestService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from './server.js';

/** The JSON text of `levels` nested objects, written out so nothing on the sending side recurses. */
function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{"leaf":1}${'}'.repeat(levels - 1)}`;
}

type ErrorBody = { error: { code: string; message: string; details: Record<string, unknown> } };

describe.each(testBackends())('hostile input against a listening server on $name', (backend) => {
  let svc: TestService;
  let server: RunningHttpServer;
  let actorId: string;

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    ({ actorId } = await svc.seed('probe'));
    server = await startHttpServer(svc.sibling(), { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await svc.close();
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-actor': actorId, ...headers }, body });

  it('answers a REST write whose context nests 5,000 deep with 400 naming context, and keeps serving', async () => {
    const response = await post('/projects/probe/items', `{"title":"Deep","context":${nestedJson(5_000)}}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error).toMatchObject({
      code: 'invalid_input',
      message: 'context: nested deeper than 64 levels',
      details: { field: 'context' },
    });
    const ok = await post('/projects/probe/items', `{"title":"Deep enough","context":${nestedJson(64)}}`);
    expect(ok.status).toBe(200);
    const { id } = (await ok.json()) as { id: string };
    expect((await fetch(`${server.url}/items/${id}`)).status).toBe(200);
  });

  it('answers a body of 900,000 nested arrays (just under 2 MiB) with 400 on REST and an isError result on /mcp', async () => {
    const levels = 900_000;
    const arrays = `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const rest = await post('/projects/probe/items', `{"title":"Deepest","context":{"a":${arrays}}}`);
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as ErrorBody).error.message).toBe('context: nested deeper than 64 levels');
    const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_item_upsert","arguments":{"project_id":"probe","title":"Deepest","context":{"a":${arrays}}}}}`;
    const mcp = await post('/mcp', call, { accept: 'application/json, text/event-stream' });
    const { result } = (await mcp.json()) as { result: { isError: boolean; structuredContent: ErrorBody } };
    expect(result.structuredContent.error).toMatchObject({ code: 'invalid_input', message: 'context: nested deeper than 64 levels' });
  });

  it('answers a __proto__ key inside context or signals with 400 naming the field, and writes nothing', async () => {
    const response = await post('/projects/probe/items', '{"title":"Proto","context":{"__proto__":{"x":1},"k":1}}');
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error).toMatchObject({ code: 'invalid_input', details: { field: 'context' } });
    const deep = await post('/projects/probe/items', '{"title":"Proto","context":{"a":[{"__proto__":null}]}}');
    expect(((await deep.json()) as ErrorBody).error.details).toMatchObject({ field: 'context.a.0' });
    const rows = await svc.store.db.selectFrom('items').select('id').where('title', '=', 'Proto').execute();
    expect(rows).toEqual([]);
  });

  it('answers a NUL character in title, body, context or a context key with 400 naming the field', async () => {
    for (const [field, body] of [
      ['title', '{"title":"a\\u0000b"}'],
      ['body', '{"title":"t","body":"x\\u0000"}'],
      ['context.k', '{"title":"t","context":{"k":"v\\u0000"}}'],
      ['context', '{"title":"t","context":{"k\\u0000":1}}'],
    ] as const) {
      const response = await post('/projects/probe/items', body);
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as ErrorBody;
      expect(error).toMatchObject({ code: 'invalid_input', details: { field } });
      expect(error.message).toMatch(/NUL/);
    }
  });

  it('answers a javascript: source_url with 400 naming source_url on REST and an isError result on /mcp, and stores nothing', async () => {
    const rest = await post('/projects/probe/items', '{"item_type":"research","title":"XSS source","source_url":"javascript:alert(1)"}');
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as ErrorBody).error).toMatchObject({ code: 'invalid_input', details: { field: 'source_url' } });
    const capture = (await (await post('/captures', '{"text":"a note"}')).json()) as { id: string };
    const promote = await post(`/captures/${capture.id}/promote`, '{"project_id":"probe","title":"XSS source","source_url":"javascript:alert(1)"}');
    expect(promote.status).toBe(400);
    expect(((await promote.json()) as ErrorBody).error.details).toMatchObject({ field: 'source_url' });
    const call = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_item_upsert","arguments":{"project_id":"probe","title":"XSS source","source_url":"javascript:alert(1)"}}}';
    const mcp = await post('/mcp', call, { accept: 'application/json, text/event-stream' });
    const { result } = (await mcp.json()) as { result: { isError: boolean; structuredContent: ErrorBody } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: 'invalid_input', details: { field: 'source_url' } });
    expect(await svc.store.db.selectFrom('items').select('id').where('title', '=', 'XSS source').execute()).toEqual([]);
  });

  it('answers 1e400 in a context with 400 naming its place, instead of storing null', async () => {
    const response = await post('/projects/probe/items', '{"title":"Overflow","context":{"a":{"b":1e400}}}');
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'context.a.b' } });
    expect(error.message).toMatch(/finite/);
    // A query parameter of 400 digits is a number to the route, and Infinity to Number().
    const limit = await fetch(`${server.url}/projects/probe/items/search?query=x&limit=${'9'.repeat(400)}`);
    expect(limit.status).toBe(400);
    expect(((await limit.json()) as ErrorBody).error).toMatchObject({ code: 'invalid_input', details: { field: 'limit' }, message: expect.stringMatching(/finite/) });
    expect(await svc.store.db.selectFrom('items').select('id').where('title', '=', 'Overflow').execute()).toEqual([]);
  });

  it('refuses a parameter given twice and a number not written in digits, naming them (an attacker, 2026-11-27)', async () => {
    for (const [query, field, message] of [
      ['query=cache&query=mysql', 'query', 'query: given 2 times; give it once'],
      ['query=x&limit=2&limit=3', 'limit', 'limit: given 2 times; give it once'],
      ['query=x&limit=1e1', 'limit', 'limit: must be a number written in digits, such as 20 (got "1e1")'],
      ['query=x&limit=%2B5', 'limit', 'limit: must be a number written in digits, such as 20 (got "+5")'],
      // Not UTF-8 when decoded (a lone surrogate, a bare %): the value was kept as written and searched for as such.
      ['query=%ED%A0%80', 'query', 'query: not valid percent-encoded UTF-8 ("%ED%A0%80")'],
      ['query=50%', 'query', 'query: not valid percent-encoded UTF-8 ("50%")'],
      ['query=x&%FF=1', '%FF', '%FF: not valid percent-encoded UTF-8 ("%FF")'],
    ] as const) {
      const response = await fetch(`${server.url}/projects/probe/items/search?${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as ErrorBody).error, query).toMatchObject({ code: 'invalid_input', details: { field }, message });
    }
    // A list may be given as repeated parameters, as before.
    expect((await fetch(`${server.url}/projects/probe/items/search?query=x&item_types=decision&item_types=policy`)).status).toBe(200);
  });

  it('answers a context over 1 MiB (within the 2 MiB body limit) with 400 naming context and the limit', async () => {
    const response = await post('/projects/probe/items', JSON.stringify({ title: 'Big context', context: { s: 'x'.repeat(1_500_000) } }));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'context' } });
    expect(error.message).toMatch(/1 MiB/);
  });

  it('answers a body of 1,000,000 characters of distinct words with 400 naming title and body, not 413', async () => {
    const words: string[] = [];
    for (let i = 0, n = 0; n < 1_000_000; i++, n += words.at(-1)!.length + 1) words.push(`w${i.toString(36)}`);
    const response = await post('/projects/probe/items', JSON.stringify({ title: 'Words', body: words.join(' ').slice(0, 1_000_000) }));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'body' } });
    expect(error.message).toMatch(/^title and body: .*search index/);
    expect(await svc.store.db.selectFrom('items').select('id').where('title', '=', 'Words').execute()).toEqual([]);
  }, 60_000);

  it('answers the same over MCP at /mcp: an isError result naming context, not a transport failure', async () => {
    const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_item_upsert","arguments":{"project_id":"probe","title":"Deep","context":${nestedJson(5_000)}}}}`;
    const response = await post('/mcp', call, { accept: 'application/json, text/event-stream' });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { isError: boolean; structuredContent: ErrorBody } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: 'invalid_input', message: 'context: nested deeper than 64 levels' });
  });

  it('runs a type schema pattern ^(a+)+$ on a linear engine: a catastrophic input is an ordinary 400, /health stays up', async () => {
    await svc.call(ops.type_add, { key: 'ticket', schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } } }, { source: 'cli' });
    // About 2^40 backtracking steps on JavaScript's RegExp: this answers at all only on a linear-time engine.
    const writes = Array.from({ length: 3 }, () =>
      post('/projects/probe/items', JSON.stringify({ item_type: 'ticket', title: 'T', context: { code: `${'a'.repeat(40)}!` } })),
    );
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    for (const response of await Promise.all(writes)) {
      expect(response.status).toBe(400);
      expect(((await response.json()) as ErrorBody).error.details).toMatchObject({ field: 'context.code' });
    }
    const fine = await post('/projects/probe/items', JSON.stringify({ item_type: 'ticket', title: 'T', context: { code: 'aaaa' } }));
    expect(fine.status).toBe(200);
  });

  it('answers a long OR query over a 500-term glossary group with results and expansion_cut, not 503', async () => {
    const group = (await svc.call(ops.glossary_group_add, { project_id: 'probe', name: 'big' }, { source: 'cli' })) as { id: string; project_id: string };
    const terms = Array.from({ length: 500 }, (_, i) => `term${i}`);
    await svc.store.db
      .insertInto('glossary_terms')
      .values(terms.map((term) => ({ project_id: group.project_id, group_id: group.id, term, normalized: term, status: 'accepted', decided_at: new Date() })))
      .execute();
    expect((await post('/projects/probe/items', JSON.stringify({ title: 'About term3', body: 'term3 matters' }))).status).toBe(200);
    const query = Array.from({ length: 30 }, (_, i) => `term${i}`).join(' OR ');
    const response = await fetch(`${server.url}/projects/probe/items/search?query=${encodeURIComponent(query)}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { items: { title: string }[]; truncated: boolean; expansion_cut: boolean };
    expect(body.expansion_cut).toBe(true);
    expect(body.items.map((i) => i.title)).toContain('About term3');
  });
});
