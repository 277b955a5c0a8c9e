import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmptyPostgresDatabase } from '@svc/service/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const NODE_ARGS = ['--conditions=@svc/source', '--import', 'tsx', MAIN];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function svc(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...NODE_ARGS, ...args], { env: env as NodeJS.ProcessEnv, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function baseEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, SVC_LOG_LEVEL: 'warn', ...extra };
  if (!('SVC_DATABASE_URL' in extra)) delete env.SVC_DATABASE_URL;
  delete env.SVC_DEFAULT_ACTOR_ID;
  return env;
}

/** Start `svc serve http` and wait for its "listening" line; returns its URL and the process. */
async function serve(env: Record<string, string | undefined>, extra: string[] = []) {
  const child = spawn(process.execPath, [...NODE_ARGS, 'serve', 'http', '--port', '0', ...extra], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { url, child, exited };
}

describe('the svc binary on the embedded database', () => {
  const dataDir = () => join(mkdtempSync(join(tmpdir(), 'svc-cli-')), 'data');

  it('prints the release and schema version', async () => {
    const run = await svc(['--version'], baseEnv({}));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^svc v\d+\.\d+\.\d+ \(schema \d{4}\)\n$/);
  });

  it('refuses a second process on a data directory in use, with the holder and the ways out; loses no write', async () => {
    const env = baseEnv({ SVC_DATA_DIR: dataDir() });
    expect((await svc(['project', 'create', 'before'], env)).code).toBe(0);
    const actor = JSON.parse((await svc(['actor', 'add', '--email', 'first@example.test', '--json'], env)).stdout) as { id: string };
    const first = await serve(env);
    const write = (title: string) =>
      fetch(`${first.url}/projects/before/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Actor': actor.id },
        body: JSON.stringify({ title }),
      }).then(async (r) => (await r.json()) as { id: string });
    const early = await write('Written before the intruder');
    const second = (await svc(['actor', 'list', '--json'], env)) as Run;
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/in use by process \d+/);
    expect(second.stderr).toContain('SVC_DATABASE_URL');
    expect(second.stderr).toContain('/mcp');
    // The first process keeps serving and writing after the second was refused.
    const late = await write('Written after the intruder');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect((await svc(['project', 'create', 'after'], env)).code).toBe(0);
    const listed = JSON.parse((await svc(['project', 'list', '--json'], env)).stdout) as { projects: { slug: string }[] };
    expect(listed.projects.map((p) => p.slug)).toEqual(['after', 'before']);
    for (const item of [early, late]) expect((await svc(['item', 'show', item.id], env)).code).toBe(0);
  }, 120_000);

  it('restarts after the server is killed with SIGKILL (a stale lock is taken over)', async () => {
    const env = baseEnv({ SVC_DATA_DIR: dataDir() });
    const server = await serve(env);
    server.child.kill('SIGKILL');
    await server.exited;
    const run = await svc(['project', 'create', 'revived'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }, 120_000);

  it('exits 2 on usage errors and 1 on refused requests, with the message on stderr only', async () => {
    const env = baseEnv({ SVC_DATA_DIR: dataDir() });
    expect((await svc(['bogus'], env)).code).toBe(2);
    expect((await svc(['project', 'create'], env)).code).toBe(2);
    const bad = await svc(['project', 'create', 'Not A Slug'], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^svc: invalid_input: slug: /);
  }, 60_000);
});

describe.skipIf(!process.env.SVC_TEST_DATABASE_URL)('the svc binary on PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    db = (await createEmptyPostgresDatabase())!;
    env = baseEnv({ SVC_DATABASE_URL: db.url });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('applies the schema once when twenty `svc migrate` processes start at the same moment', async () => {
    const status = JSON.parse((await svc(['migrate', '--status', '--json'], env)).stdout) as { pending: unknown[]; current: string | null };
    expect(status.current).toBeNull();
    const runs = await Promise.all(Array.from({ length: 20 }, () => svc(['migrate', '--json'], env)));
    expect(runs.map((r) => r.code)).toEqual(Array(20).fill(0));
    const applied = runs.flatMap((r) => (JSON.parse(r.stdout) as { applied: string[] }).applied);
    expect(new Set(applied).size).toBe(applied.length);
    expect(applied.length).toBe(status.pending.length);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query('select id, count(*)::int as n from schema_migrations group by id order by id');
    await client.end();
    expect(rows.every((r: { n: number }) => r.n === 1)).toBe(true);
    expect(rows).toHaveLength(status.pending.length);
  }, 180_000);

  it('runs the operator commands with --json, actor attribution and clean refusals', async () => {
    const actor = JSON.parse((await svc(['actor', 'add', '--email', 'ops@example.test', '--name', 'Ops', '--external-id', 'github=ops', '--json'], env)).stdout) as {
      id: string;
      external_ids: Record<string, string>;
    };
    expect(actor.external_ids).toEqual({ github: 'ops' });
    expect((await svc(['actor', 'add', '--email', 'OPS@example.test'], env)).stderr).toMatch(/conflict: email/);
    const project = await svc(['project', 'create', 'ops', '--actor', actor.id, '--json'], env);
    expect(JSON.parse(project.stdout)).toMatchObject({ slug: 'ops' });
    const unknown = await svc(['system', 'add', 'ops', 'api', '--actor', '11111111-1111-4111-8111-111111111111'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown_actor');
    expect((await svc(['system', 'add', 'ops', 'api'], env)).code).toBe(0);
    const schema = join(mkdtempSync(join(tmpdir(), 'svc-type-')), 'incident.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', properties: { severity: { enum: ['sev1', 'sev2'] } }, additionalProperties: false }));
    expect((await svc(['type', 'add', 'incident', '--schema', schema, '--actor', actor.id], env)).code).toBe(0);
    writeFileSync(schema, '{"type": "object", "properties": 5}');
    const badType = await svc(['type', 'add', 'broken', '--schema', schema], env);
    expect(badType.stderr).toMatch(/invalid_input: schema/);
    const types = JSON.parse((await svc(['type', 'list', '--json'], env)).stdout) as { types: { key: string }[] };
    expect(types.types.map((t) => t.key)).toContain('incident');

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select operation, actor_id, source from audit_log where operation in ('project_create', 'system_add', 'type_add') order by id",
      );
      expect(rows).toEqual([
        { operation: 'project_create', actor_id: actor.id, source: 'cli' },
        { operation: 'system_add', actor_id: null, source: 'cli' },
        { operation: 'type_add', actor_id: actor.id, source: 'cli' },
      ]);
      const ids = ['aaaa0000-0000-4000-8000-000000000001', 'bbbb0000-0000-4000-8000-000000000002'];
      const { rows: p } = await client.query("select id from projects where slug = 'ops'");
      for (const id of ids) {
        await client.query("insert into items (id, chain_id, project_id, item_type, title, context) values ($1, $1, $2, 'decision', $3, '{}')", [id, p[0].id, `Item ${id.slice(0, 4)}`]);
      }
    } finally {
      await client.end();
    }
    expect(JSON.parse((await svc(['item', 'show', 'aaaa0000', '--json'], env)).stdout).item.title).toBe('Item aaaa');
    expect((await svc(['link', 'add', 'ops', 'aaaa', 'depends', 'bbbb', '--json'], env)).code).toBe(0);
    expect((await svc(['link', 'add', 'ops', 'aaaa', 'relates', 'bbbb'], env)).code).toBe(1);
    expect((await svc(['item', 'delete', 'bbbb'], env)).code).toBe(0);
    expect((await svc(['item', 'delete', 'bbbb'], env)).stderr).toContain('refused_transition');
    expect((await svc(['item', 'restore', 'bbbb'], env)).code).toBe(0);
    const history = JSON.parse((await svc(['item', 'history', 'bbbb', '--json'], env)).stdout) as { entries: { change_kind: string }[] };
    expect(history.entries.map((e) => e.change_kind)).toEqual(['restored', 'deleted']);
    expect((await svc(['link', 'remove', 'ops', 'aaaa', 'depends', 'bbbb'], env)).code).toBe(0);
  }, 180_000);

  it('refuses to serve while migrations are pending, and serves with --migrate', async () => {
    const fresh = (await createEmptyPostgresDatabase())!;
    try {
      const freshEnv = baseEnv({ SVC_DATABASE_URL: fresh.url });
      const refused = await svc(['serve', 'http', '--port', '0'], freshEnv);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('svc migrate');
      const server = await serve(freshEnv, ['--migrate']);
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await fresh.drop();
    }
  }, 120_000);

  it('lets two server processes on one PostgreSQL see each other\'s writes', async () => {
    const actor = JSON.parse((await svc(['actor', 'add', '--email', 'twin@example.test', '--json'], env)).stdout) as { id: string };
    const [a, b] = await Promise.all([serve(env), serve(env)]);
    try {
      const written = await fetch(`${a.url}/captures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Actor': actor.id },
        body: JSON.stringify({ text: 'written through A' }),
      });
      expect(written.status).toBe(200);
      const { id } = (await written.json()) as { id: string };
      const read = (await (await fetch(`${b.url}/captures?limit=200`)).json()) as { captures: { id: string; text: string }[] };
      expect(read.captures.find((c) => c.id === id)?.text).toBe('written through A');
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
    }
  }, 120_000);
});
