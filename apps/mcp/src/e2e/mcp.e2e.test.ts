import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LATEST_PROTOCOL_VERSION, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS_LIST_BUDGET } from '../server.js';
import { runSession } from './session.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../../cli/src/main.ts', import.meta.url));
const NODE_ARGS = ['--conditions=@svc/source', '--import', 'tsx', MAIN];
const TOOL_COUNT = 33;

/** A fresh embedded database with a project and an actor, prepared through the real CLI. */
async function prepare(): Promise<{ env: Record<string, string>; actor: string }> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), SVC_DATA_DIR: join(mkdtempSync(join(tmpdir(), 'svc-mcp-')), 'data'), SVC_LOG_LEVEL: 'warn' };
  delete env.SVC_DATABASE_URL;
  delete env.SVC_DEFAULT_ACTOR_ID;
  await run(process.execPath, [...NODE_ARGS, 'project', 'create', 'demo'], { env });
  const { stdout } = await run(process.execPath, [...NODE_ARGS, 'actor', 'add', '--email', 'assistant@example.test', '--json'], { env });
  return { env, actor: (JSON.parse(stdout) as { id: string }).id };
}

async function expectAllTools(client: Client) {
  const { tools } = await client.listTools();
  expect(tools).toHaveLength(TOOL_COUNT);
  for (const tool of tools) {
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.description?.length).toBeGreaterThan(40);
  }
  return tools;
}

/**
 * tools/call with arguments that are not an object is invalid params in one sentence: its message was zod's issue
 * list as JSON ("Invalid tools/call request: [\n {\n \"expected\": \"record\" …", an attacker, 2026-11-28).
 */
async function expectNonObjectArgumentsRefused(client: Client) {
  for (const [args, kind] of [
    [[1], 'an array'],
    ['x', 'a string'],
  ] as const) {
    const call = client.request({ method: 'tools/call', params: { name: 'svc_brief', arguments: args as unknown as Record<string, unknown> } }, CallToolResultSchema);
    await expect(call, JSON.stringify(args)).rejects.toMatchObject({
      code: -32602,
      message: `MCP error -32602: params.arguments: must be a JSON object of the tool's parameters, not ${kind}`,
      data: { code: 'invalid_input', details: { field: 'params.arguments' } },
    });
  }
  await expect(client.ping()).resolves.toBeDefined();
}

describe('MCP over stdio: what the transport cannot read', () => {
  it('answers a line it cannot read with a parse error of id null, logs it without the line or a stack, and keeps serving (an attacker: the log kept the line)', async () => {
    const { env, actor } = await prepare();
    const server = spawn(process.execPath, [...NODE_ARGS, 'serve', 'mcp', '--actor', actor], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    server.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    server.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    server.stdin?.end(['not json hunter2secret', '{"hunter3secret":"x"}', JSON.stringify(initialize), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }), ''].join('\n'));
    expect(await exited, stderr).toBe(0);
    const replies = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: unknown; error?: unknown });
    expect(replies.filter((r) => r.error !== undefined)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' } },
    ]);
    expect(replies.filter((r) => r.error === undefined).map((r) => r.id)).toEqual([1, 2]);
    expect(stderr.match(/MCP over stdio: a message could not be read/g)).toHaveLength(2);
    expect(stderr).toContain('a line is not JSON');
    expect(stderr).not.toMatch(/hunter[23]secret|"stack"|\bat .*\.(js|ts):\d+/);
  }, 120_000);


  it('says on stderr why it closed when a message passes the SDK limit of 10 MiB, and a line that is not JSON-RPC (an attacker: it ended without a word)', async () => {
    const { env, actor } = await prepare();
    const server = spawn(process.execPath, [...NODE_ARGS, 'serve', 'mcp', '--actor', actor], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    // A line that is not JSON-RPC (read and skipped), then 11 MiB without a newline; the pipe holds them until the
    // server reads. What it leaves unread when it closes is refused with EPIPE, which is expected here.
    server.stdin?.on('error', () => {});
    server.stdin?.write('not json\n');
    server.stdin?.write('x'.repeat(11 * 1024 * 1024));
    await exited;
    expect(stderr.match(/MCP over stdio: a message could not be read/g)?.length).toBeGreaterThanOrEqual(2);
    expect(stderr).toContain('ReadBuffer exceeded maximum size');
  }, 120_000);
});

describe('MCP over stdio: `svc serve mcp` as a child process', () => {
  let client: Client;
  let actor: string;
  beforeAll(async () => {
    const prepared = await prepare();
    const env = prepared.env;
    actor = prepared.actor;
    client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [...NODE_ARGS, 'serve', 'mcp', '--actor', actor], env, stderr: 'pipe' }));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists all 33 tools with input schemas, within the context budget', async () => {
    const tools = await expectAllTools(client);
    expect(JSON.stringify({ tools }).length).toBeLessThanOrEqual(TOOLS_LIST_BUDGET);
  });

  it('serves a scripted session: every tool on a happy path and a refused one, and keeps serving', async () => {
    const { ok, refused } = await runSession(client, 'demo');
    expect(ok.size).toBe(TOOL_COUNT);
    expect(refused.size).toBe(TOOL_COUNT);
    await expect(client.ping()).resolves.toBeDefined();
  }, 120_000);

  it('refuses tools/call arguments that are not an object as invalid params in one sentence', async () => {
    await expectNonObjectArgumentsRefused(client);
  });

  it('refuses an actor_id naming another actor than --actor, and accepts the same one', async () => {
    const stranger = '11111111-1111-4111-8111-111111111111';
    const spoofed = await client.callTool({ name: 'svc_capture_add', arguments: { text: 'spoof', actor_id: stranger } });
    expect(spoofed.isError).toBe(true);
    expect((spoofed.structuredContent as { error: { code: string; details: { field: string } } }).error).toMatchObject({
      code: 'invalid_input',
      details: { field: 'actor_id' },
    });
    const same = await client.callTool({ name: 'svc_capture_add', arguments: { text: 'mine', actor_id: actor } });
    expect(same.isError).toBeFalsy();
  });
});

