import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { openTestService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

type Failure = { isError?: boolean; structuredContent?: { error: { code: string; message: string } } };

describe.each(testBackends())('hostile input over MCP on $name', (backend) => {
  let svc: TestService;
  let client: Client;

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    const { actorId } = await svc.seed('mcp-limits');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(svc, { actorId }).connect(serverSide);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await svc.close();
  });

  it('refuses a context or signals nested 5,000 deep with an isError result naming the field, and keeps serving', async () => {
    const deep = (await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp-limits', title: 'Deep', context: nested(5_000) } })) as Failure;
    expect(deep.isError).toBe(true);
    expect(deep.structuredContent?.error).toEqual(expect.objectContaining({ code: 'invalid_input', message: 'context: nested deeper than 64 levels' }));
    const capture = (await client.callTool({ name: 'svc_capture_add', arguments: { text: 'note' } })).structuredContent as { id: string };
    const signals = (await client.callTool({ name: 'svc_capture_annotate', arguments: { capture_id: capture.id, signals: nested(5_000) } })) as Failure;
    expect(signals.structuredContent?.error).toEqual(expect.objectContaining({ code: 'invalid_input', message: 'signals: nested deeper than 64 levels' }));
    const ok = await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp-limits', title: 'Fine', context: nested(64) } });
    expect(ok.isError).toBeFalsy();
  });

  it('refuses a javascript: source_url with an isError result naming source_url, and stores nothing', async () => {
    const source = (await client.callTool({
      name: 'svc_item_upsert',
      arguments: { project_id: 'mcp-limits', item_type: 'research', title: 'XSS', source_url: 'javascript:alert(1)' },
    })) as Failure;
    expect(source.isError).toBe(true);
    expect(source.structuredContent?.error).toEqual(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/^source_url: /) }));
    expect(await svc.store.db.selectFrom('items').select('id').where('title', '=', 'XSS').execute()).toEqual([]);
  });

  it('refuses a context number that overflowed to Infinity with an isError result naming its place, and stores nothing', async () => {
    // What JSON.parse makes of 1e400; the in-memory transport hands it over as it is.
    const huge = (await client.callTool({
      name: 'svc_item_upsert',
      arguments: { project_id: 'mcp-limits', title: 'Overflow', context: { a: { b: Number.POSITIVE_INFINITY } } },
    })) as Failure;
    expect(huge.isError).toBe(true);
    expect(huge.structuredContent?.error).toEqual(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/^context\.a\.b: .*finite/) }));
    expect(await svc.store.db.selectFrom('items').select('id').where('title', '=', 'Overflow').execute()).toEqual([]);
  });

  it('says over MCP why a search answer is cut, and refuses a query over the clause limit instead of cutting it', async () => {
    for (const title of ['Shard map one', 'Shard map two']) {
      await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp-limits', title, body: 'shard' } });
    }
    const search = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'svc_item_search', arguments: { project_id: 'mcp-limits', ...args } })).structuredContent as { items: unknown[]; truncated: unknown };
    expect(await search({ query: 'shard', limit: 1 })).toMatchObject({ items: [expect.anything()], truncated: ['limit'] });
    expect(await search({ query: 'shard', limit: 2 })).toMatchObject({ truncated: false });
    const many = (await client.callTool({
      name: 'svc_item_search',
      arguments: { project_id: 'mcp-limits', query: `${'shard '.repeat(32)}-map` },
    })) as Failure;
    expect(many.isError).toBe(true);
    expect(many.structuredContent?.error).toEqual(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/^query: has 33 clauses/) }));
    // A number sent as a string, and an exclusion of no word: plain words naming the field (an attacker, 2026-11-27).
    for (const [args, message] of [
      [{ query: 'shard', limit: '5' }, 'limit: must be a number, not a string'],
      [{ query: 'shard -!!!' }, 'query: excludes no word (-!!!): a leading - excludes the word or "phrase" after it; write the word, or leave the dash out'],
    ] as const) {
      const refused = (await client.callTool({ name: 'svc_item_search', arguments: { project_id: 'mcp-limits', ...args } })) as Failure;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent?.error).toEqual(expect.objectContaining({ code: 'invalid_input', message }));
    }
  });

  it('tells an assistant in svc_item_search how far glossary expansion goes', async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === 'svc_item_search');
    expect(search?.description).toMatch(/synonyms, ≤16 each and ≤64 in all .*truncated, expansion_cut, partial\?\}/);
  });
});
