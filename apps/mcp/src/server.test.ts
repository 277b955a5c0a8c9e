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
    const error = (bad.structuredContent as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^title: /);
    const unknown = await client.callTool({ name: 'svc_nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    const ok = await client.callTool({ name: 'svc_history_query', arguments: { project_id: 'mcp' } });
    expect(ok.isError).toBeFalsy();
  });
});
