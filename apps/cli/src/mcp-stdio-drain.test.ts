import { spawn } from 'node:child_process';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { createEmptyPostgresDatabase, skipWithoutPostgres } from '@svc/service/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, svc, svcArgs, svcEnv, svcJson } from './testing/svc-process.js';

/**
 * A client that writes its requests and closes stdin at once (a script piping them in, 2026-11-27: a newcomer's
 * `(printf …) | svc serve mcp` got the initialize reply only; the upsert was committed, its reply lost, and the
 * search died on "driver has already been destroyed"). Every request read before stdin ended is answered, then
 * the process exits.
 */
describe.skipIf(skipWithoutPostgres())('svc serve mcp over stdio, stdin closed right after the requests', () => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  afterAll(async () => {
    await db?.drop();
  });

  it('answers every request it read before it exits, and a write it answered is stored once', async () => {
    db = (await createEmptyPostgresDatabase()) ?? undefined;
    const env = svcEnv({ SVC_DATABASE_URL: db?.url });
    expect((await svc(['migrate'], env)).code).toBe(0);
    const actor = await svcJson<{ id: string }>(['actor', 'add', '--email', 'pipe@example.test'], env);
    expect((await svc(['project', 'create', 'pipe'], env)).code).toBe(0);
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_item_upsert', arguments: { project_id: 'pipe', title: 'Secrets live in Vault', body: 'never in env files' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'svc_item_search', arguments: { project_id: 'pipe', query: 'vault' } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
    ];
    const child = spawn(process.execPath, svcArgs(['serve', 'mcp', '--actor', actor.id]), { cwd: REPO_ROOT, env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdin.end(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const replies = stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { id?: number; result?: { isError?: boolean } });
    expect(replies.map((r) => r.id).sort(), stderr).toEqual([1, 2, 3, 4]);
    expect(replies.filter((r) => r.result?.isError === true), stderr).toEqual([]);
    expect(stderr).not.toMatch(/destroyed|failed unexpectedly/);
    expect(code).toBe(0);
    const found = await svcJson<{ items: unknown[] }>(['search', 'pipe', 'vault'], env);
    expect(found.items).toHaveLength(1);
  }, 120_000);
});