describe('MCP over Streamable HTTP: a listening `svc serve http`', () => {
  let client: Client;
  let server: ReturnType<typeof spawn>;
  let base: string;

  beforeAll(async () => {
    const { env } = await prepare();
    const { stdout } = await run(process.execPath, [...NODE_ARGS, 'actor', 'list', '--json'], { env });
    const actor = (JSON.parse(stdout) as { actors: { id: string }[] }).actors[0]!.id;
    server = spawn(process.execPath, [...NODE_ARGS, 'serve', 'http', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    base = await new Promise<string>((resolve, reject) => {
      let seen = '';
      server.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(seen);
        if (match) resolve(match[1] as string);
      });
      server.once('exit', (code) => reject(new Error(`server exited ${code}: ${seen}`)));
    });
    client = new Client({ name: 'e2e-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'X-Actor': actor } } }));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    server?.kill('SIGTERM');
  });

  it('lists all 33 tools', async () => {
    await expectAllTools(client);
  });

  it('serves the same scripted session', async () => {
    const { ok, refused } = await runSession(client, 'demo');
    expect(ok.size).toBe(TOOL_COUNT);
    expect(refused.size).toBe(TOOL_COUNT);
  }, 120_000);

  it('serves resources, prompts and completions statelessly: list, read, get, complete, and a clean error', async () => {
    expect(client.getServerCapabilities()?.resources?.listChanged).toBe(false);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['svc://projects/demo/brief', 'svc://projects/demo/decisions']);
    const brief = await client.readResource({ uri: 'svc://projects/demo/brief' });
    expect((brief.contents[0] as { text: string }).text).toContain('## Active Work Units');
    const decisions = await client.readResource({ uri: 'svc://projects/demo/decisions' });
    expect((decisions.contents[0] as { text: string }).text).toContain('current decisions');
    const item = (await client.callTool({ name: 'svc_item_upsert', arguments: { project_id: 'demo', title: 'Over HTTP' } })).structuredContent as { id: string };
    const read = await client.readResource({ uri: `svc://items/${item.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text).item.title).toBe('Over HTTP');
    await expect(client.readResource({ uri: 'svc://items/ffffffff' })).rejects.toMatchObject({ code: -32002, data: { code: 'not_found' } });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['start-session', 'record-decision', 'review-inbox']);
    for (const name of ['start-session', 'record-decision', 'review-inbox']) {
      const prompt = await client.getPrompt({ name, arguments: { project: 'demo' } });
      expect(prompt.messages.length).toBeGreaterThan(0);
    }
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'start-session' }, argument: { name: 'project', value: 'de' } });
    expect(completion.completion.values).toEqual(['demo']);
    // A request whose params break the protocol's schema is invalid params naming the field, in words: it was an
    // internal error (-32603) whose message was the schema library's issues as JSON (an attacker, 2026-11-27).
    const arg = client.getPrompt({ name: 'start-session', arguments: { project: 5 as unknown as string } });
    await expect(arg).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: params.arguments.project: must be a string, not a number',
      data: { code: 'invalid_input', details: { field: 'params.arguments.project' } },
    });
    const named = client.request({ method: 'tools/call', params: { name: 7 as unknown as string } }, CallToolResultSchema);
    await expect(named).rejects.toMatchObject({ code: -32602, message: 'MCP error -32602: params.name: must be a string, not a number' });
    const uri = client.request({ method: 'resources/read', params: {} as { uri: string } }, ReadResourceResultSchema);
    await expect(uri).rejects.toMatchObject({ code: -32602, message: 'MCP error -32602: params.uri: is required (string)' });
    // The SDK's own refusals keep one "MCP error" prefix (the client adds it; the server's message had it already).
    await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602, message: 'MCP error -32602: Prompt nope not found' });
    expect((await client.getPrompt({ name: 'record-decision', arguments: { project: 'demo' } })).messages).toHaveLength(1);
  });

  it('refuses tools/call arguments that are not an object as invalid params in one sentence', async () => {
    await expectNonObjectArgumentsRefused(client);
  });

  it('refuses a write without an actor as actor_required, and a foreign Host with 403', async () => {
    const anonymous = new Client({ name: 'anonymous', version: '1.0.0' });
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const result = await anonymous.callTool({ name: 'svc_capture_add', arguments: { text: 'who am I' } });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe('actor_required');
    await anonymous.close();
    const rebinding = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(rebinding.status).toBe(403);
  });
});
