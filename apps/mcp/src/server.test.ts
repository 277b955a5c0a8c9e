import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { openTestService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer, TOOLS_LIST_BUDGET } from './server.js';
import { ops } from '@svc/service';

/** An MCP client linked in memory to a server over `svc`, acting as `actorId`. */
async function connectClient(svc: TestService, actorId: string): Promise<Client> {
  const server = createMcpServer(svc, { actorId });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

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
    client = await connectClient(svc, seeded.actorId);
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
      // readOnlyHint is said only when true (false is MCP's default); a write always says whether it destroys.
      expect(tool.annotations?.openWorldHint).toBe(false);
      if (!tool.annotations?.readOnlyHint) expect(tool.annotations?.destructiveHint).toBeTypeOf('boolean');
    }
  });

  it('answers a write with JSON text and the same structured content, attributed to the connection actor', async () => {
    const result = await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp', title: 'Use PostgreSQL' } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { id: string };
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(structured);
    const shown = (await svc.call(ops.item_show, { item_id: structured.id }, { source: 'test' })) as { item: { created_by: string } };
    expect(shown.item.created_by).toBe(seeded.actorId);
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

  it('names the tool a misspelt or unprefixed tool name most likely meant (a newcomer got no hint), and no more than 64 characters of the name, control characters written out', async () => {
    const refusal = async (name: string) => {
      const result = await client.callTool({ name, arguments: { project_id: 'mcp' } });
      expect(result.isError, name).toBe(true);
      return (result.structuredContent as { error: { code: string; message: string } }).error;
    };
    for (const [name, meant] of [
      ['item_search', 'svc_item_search'],
      ['svc_item_serch', 'svc_item_search'],
      ['SVC-Brief', 'svc_brief'],
      ['svc_task_stat', 'svc_task_start'],
      ['capture.add', 'svc_capture_add'],
    ]) {
      expect(await refusal(name as string)).toEqual({
        code: 'not_found',
        message: `no tool "${name}"; did you mean "${meant}"? tools/list shows the tools`,
        details: { did_you_mean: meant },
      });
    }
    expect((await refusal('svc_nope')).message).toBe('no tool "svc_nope"; tools/list shows the tools');
    const long = 'svc_'.repeat(5_000);
    expect((await refusal(long)).message).toBe(`no tool "${long.slice(0, 64)}…"; tools/list shows the tools`);
    // Control characters are written out, never passed on to a client that prints the message.
    const painted = await refusal('svc_\u001b[31mred\u0000');
    expect(painted.message).toBe('no tool "svc_\\u001b[31mred\\u0000"; tools/list shows the tools');
    expect([...painted.message].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
  });

  it("refuses tools/call arguments that are not an object as invalid params in one plain sentence, and keeps serving (they were zod's issue list as JSON)", async () => {
    for (const [args, kind] of [
      [[1], 'an array'],
      ['x', 'a string'],
      [null, 'null'],
      [7, 'a number'],
    ] as const) {
      const call = client.request({ method: 'tools/call', params: { name: 'svc_brief', arguments: args as unknown as Record<string, unknown> } }, CallToolResultSchema);
      await expect(call, JSON.stringify(args)).rejects.toMatchObject({
        code: -32602,
        message: `MCP error -32602: params.arguments: must be a JSON object of the tool's parameters, not ${kind}`,
        data: { code: 'invalid_input', details: { field: 'params.arguments' } },
      });
    }
    const ok = await client.callTool({ name: 'svc_history_query', arguments: { project_id: 'mcp' } });
    expect(ok.isError).toBeFalsy();
  });

  it('refuses changing an item type through svc_item_upsert as invalid_input naming item_type; the task stays done', async () => {
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      return result as { isError?: boolean; structuredContent: Record<string, unknown> };
    };
    const unit = (await tool('svc_work_open', { project_id: 'mcp', title: 'Unit' })).structuredContent as { id: string };
    const task = (await tool('svc_task_add', { work_unit_id: unit.id, title: 'Ship it' })).structuredContent as { id: string };
    await tool('svc_task_start', { task_id: task.id });
    await tool('svc_task_done', { task_id: task.id });

    const refused = await tool('svc_item_upsert', { project_id: 'mcp', item_id: task.id, item_type: 'decision' });
    expect(refused.isError).toBe(true);
    const error = (refused.structuredContent as { error: { code: string; message: string; details: { field: string } } }).error;
    expect([error.code, error.details.field]).toEqual(['invalid_input', 'item_type']);
    expect(error.message).toMatch(/^item_type: an item's type cannot change/);

    const pending = await tool('svc_task_list', { work_unit_id: unit.id, status: 'done' });
    expect((pending.structuredContent as { tasks: { id: string }[] }).tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it('clears a task body with null over MCP, advertises null in the schema, and refuses null where nothing can be cleared', async () => {
    const { tools } = await client.listTools();
    const edit = tools.find((t) => t.name === 'svc_task_edit');
    expect(edit?.description).toContain('null clears the body');
    expect(JSON.stringify(edit?.inputSchema.properties?.body)).toContain('null');
    const json = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      return { isError: result.isError, data: result.structuredContent as Record<string, unknown> & { id: string } };
    };
    const unit = (await json('svc_work_open', { project_id: 'mcp', title: 'Unit' })).data;
    const task = (await json('svc_task_add', { work_unit_id: unit.id, title: 'Task', body: 'Steps' })).data;
    const cleared = await json('svc_task_edit', { task_id: task.id, body: null });
    expect(cleared.isError).toBeFalsy();
    const shown = await svc.call(ops.item_show, { item_id: cleared.data.id }, { source: 'test' });
    expect(shown.item).toMatchObject({ body: '', title: 'Task' });
    expect(cleared.data.id).not.toBe(task.id);
    const refused = await json('svc_task_edit', { task_id: cleared.data.id, title: null });
    expect(refused.isError).toBe(true);
    expect(refused.data.error).toMatchObject({ code: 'invalid_input', details: { field: 'title' } });
  });

  it("answers svc_item_search with **word** around each match and the body's own asterisks escaped, in text and structured content", async () => {
    await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'mcp', title: 'Session store', body: 'Keep **Redis** for sessions' } });
    const snippet = async (query: string) => {
      const result = await client.callTool({ name: 'svc_item_search', arguments: { project_id: 'mcp', query } });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { items: { snippet: string }[] };
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(structured);
      return structured.items[0]?.snippet;
    };
    expect(await snippet('sessions')).toBe('Keep \\*\\*Redis\\*\\* for **sessions**');
    expect(await snippet('redis')).toBe('Keep \\*\\***Redis**\\*\\* for sessions');
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

describe.each(testBackends())('MCP resources, prompts and completions on $name', (backend) => {
  let svc: TestService;
  let client: Client;
  let actorId: string;

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
    ({ actorId } = await svc.seed('mcp'));
    client = await connectClient(svc, actorId);
  });

  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    return result.structuredContent as Record<string, unknown>;
  };
  const readText = async (uri: string) => {
    const { contents } = await client.readResource({ uri });
    expect(contents).toHaveLength(1);
    return contents[0] as { uri: string; mimeType: string; text: string };
  };

  it('declares tools, resources, prompts and completions without list_changed, and keeps exactly the 33 tools', async () => {
    const caps = client.getServerCapabilities();
    // The SDK declares list_changed for tools once its completion handlers are set; svc never sends it (a newcomer saw
    // `"tools":{"listChanged":true}` beside the README's "no list_changed notifications").
    expect(caps?.tools).toEqual({ listChanged: false });
    expect(caps?.resources).toEqual({ listChanged: false });
    expect(caps?.prompts).toEqual({ listChanged: false });
    expect(caps?.completions).toEqual({});
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(33);
    // Every conversation pays for tools/list; string bounds and default hints are left out to keep it small.
    expect(JSON.stringify({ tools }).length).toBeLessThanOrEqual(TOOLS_LIST_BUDGET);
    const read = tools.find((t) => t.name === 'svc_brief')!;
    expect(read.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(JSON.stringify(tools)).not.toMatch(/"(min|max)Length"/);
  });

  it("lists each project's brief and decisions, and the three resource templates", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['svc://projects/mcp/brief', 'svc://projects/mcp/decisions']);
    expect(resources.every((r) => r.name && r.mimeType === 'text/markdown' && r.description)).toBe(true);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'svc://items/{id}',
      'svc://projects/{project}/brief',
      'svc://projects/{project}/decisions',
    ]);
  });

  it('reads the brief, the current decisions and an item through the same operations as the tools', async () => {
    const saved = (await tool('svc_save_decisions', { project_id: 'mcp', decisions: [{ title: 'Use REST', body: 'Browsers.' }] })) as { created: string[] };
    const id = saved.created[0]!;
    const brief = await readText('svc://projects/mcp/brief');
    expect(brief).toMatchObject({ uri: 'svc://projects/mcp/brief', mimeType: 'text/markdown' });
    expect(brief.text).toContain('## Active Work Units');
    expect(brief.text).toContain('[decision] **Use REST**');
    const decisions = await readText('svc://projects/mcp/decisions');
    expect(decisions.text).toContain(`- **Use REST** (\`${id.slice(0, 8)}\``);
    const item = await readText(`svc://items/${id.slice(0, 8)}`);
    expect(item.mimeType).toBe('application/json');
    expect(JSON.parse(item.text)).toMatchObject({ item: { id, title: 'Use REST', body: 'Browsers.' }, links: [] });
  });

  it('answers an unknown project or item as a clean resource-not-found error, and keeps serving', async () => {
    await expect(client.readResource({ uri: 'svc://projects/nope/brief' })).rejects.toMatchObject({
      code: -32002,
      data: { code: 'not_found' },
    });
    await expect(client.readResource({ uri: 'svc://projects/nope/decisions' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'svc://items/ffffffff' })).rejects.toMatchObject({ code: -32002 });
    const bad = client.readResource({ uri: 'svc://items/not-an-id' });
    await expect(bad).rejects.toMatchObject({ code: -32602, data: { code: 'invalid_input', details: { field: 'item_id' } } });
    await expect(bad).rejects.not.toThrow(/ at .*\.ts:\d+|select |MCP error -32602: MCP error/i);
    await expect(client.readResource({ uri: 'other://x' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.listTools()).resolves.toBeDefined();
  });

  it('gets start-session with the brief embedded, and with a work unit its tasks', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['start-session', 'record-decision', 'review-inbox']);
    expect(prompts[0]!.arguments).toEqual([
      { name: 'project', description: 'Project slug', required: true },
      { name: 'work_unit', description: 'Work unit id to continue (optional)', required: false },
    ]);
    const plain = await client.getPrompt({ name: 'start-session', arguments: { project: 'mcp' } });
    const embedded = plain.messages[0]!.content as { type: string; resource: { uri: string; text: string } };
    expect(embedded.type).toBe('resource');
    expect(embedded.resource.uri).toBe('svc://projects/mcp/brief');
    expect(embedded.resource.text).toContain('## Recent Items');
    expect((plain.messages.at(-1)!.content as { text: string }).text).toContain('save nothing');

    const unit = (await tool('svc_work_open', { project_id: 'mcp', title: 'Checkout' })) as { id: string };
    await tool('svc_task_add', { work_unit_id: unit.id, title: 'Draft API' });
    const resumed = await client.getPrompt({ name: 'start-session', arguments: { project: 'mcp', work_unit: unit.id.slice(0, 8) } });
    expect((resumed.messages[1]!.content as { text: string }).text).toMatch(/- \[proposed\] Draft API \(`[0-9a-f]{8}`\)/);
    await expect(client.getPrompt({ name: 'start-session', arguments: { project: 'nope' } })).rejects.toMatchObject({ code: -32002 });
  });

  it('gets record-decision, guiding to svc_save_decisions for the project and topic', async () => {
    const result = await client.getPrompt({ name: 'record-decision', arguments: { project: 'mcp', topic: 'retry policy' } });
    const text = (result.messages[0]!.content as { text: string }).text;
    expect(text).toContain('record a decision about retry policy in project mcp');
    expect(text).toContain('svc_save_decisions with project_id "mcp"');
    expect(text).toContain('svc_item_search');
  });

  it('gets review-inbox listing the inbox captures with the triage tools', async () => {
    await tool('svc_capture_add', { text: 'maybe cache the catalog' });
    const other = (await tool('svc_capture_add', { text: 'already reviewed' })) as { id: string };
    await tool('svc_capture_set_state', { capture_id: other.id, review_state: 'review' });
    const result = await client.getPrompt({ name: 'review-inbox', arguments: { project: 'mcp', item_type: 'knowledge' } });
    const [list, guide] = result.messages.map((m) => (m.content as { text: string }).text);
    expect(list).toContain('maybe cache the catalog');
    expect(list).not.toContain('already reviewed');
    expect(guide).toContain('svc_capture_promote with project_id "mcp", item_type "knowledge"');
    expect(guide).toContain('svc_capture_discard');
  });

  it('completes project slugs for the template variable and the prompt argument, and work units and item types', async () => {
    await svc.call(ops.project_create, { slug: 'mcp-two' }, { source: 'cli' });
    await svc.call(ops.project_create, { slug: 'other' }, { source: 'cli' });
    const values = async (ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, name: string, value: string, context?: Record<string, string>) =>
      (await client.complete({ ref, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) })).completion.values;
    expect(await values({ type: 'ref/resource', uri: 'svc://projects/{project}/brief' }, 'project', 'mc')).toEqual(['mcp', 'mcp-two']);
    expect(await values({ type: 'ref/prompt', name: 'start-session' }, 'project', 'mcp-')).toEqual(['mcp-two']);
    expect(await values({ type: 'ref/prompt', name: 'record-decision' }, 'project', 'zz')).toEqual([]);
    expect(await values({ type: 'ref/prompt', name: 'review-inbox' }, 'item_type', 'res')).toEqual(['research']);
    const unit = (await tool('svc_work_open', { project_id: 'mcp', title: 'Checkout' })) as { id: string };
    await tool('svc_work_open', { project_id: 'other', title: 'Elsewhere' });
    expect(await values({ type: 'ref/prompt', name: 'start-session' }, 'work_unit', '', { project: 'mcp' })).toEqual([unit.id]);
    expect(await values({ type: 'ref/prompt', name: 'start-session' }, 'work_unit', '', { project: 'nope' })).toEqual([]);
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
