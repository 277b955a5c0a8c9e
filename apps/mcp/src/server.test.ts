import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { openTestService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

describe.each(testBackends())('MCP surface on $name', (backend) => {
  let svc: TestService;
  let client: Client;
  let seeded: { actorId: string; projectId: string };

  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await client?.close();
    await svc.close();
  });
  beforeEach(async () => {
    await client?.close();
    await svc.store.reset();
    seeded = await svc.seed('mcp');
    const server = createMcpServer(svc, { actorId: seeded.actorId });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
  });

  it("lists exactly SPEC.md's 33 svc_ tools, no more and no fewer", async () => {
    // Written out from SPEC.md on purpose: a tool added to or dropped from the catalog must fail here.
    const spec = [
      'svc_brief',
      'svc_capture_add',
      'svc_capture_annotate',
      'svc_capture_discard',
      'svc_capture_list',
      'svc_capture_promote',
      'svc_capture_redact',
      'svc_capture_search',
      'svc_capture_set_state',
      'svc_check',
      'svc_history_query',
      'svc_idea_add',
      'svc_idea_list',
      'svc_idea_redact',
      'svc_idea_search',
      'svc_impact',
      'svc_item_search',
      'svc_item_upsert',
      'svc_page_sync',
      'svc_qa_add',
      'svc_qa_fail',
      'svc_qa_list_pending',
      'svc_qa_pass',
      'svc_save_decisions',
      'svc_task_add',
      'svc_task_block',
      'svc_task_done',
      'svc_task_edit',
      'svc_task_list',
      'svc_task_start',
      'svc_work_close',
      'svc_work_open',
      'svc_work_resume',
    ];
    expect(spec).toHaveLength(33);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(spec);
  });

  it('lists only tool operations, each with an object input schema and annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('svc_item_upsert');
    expect(names.every((n) => n.startsWith('svc_'))).toBe(true);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBeTypeOf('boolean');
    }
  });

  it('answers a write with JSON text and the same structured content, attributed to the connection actor', async () => {
    const result = await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp', title: 'Use PostgreSQL' } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { id: string; created_by: string };
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(structured);
    expect(structured.created_by).toBe(seeded.actorId);
  });

  it('returns invalid input as an isError result naming the field, and keeps serving', async () => {
    const bad = await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp', title: 42 } });
    expect(bad.isError).toBe(true);
    const error = (bad.structuredContent as { error: { code: string; message: string; details: { field?: string } } }).error;
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^title: /);
    expect(error.details.field).toBe('title');
    const unknown = await client.callTool({ name: 'svc_nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    const ok = await client.callTool({ name: 'svc_history_query', arguments: { project_id: 'mcp' } });
    expect(ok.isError).toBeFalsy();
  });

  it('svc_impact follows incoming links on request and says which way it went; project_id stays required', async () => {
    const save = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp', ...args } })).structuredContent as { id: string };
    const db = await save({ title: 'Use PostgreSQL' });
    const cache = await save({ title: 'Cache in Postgres', links: [{ type: 'depends', target_id: db.id }] });
    const text = async (args: Record<string, unknown>) => {
      const result = await client.callTool({ name: 'svc_impact', arguments: { project_id: 'mcp', item_id: db.id, ...args } });
      expect(result.isError).toBeFalsy();
      return (result.content as { text: string }[])[0]!.text;
    };
    const outgoing = await text({});
    expect(outgoing).toContain('outgoing links');
    expect(outgoing).not.toContain('Cache in Postgres');
    const incoming = await text({ direction: 'incoming' });
    expect(incoming).toContain('incoming links');
    expect(incoming).toContain(`- depends ← **Cache in Postgres** (\`${cache.id.slice(0, 8)}\``);

    const tool = (await client.listTools()).tools.find((t) => t.name === 'svc_impact')!;
    expect(tool.inputSchema.required).toEqual(expect.arrayContaining(['item_id', 'project_id']));
    expect((tool.inputSchema.properties as Record<string, { enum?: string[] }>).direction?.enum).toEqual(['outgoing', 'incoming']);
    expect(tool.description).not.toMatch(/affected if this item changes/);
    const unscoped = await client.callTool({ name: 'svc_impact', arguments: { item_id: db.id } });
    expect(unscoped.isError).toBe(true);
    const error = (unscoped.structuredContent as { error: { code: string; details: { field: string } } }).error;
    expect([error.code, error.details.field]).toEqual(['invalid_input', 'project_id']);
  });
});

describe('MCP error sanitising', () => {
  it('answers a database outage as unavailable without the connection string, and keeps serving', async () => {
    const { openUnreachableService } = await import('@svc/service/testing');
    const svc = await openUnreachableService();
    const server = createMcpServer(svc, { actorId: '00000000-0000-4000-8000-000000000000' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      for (const name of ['svc_brief', 'svc_capture_add']) {
        const result = await client.callTool({ name, arguments: name === 'svc_brief' ? { project_id: 'x' } : { text: 'y' } });
        expect(result.isError).toBe(true);
        const text = JSON.stringify(result);
        expect((result.structuredContent as { error: { code: string } }).error.code).toBe('unavailable');
        expect(text).not.toMatch(/postgres:\/\/|127\.0\.0\.1:1|ECONNREFUSED|at .*\.(ts|js):\d+/);
      }
      await expect(client.listTools()).resolves.toBeDefined();
    } finally {
      await client.close();
      await svc.close();
    }
  });

  it('answers an unexpected failure as internal_error with a request id and no internals', async () => {
    const [backend] = testBackends();
    const svc = await openTestService(backend!);
    const seeded = await svc.seed('broken');
    // Break the database underneath the service: the next query fails in a way no code path expects.
    const { sql } = await import('kysely');
    await sql`alter table projects rename column slug to slug_gone`.execute(svc.store.db);
    const server = createMcpServer(svc, { actorId: seeded.actorId });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'svc_brief', arguments: { project_id: 'broken' } });
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error: { code: string; message: string; details: { request_id: string } } }).error;
      expect(error.code).toBe('internal_error');
      expect(error.message).toContain(error.details.request_id);
      expect(JSON.stringify(result)).not.toMatch(/slug|column|select|projects/i);
    } finally {
      await sql`alter table projects rename column slug_gone to slug`.execute(svc.store.db);
      await client.close();
      await svc.close();
    }
  });
});
