import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createEmptyPostgresDatabase, skipWithoutPostgres } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc, svcArgs, svcEnv, svcJson } from './testing/svc-process.js';

/**
 * The one-in-progress rule must hold across processes, not only across connections of one: two `svc serve mcp`
 * processes on one PostgreSQL, each started by the SDK's own stdio client, race to start tasks of one unit.
 */
describe.skipIf(skipWithoutPostgres())('one in-progress task across two server processes', () => {
  let db: { url: string; drop(): Promise<void> };
  let clients: Client[] = [];

  beforeAll(async () => {
    db = (await createEmptyPostgresDatabase())!;
    const env = svcEnv({ SVC_DATABASE_URL: db.url });
    expect((await svc(['migrate'], env)).code).toBe(0);
    const actor = await svcJson<{ id: string }>(['actor', 'add', '--email', 'race@example.test'], env);
    expect((await svc(['project', 'create', 'race'], env)).code).toBe(0);
    clients = await Promise.all(
      [0, 1].map(async (i) => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: svcArgs(['serve', 'mcp', '--actor', actor.id]),
          env: env as Record<string, string>,
          stderr: 'pipe',
        });
        const client = new Client({ name: `racer-${i}`, version: '1.0.0' });
        await client.connect(transport);
        return client;
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await db?.drop();
  });

  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return { isError: result.isError === true, value: result.structuredContent as Record<string, unknown> };
  };

  it('50 rounds of 20 starts split across the two processes: exactly one wins, the rest are refused', async () => {
    const [a, b] = clients as [Client, Client];
    for (let round = 0; round < 50; round++) {
      const unit = await call(a, 'svc_work_open', { project_id: 'race', title: `Round ${round}` });
      expect(unit.isError).toBe(false);
      const tasks: string[] = [];
      for (let i = 0; i < 20; i++) {
        const task = await call(i % 2 ? b : a, 'svc_task_add', { work_unit_id: unit.value.id, title: `T${i}` });
        tasks.push(task.value.id as string);
      }
      const results = await Promise.all(tasks.map((id, i) => call(i % 2 ? b : a, 'svc_task_start', { task_id: id })));
      const won = results.filter((r) => !r.isError);
      const refused = results.filter((r) => r.isError && (r.value.error as { code: string }).code === 'refused_transition');
      expect([won.length, refused.length]).toEqual([1, 19]);
      const listed = await call(b, 'svc_task_list', { work_unit_id: unit.value.id, status: 'in_progress' });
      expect((listed.value.tasks as unknown[]).length).toBe(1);
    }
  }, 240_000);
});
