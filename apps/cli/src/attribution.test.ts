import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, type MigratedPostgres, migratedPostgres, seedDecision, spawnSvc, svc, svcArgs, svcJson } from './testing/svc-process.js';

/**
 * One attribution rule for every write (docs/decisions/0020), seen through the real binary: a CLI write records
 * --actor (or SVC_DEFAULT_ACTOR_ID) when given, else source `cli` and no actor; an unknown actor is refused.
 * A server checks the actor it was given before it serves, and every hint names the surface's own way to fix it.
 */
describe.skipIf(!process.env.SVC_TEST_DATABASE_URL)('attribution of CLI writes and server actors on PostgreSQL', () => {
  let pgdb: MigratedPostgres;
  let env: Env;
  let client: pg.Client;
  let actorId: string;
  const stranger = '11111111-1111-4111-8111-111111111111';
  const dir = mkdtempSync(join(tmpdir(), 'svc-attribution-'));

  beforeAll(async () => {
    pgdb = await migratedPostgres();
    ({ env, client } = pgdb);
    const [actor, project] = await Promise.all([
      svcJson<{ id: string }>(['actor', 'add', '--email', 'ops@example.test'], env),
      svcJson<{ id: string }>(['project', 'create', 'attr'], env),
    ]);
    actorId = actor.id;
    expect((await svc(['glossary', 'group', 'add', 'attr', 'infra'], env)).code).toBe(0);
    for (const [id, title] of [
      ['aaaa0000-0000-4000-8000-00000000000a', 'A'],
      ['bbbb0000-0000-4000-8000-00000000000b', 'B'],
      ['cccc0000-0000-4000-8000-00000000000c', 'C'],
    ] as const) {
      await seedDecision(client, project.id, id, title);
    }
  }, 180_000);
  afterAll(async () => {
    await pgdb?.close();
  });

  it('link add, system add, glossary term add, glossary propose and project config import: --actor names the actor, none records source cli, an unknown one is refused', async () => {
    const config = join(dir, 'attr.toml');
    writeFileSync(config, '[research]\nttl_days = 30\n');
    // [operation, args with --actor, args without, args for the stranger]
    const writes: [string, string[], string[], string[]][] = [
      ['link_add', ['link', 'add', 'attr', 'aaaa0000', 'depends', 'bbbb0000'], ['link', 'add', 'attr', 'aaaa0000', 'depends', 'cccc0000'], ['link', 'add', 'attr', 'bbbb0000', 'depends', 'cccc0000']],
      ['system_add', ['system', 'add', 'attr', 'api'], ['system', 'add', 'attr', 'web'], ['system', 'add', 'attr', 'db']],
      ['glossary_term_add', ['glossary', 'term', 'add', 'attr', 'infra', 'k8s'], ['glossary', 'term', 'add', 'attr', 'infra', 'kube'], ['glossary', 'term', 'add', 'attr', 'infra', 'cluster']],
      ['glossary_term_propose', ['glossary', 'propose', 'attr', 'infra', 'pod'], ['glossary', 'propose', 'attr', 'infra', 'node'], ['glossary', 'propose', 'attr', 'infra', 'mesh']],
      ['project_config_import', ['project', 'config', 'import', 'attr', config], ['project', 'config', 'import', 'attr', config], ['project', 'config', 'import', 'attr', config]],
    ];
    const runs = await Promise.all(
      writes.flatMap(([, withActor, without, strange]) => [
        svc([...withActor, '--actor', actorId], env),
        svc(without, env),
        svc([...strange, '--actor', stranger], env),
      ]),
    );
    writes.forEach(([operation], i) => {
      const [withActor, without, strange] = runs.slice(i * 3, i * 3 + 3);
      expect({ operation, codes: [withActor!.code, without!.code, strange!.code] }).toEqual({ operation, codes: [0, 0, 1] });
      expect(strange!.stdout).toBe('');
      expect(strange!.stderr).toMatch(new RegExp(`^svc: unknown_actor: --actor: actor ${stranger} is not registered; register it with \`svc actor add`));
    });
    const { rows } = await client.query<{ operation: string; actor_id: string | null; source: string }>(
      'select operation, actor_id, source from audit_log where operation = any($1) order by operation, actor_id nulls last',
      [writes.map(([operation]) => operation)],
    );
    expect(rows).toEqual(
      writes
        .map(([operation]) => operation)
        .sort()
        .flatMap((operation) => [
          { operation, actor_id: actorId, source: 'cli' },
          { operation, actor_id: null, source: 'cli' },
        ]),
    );
    // The stranger's writes left nothing behind.
    const [systems, terms, links] = await Promise.all([
      client.query("select 1 from systems where name = 'db'"),
      client.query("select 1 from glossary_terms where term in ('cluster', 'mesh')"),
      client.query("select 1 from links where from_chain_id = 'bbbb0000-0000-4000-8000-00000000000b'"),
    ]);
    expect([systems.rowCount, terms.rowCount, links.rowCount]).toEqual([0, 0, 0]);
  }, 240_000);

  it('svc serve mcp and serve http stop at start, exit 1, on an unknown or malformed --actor or SVC_DEFAULT_ACTOR_ID, saying how to register one', async () => {
    const started = [
      spawnSvc(['serve', 'mcp', '--actor', stranger], env),
      spawnSvc(['serve', 'mcp', '--actor', 'dana'], env),
      spawnSvc(['serve', 'mcp'], { ...env, SVC_DEFAULT_ACTOR_ID: stranger }),
      spawnSvc(['serve', 'http', '--port', '0'], { ...env, SVC_DEFAULT_ACTOR_ID: stranger }),
    ];
    const exits = await Promise.all(started.map((s) => s.exited));
    expect(exits).toEqual(started.map(() => ({ code: 1, signal: null })));
    const [unknownFlag, malformedFlag, unknownMcpEnv, unknownHttpEnv] = started.map((s) => s.output());
    expect(unknownFlag!.stderr).toMatch(new RegExp(`^svc: unknown_actor: --actor: actor ${stranger} is not registered; register it with \`svc actor add --name NAME --email EMAIL\``));
    expect(malformedFlag!.stderr).toMatch(/^svc: invalid_input: --actor: 'dana' is not an actor UUID; .*`svc actor add --email EMAIL`/);
    for (const run of [unknownMcpEnv!, unknownHttpEnv!]) {
      expect(run.stderr).toMatch(new RegExp(`^svc: unknown_actor: SVC_DEFAULT_ACTOR_ID: actor ${stranger} is not registered; register it with \`svc actor add`));
      // Which database was asked (a newcomer's server had started on another data directory than the one that
      // printed the actor, and the refusal did not say so).
      expect(run.stderr).toMatch(/\(looked in (pglite \/|postgres:\/\/)/);
      expect(run.stderr).not.toContain('listening');
    }
  }, 120_000);

  it('a write over stdio MCP without an actor says --actor / SVC_DEFAULT_ACTOR_ID, not X-Actor', async () => {
    const mcp = new Client({ name: 'no-actor', version: '1.0.0' });
    await mcp.connect(new StdioClientTransport({ command: process.execPath, args: svcArgs(['serve', 'mcp']), env: env as Record<string, string>, stderr: 'pipe' }));
    try {
      const result = await mcp.callTool({ name: 'svc_work_open', arguments: { project_id: 'attr', title: 'Unattributed' } });
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error: { code: string; message: string; details: { field?: string } } }).error;
      expect(error).toMatchObject({ code: 'actor_required', details: { field: 'actor' } });
      expect(error.message).toContain('--actor');
      expect(error.message).toContain('SVC_DEFAULT_ACTOR_ID');
      expect(error.message).not.toContain('X-Actor');
    } finally {
      await mcp.close();
    }
  }, 120_000);
});
