import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmptyPostgresDatabase } from '@svc/service/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Env,
  type MigratedPostgres,
  migratedPostgres,
  seedDecision,
  freshDataDir,
  lockHolders,
  REPO_ROOT,
  serveHttp,
  shippedMigrations,
  spawnSvc,
  svc,
  svcEnv,
  svcJson,
} from './testing/svc-process.js';

const latest = shippedMigrations().at(-1)!;
/** Nothing listens on port 1: a command that tried to reach this database would fail, not exit 0 or 2. */
const UNREACHABLE = svcEnv({ SVC_DATABASE_URL: 'postgres://svc:secret@127.0.0.1:1/nowhere' });

describe('the svc binary before it touches a database', () => {
  it('prints the release and schema of the latest shipped migration with --version and `version --json`', async () => {
    const [flag, command] = await Promise.all([svc(['--version'], UNREACHABLE), svc(['version', '--json'], UNREACHABLE)]);
    expect(flag).toEqual({ code: 0, stdout: `svc ${latest.release} (schema ${latest.id})\n`, stderr: '' });
    expect(command.code).toBe(0);
    expect(JSON.parse(command.stdout)).toEqual({ schema: latest.id, release: latest.release });
  }, 120_000);

  it('exits 2 on usage errors (no command, unknown command, missing argument, missing required option, unknown option) with the message on stderr only', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^Usage: svc /],
      [['bogus'], /^error: unknown command 'bogus'/],
      [['project', 'create'], /^error: missing required argument 'slug'/],
      [['link', 'add', 'p', 'a', 'depends'], /^error: missing required argument 'to'/],
      [['actor', 'add', '--name', 'No Email'], /^error: required option '--email <email>' not specified/],
      [['project', 'list', '--bogus'], /^error: unknown option '--bogus'/],
      // A dash word meant for the query is refused like any unknown option, and the search says how to pass it.
      [['search', 'p', 'cache', '-redis'], /^error: unknown option '-redis'\nto exclude a word, put -- before the query \(svc search my-project -- cache -redis, or -- -redis alone\)/],
      // Quoted by the shell, '-postgres' arrives as -postgres all the same: the hint leads with --.
      [['search', 'p', '-postgres'], /^error: unknown option '-postgres'\nto exclude a word, put -- before the query/],
    ];
    const runs = await Promise.all(cases.map(([args]) => svc(args, UNREACHABLE)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!;
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(message);
    });
    // Other commands keep the plain message.
    expect((await svc(['project', 'list', '-x'], UNREACHABLE)).stderr).not.toContain('to exclude a word');
  }, 120_000);

  it('refuses a --port that is not a port number as a usage error naming --port, without opening the database', async () => {
    const ports = ['abc', '70000', '1.5', '-1', ''];
    const runs = await Promise.all(ports.map((port) => svc(['serve', 'http', `--port=${port}`], UNREACHABLE)));
    runs.forEach((run, i) => {
      // Exit 2, not the 1 of an unreachable database: the argument was refused before any connection.
      expect({ port: ports[i], code: run.code, stdout: run.stdout }).toEqual({ port: ports[i], code: 2, stdout: '' });
      expect(run.stderr).toContain(`error: option '--port <port>' argument '${ports[i]}' is invalid. must be a port number (0 to 65535)`);
    });
  }, 120_000);

  it('reports an unreachable PostgreSQL as unavailable, naming the database without its password, from every way in', async () => {
    const runs = await Promise.all([svc(['project', 'list'], UNREACHABLE), svc(['migrate'], UNREACHABLE), svc(['migrate', '--status'], UNREACHABLE)]);
    const expected = {
      code: 1,
      stdout: '',
      stderr: 'svc: unavailable: the database is unavailable; try again shortly (postgres://svc:***@127.0.0.1:1/nowhere: ECONNREFUSED)\n',
    };
    expect(runs).toEqual([expected, expected, expected]);
  }, 120_000);

  it.skipIf(!process.env.SVC_TEST_DATABASE_URL)('reports a database that does not exist as unavailable, with the server\'s reason', async () => {
    const url = new URL(process.env.SVC_TEST_DATABASE_URL as string);
    url.pathname = '/svc_no_such_database';
    const run = await svc(['migrate', '--status'], svcEnv({ SVC_DATABASE_URL: url.toString() }));
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^svc: unavailable: the database refused the connection: database "svc_no_such_database" does not exist \(postgres:\/\/.*: 3D000\)\n$/);
  }, 120_000);

  it('exits 1 naming the variable when a setting is invalid', async () => {
    const [actor, url] = await Promise.all([
      svc(['project', 'list'], { ...UNREACHABLE, SVC_DEFAULT_ACTOR_ID: 'not-a-uuid' }),
      svc(['project', 'list'], { ...UNREACHABLE, SVC_DATABASE_URL: 'mysql://localhost/svc' }),
    ]);
    expect(actor).toEqual({ code: 1, stdout: '', stderr: 'svc: invalid_input: SVC_DEFAULT_ACTOR_ID: must be an actor UUID (see `svc actor list`)\n' });
    expect(url).toEqual({ code: 1, stdout: '', stderr: 'svc: invalid_input: SVC_DATABASE_URL: must be a postgres:// or postgresql:// URL\n' });
  }, 120_000);

  it('never creates the embedded database for an operation: run elsewhere, it says where it looked and how to point at the data', async () => {
    const dataDir = freshDataDir();
    // A read, and an MCP server a client starts over stdio from its own directory (a newcomer's made an empty
    // database there, then refused the configured actor as unknown).
    const runs = await Promise.all([
      svc(['search', 'atlas', 'pool'], svcEnv({ SVC_DATA_DIR: dataDir })),
      svc(['serve', 'mcp', '--actor', '6270e0f5-7d6c-4b55-9d9e-2a0d6b1e7a11'], svcEnv({ SVC_DATA_DIR: dataDir })),
    ]);
    for (const run of runs) {
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
      expect(run.stderr).toBe(
        `svc: not_found: SVC_DATA_DIR: no svc database at ${dataDir}; run svc from the directory that holds .svc/data, set SVC_DATA_DIR to its data directory (or SVC_DATABASE_URL), or create one here with svc init\n`,
      );
    }
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  it('with --json prints a refusal as {"error": {code, message, details}} on stderr, and nothing on stdout', async () => {
    const [unreachable, badSetting] = await Promise.all([
      svc(['project', 'list', '--json'], UNREACHABLE),
      svc(['system', 'add', 'p', 'api', '--json'], { ...UNREACHABLE, SVC_DEFAULT_ACTOR_ID: 'not-a-uuid' }),
    ]);
    for (const run of [unreachable, badSetting]) expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(JSON.parse(unreachable.stderr)).toEqual({
      error: {
        code: 'unavailable',
        message: 'the database is unavailable; try again shortly (postgres://svc:***@127.0.0.1:1/nowhere: ECONNREFUSED)',
        details: { database: 'postgres://svc:***@127.0.0.1:1/nowhere' },
      },
    });
    expect(JSON.parse(badSetting.stderr)).toMatchObject({ error: { code: 'invalid_input', details: { field: 'SVC_DEFAULT_ACTOR_ID' } } });
  }, 120_000);

  it('prints bash and zsh completion scripts generated from the command tree; the bash one completes commands, subcommands, options and choices', async () => {
    const [bashScript, zshScript, fish] = await Promise.all([
      svc(['completion', 'bash'], UNREACHABLE),
      svc(['completion', 'zsh'], UNREACHABLE),
      svc(['completion', 'fish'], UNREACHABLE),
    ]);
    expect(fish.code).toBe(2);
    expect(fish.stderr).toContain('Allowed choices are bash, zsh');
    expect(zshScript.code).toBe(0);
    expect(zshScript.stdout).toMatch(/^#compdef svc\n/);
    expect(zshScript.stdout).toContain("'glossary propose'");
    expect(zshScript.stdout).toContain('compdef _svc svc');
    expect(bashScript.code).toBe(0);
    const script = join(mkdtempSync(join(tmpdir(), 'svc-completion-')), 'svc.bash');
    writeFileSync(script, bashScript.stdout);
    const complete = (line: string) =>
      execFileSync(
        'bash',
        ['-c', `source "$1"; read -ra W <<< "$2"; [[ "$2" == *' ' ]] && W+=(''); COMP_WORDS=("\${W[@]}"); COMP_CWORD=$((\${#W[@]} - 1)); _svc_complete; echo "\${COMPREPLY[*]}"`, 'bash', script, line],
        { encoding: 'utf8' },
      ).trim();
    expect(complete('svc gl')).toBe('glossary');
    expect(complete('svc glossary ').split(' ')).toEqual(['group', 'term', 'propose', 'accept', 'reject', 'list', 'queue', '--help']);
    expect(complete('svc project config i')).toBe('import');
    expect(complete('svc link add p a depends b --a')).toBe('--actor');
    expect(complete('svc check demo --fail-on ')).toBe('error warn never');
    expect(complete('svc completion ')).toBe('bash zsh --help');
  }, 120_000);

  it('runs as node_modules/.bin/svc from the repository root, with nothing but svc on stdout and stderr', async () => {
    const bin = join(REPO_ROOT, 'node_modules', '.bin', 'svc');
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(bin, args, { cwd: REPO_ROOT, env: UNREACHABLE as NodeJS.ProcessEnv }, (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
        ),
      );
    const [version, refused] = await Promise.all([run(['--version']), run(['project', 'list'])]);
    expect(version).toEqual({ code: 0, stdout: `svc ${latest.release} (schema ${latest.id})\n`, stderr: '' });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: unavailable: the database is unavailable; try again shortly (postgres://svc:***@127.0.0.1:1/nowhere: ECONNREFUSED)\n',
    });
  }, 120_000);
});

/** Hold a port, start `svc serve http` on it, and report how the server ended. */
async function serveOnTakenPort(env: Env, args: string[] = []) {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  try {
    const server = spawnSvc(['serve', 'http', '--host', '127.0.0.1', '--port', String(port), ...args], env);
    const { code } = await server.exited;
    return {
      code,
      stdout: server.output().stdout,
      stderr: server.output().stderr,
      expected: `svc: unavailable: cannot listen on 127.0.0.1:${port}: the port is in use (choose another with --port or SVC_HTTP_PORT)\n`,
      /** How long the process lived after its last word: a service left open keeps it running. */
      lingeredMs: Date.now() - server.lastStderrAt(),
    };
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
}

describe('svc serve http on a port that is already taken', () => {
  it('exits 1 naming the port, and lets go of the embedded data directory', async () => {
    const dataDir = freshDataDir();
    const ended = await serveOnTakenPort(svcEnv({ SVC_DATA_DIR: dataDir }));
    // A first start on that directory: the wait for its database is announced first.
    expect(ended).toMatchObject({ code: 1, stdout: '', stderr: `svc: making the embedded database in ${dataDir} (a first start takes about 20 s)\n${ended.expected}` });
    // The lock is released by closing the service; a process that exits without closing leaves it behind.
    expect(lockHolders(dataDir)).toEqual([]);
  }, 120_000);

  it.skipIf(!process.env.SVC_TEST_DATABASE_URL)('exits 1 naming the port on PostgreSQL at once, instead of waiting for the idle pool', async () => {
    const db = (await createEmptyPostgresDatabase())!;
    try {
      const ended = await serveOnTakenPort(svcEnv({ SVC_DATABASE_URL: db.url }), ['--migrate']);
      expect(ended).toMatchObject({ code: 1, stdout: '', stderr: ended.expected });
      // An open pool holds the process for its 30 s idle time-out; the margin is for a loaded machine.
      expect(ended.lingeredMs).toBeLessThan(10_000);
    } finally {
      await db.drop();
    }
  }, 120_000);
});

/**
 * The operator commands through the real binary against one migrated PostgreSQL database (the embedded one
 * admits a single process at a time, and these tests run commands side by side). Skipped without
 * SVC_TEST_DATABASE_URL.
 */
describe.skipIf(!process.env.SVC_TEST_DATABASE_URL)('operator commands on PostgreSQL', () => {
  let pgdb: MigratedPostgres;
  let env: Env;
  let client: pg.Client;
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-files-'));

  beforeAll(async () => {
    pgdb = await migratedPostgres();
    ({ env, client } = pgdb);
  }, 120_000);
  afterAll(async () => {
    await pgdb?.close();
  });

  const projectId = async (slug: string) => (await client.query<{ id: string }>('select id from projects where slug = $1', [slug])).rows[0]!.id;
  /** Items can only be written by the service's tools, so the item and link tests seed rows directly. */
  async function seedItem(slug: string, id: string, title: string): Promise<void> {
    await seedDecision(client, await projectId(slug), id, title);
  }
  const auditOf = async (operation: string, where: string, value: string) =>
    (await client.query(`select actor_id, source from audit_log where operation = $1 and ${where} = $2 order by id`, [operation, value])).rows;

  it('project create prints the new project; a duplicate slug is refused with conflict; list and show find it by slug and by 8-char prefix', async () => {
    const created = await svcJson<{ id: string; slug: string; name: string }>(['project', 'create', 'alpha', '--name', 'Alpha Project'], env);
    expect(created).toMatchObject({ slug: 'alpha', name: 'Alpha Project' });

    const duplicate = await svc(['project', 'create', 'alpha'], env);
    expect(duplicate).toEqual({ code: 1, stdout: '', stderr: 'svc: conflict: slug: a project with this slug already exists\n' });

    const [listed, bySlug, byPrefix, text] = await Promise.all([
      svcJson<{ projects: { id: string; slug: string }[] }>(['project', 'list'], env),
      svcJson<{ id: string; systems: unknown[] }>(['project', 'show', 'alpha'], env),
      svcJson<{ id: string }>(['project', 'show', created.id.slice(0, 8)], env),
      svc(['project', 'list'], env),
    ]);
    expect(listed.projects.filter((p) => p.slug === 'alpha')).toEqual([expect.objectContaining({ id: created.id })]);
    expect(bySlug).toMatchObject({ id: created.id, systems: [] });
    expect(byPrefix.id).toBe(created.id);
    expect(text.stdout).toContain(`${created.id.slice(0, 8)}  alpha  Alpha Project\n`);

    const missing = await svc(['project', 'show', 'no-such-project'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^svc: not_found: /);
  }, 120_000);

  it('system add attaches a named system to a project and refuses the same name twice', async () => {
    expect((await svc(['project', 'create', 'sys'], env)).code).toBe(0);
    const system = await svcJson<{ id: string; name: string }>(['system', 'add', 'sys', 'billing-api'], env);
    expect(system.name).toBe('billing-api');
    const again = await svc(['system', 'add', 'sys', 'billing-api'], env);
    expect(again).toMatchObject({ code: 1, stderr: 'svc: conflict: name: the project already has a system with this name\n' });
    const shown = await svcJson<{ systems: { id: string; name: string }[] }>(['project', 'show', 'sys'], env);
    expect(shown.systems).toEqual([expect.objectContaining({ id: system.id, name: 'billing-api' })]);
  }, 120_000);

  it('actor add keeps repeated --external-id pairs, refuses a duplicate email in any case and a malformed pair; actor list shows the actor', async () => {
    const actor = await svcJson<{ id: string; email: string; name: string; role: string; external_ids: Record<string, string> }>(
      ['actor', 'add', '--email', 'dana@example.test', '--name', 'Dana', '--role', 'engineer', '--external-id', 'github=dana', '--external-id', 'slack=U123=x'],
      env,
    );
    expect(actor).toMatchObject({ email: 'dana@example.test', name: 'Dana', role: 'engineer', external_ids: { github: 'dana', slack: 'U123=x' } });

    const [duplicate, malformed, badEmail] = await Promise.all([
      svc(['actor', 'add', '--email', 'DANA@example.test'], env),
      svc(['actor', 'add', '--email', 'other@example.test', '--external-id', 'no-equals-sign'], env),
      svc(['actor', 'add', '--email', 'not-an-email'], env),
    ]);
    expect(duplicate).toEqual({ code: 1, stdout: '', stderr: 'svc: conflict: email: an actor with this email is already registered\n' });
    expect(malformed).toEqual({ code: 1, stdout: '', stderr: "svc: invalid_input: --external-id: 'no-equals-sign' is not KEY=VALUE\n" });
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toMatch(/^svc: invalid_input: --email: /);

    const listed = await svcJson<{ actors: { id: string; email: string }[] }>(['actor', 'list'], env);
    expect(listed.actors.map((a) => a.email)).not.toContain('other@example.test');
    expect(listed.actors).toContainEqual(expect.objectContaining({ id: actor.id, email: 'dana@example.test' }));
  }, 120_000);

  it('type add registers a custom type from a schema file; a bad schema is refused naming the field; type list shows it beside the built-ins', async () => {
    const schema = join(dir, 'incident.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', properties: { severity: { enum: ['sev1', 'sev2'] } }, additionalProperties: false }));
    const added = await svcJson<{ key: string; display_name: string; owner: string }>(
      ['type', 'add', 'incident', '--schema', schema, '--display-name', 'Incident', '--owner', 'sre'],
      env,
    );
    expect(added).toMatchObject({ key: 'incident', display_name: 'Incident', owner: 'sre' });

    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const [notObject, badProperties, notJson, missing, duplicate] = await Promise.all([
      svc(['type', 'add', 'listish', '--schema', write('array.json', '{"type": "array"}')], env),
      svc(['type', 'add', 'broken', '--schema', write('broken.json', '{"type": "object", "properties": 5}')], env),
      svc(['type', 'add', 'garbled', '--schema', write('garbled.json', '{"type": ')], env),
      svc(['type', 'add', 'absent', '--schema', join(dir, 'does-not-exist.json')], env),
      svc(['type', 'add', 'incident', '--schema', schema], env),
    ]);
    expect(notObject.code).toBe(1);
    expect(notObject.stderr).toMatch(/^svc: invalid_input: --schema \(schema\.type\): /);
    const asJson = await svc(['type', 'add', 'listish', '--schema', join(dir, 'array.json'), '--json'], env);
    expect(asJson).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(asJson.stderr)).toMatchObject({ error: { code: 'invalid_input', details: { field: 'schema.type' } } });
    expect(badProperties.code).toBe(1);
    expect(badProperties.stderr).toMatch(/^svc: invalid_input: --schema: not a valid JSON Schema: .*properties/);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^svc: invalid_input: --schema: .*garbled\.json is not valid JSON/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^svc: invalid_input: --schema: cannot read .*does-not-exist\.json: ENOENT/);
    expect(duplicate).toMatchObject({ code: 1, stderr: 'svc: conflict: key: an item type with this key already exists\n' });

    const types = await svcJson<{ types: { key: string }[] }>(['type', 'list'], env);
    const keys = types.types.map((t) => t.key);
    expect(keys).toEqual(expect.arrayContaining(['decision', 'research', 'incident']));
    for (const refused of ['listish', 'broken', 'garbled', 'absent']) expect(keys).not.toContain(refused);
  }, 120_000);

  it('item show, delete, restore and history work on a seeded item by its 8-char prefix; deleting twice is refused', async () => {
    const projects = await Promise.all([svc(['project', 'create', 'items'], env), svc(['project', 'create', 'items-elsewhere'], env)]);
    expect(projects.map((r) => r.code)).toEqual([0, 0]);
    const id = 'c0ffee00-0000-4000-8000-000000000001';
    await seedItem('items', id, 'Use PostgreSQL');

    const shown = await svcJson<{ item: { id: string; title: string; deleted_at: string | null }; links: unknown[] }>(['item', 'show', 'c0ffee00'], env);
    expect(shown).toMatchObject({ item: { id, title: 'Use PostgreSQL', deleted_at: null }, links: [] });

    const deleted = await svcJson<{ id: string; deleted_at: string | null }>(['item', 'delete', 'c0ffee00'], env);
    expect(deleted.id).toBe(id);
    expect(deleted.deleted_at).not.toBeNull();
    const twice = await svc(['item', 'delete', 'c0ffee00'], env);
    expect(twice).toEqual({ code: 1, stdout: '', stderr: 'svc: refused_transition: item c0ffee00 is already deleted\n' });
    // A deleted item still shows (with its deletion), so it can be found and restored.
    expect((await svcJson<{ item: { deleted_at: string | null } }>(['item', 'show', id], env)).item.deleted_at).not.toBeNull();

    // Printed as text, a write answer reads as its ids and state, one per line; restored, it has no deleted_at.
    const restored = await svc(['item', 'restore', 'c0ffee00', '--project', 'items'], env);
    expect(restored).toEqual({ code: 0, stdout: `id: ${id}\nchain_id: ${id}\nitem_type: decision\nversion: 1\n`, stderr: '' });
    const history = await svcJson<{ chain_id: string; head_id: string; versions: { id: string }[]; entries: { change_kind: string }[] }>(
      ['item', 'history', 'c0ffee00'],
      env,
    );
    expect(history).toMatchObject({ chain_id: id, head_id: id, versions: [expect.objectContaining({ id })] });
    expect(history.entries.map((e) => e.change_kind)).toEqual(['restored', 'deleted']);

    const [wrongProject, unknown, tooShort] = await Promise.all([
      svc(['item', 'show', 'c0ffee00', '--project', 'items-elsewhere'], env),
      svc(['item', 'show', 'deadbeef'], env),
      svc(['item', 'show', 'c0f'], env),
    ]);
    // --project scopes the look-up: the item exists, but not in that project.
    expect(wrongProject).toMatchObject({ code: 1, stdout: '' });
    expect(wrongProject.stderr).toMatch(/^svc: not_found: .*c0ffee00/);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^svc: not_found: /);
    expect(tooShort).toMatchObject({ code: 1, stdout: '' });
    expect(tooShort.stderr).toMatch(/^svc: invalid_input: <id>: /);
  }, 180_000);

  it('search and brief read a project the way an assistant does: ranked hits, near misses, the brief as markdown', async () => {
    expect((await svc(['project', 'create', 'reads'], env)).code).toBe(0);
    await seedItem('reads', 'c0ffee00-0000-4000-8000-0000000000a1', 'Use PostgreSQL advisory locks for the scheduler');
    await seedItem('reads', 'c0ffee00-0000-4000-8000-0000000000a2', 'Cache the catalog in Redis');
    const [text, json, near, brief, bad, tooMany, badJson, notNumber, noSystem, typeWord, twoTypes] = await Promise.all([
      svc(['search', 'reads', 'advisory', 'locks'], env),
      svcJson<{ items: { id: string }[]; truncated: unknown }>(['search', 'reads', 'scheduler', '--type', 'decision'], env),
      svc(['search', 'reads', 'advisory', 'cron'], env),
      svc(['brief', 'reads'], env),
      svc(['search', 'reads', 'x', '--type', 'decisions'], env),
      svc(['search', 'reads', 'x', '--limit', '500'], env),
      svc(['search', 'reads', 'x', '--type', 'decision', '--type', 'decisions', '--json'], env),
      svc(['search', 'reads', 'x', '--limit', 'abc'], env),
      svc(['search', 'reads', 'scheduler', '--system', 'sched'], env),
      svc(['search', 'reads', 'advisory', 'decisions'], env),
      svc(['search', 'reads', 'scheduler', '--type', 'policy, decision'], env),
    ]);
    expect(text).toEqual({ code: 0, stdout: 'c0ffee00  decision  Use PostgreSQL advisory locks for the scheduler\n', stderr: '' });
    expect(json.items.map((i) => i.id)).toEqual(['c0ffee00-0000-4000-8000-0000000000a1']);
    expect(json.truncated).toBe(false);
    // Several types in one --type, as HTTP's item_types=policy,decision (a newcomer's was refused as one type).
    expect(twoTypes).toEqual({ code: 0, stdout: 'c0ffee00  decision  Use PostgreSQL advisory locks for the scheduler\n', stderr: '' });
    expect(near.stdout).toContain('(no item holds every word)\nnear misses:');
    expect(near.stdout).toContain('(lacks cron)');
    expect(near.stdout).not.toContain('is an item type');
    // A word naming an item type is a filter, not a word of the text (a newcomer searched `default decision`).
    expect(typeWord.stdout).toContain("('decision' is an item type, not a word of the text: --type decision keeps only those)");
    expect(brief.stdout).toContain('## Recent Items');
    expect(brief.stdout).toContain('Cache the catalog in Redis');
    expect(bad.code).toBe(1);
    // A refusal names what was typed (--type), not the tool's input field (item_types[0]) the CLI fills from it.
    expect(bad.stderr).toMatch(/^svc: invalid_input: --type: unknown item type 'decisions'; registered types: /);
    // A limit above the most is refused, not cut to it (decision 0049).
    expect(tooMany).toMatchObject({ code: 1, stdout: '' });
    expect(tooMany.stderr).toMatch(/^svc: invalid_input: --limit: at most 200; /);
    // A limit that is not a whole number is a usage error naming it (it was "not a finite number … JSON").
    // --system filters as the tool's system_ids does; an unknown one is refused naming the option and the systems.
    expect(noSystem).toMatchObject({ code: 1, stdout: '' });
    expect(noSystem.stderr).toMatch(/^svc: not_found: --system: system 'sched' not found; the project has no systems/);
    expect(notNumber).toMatchObject({ code: 2, stdout: '' });
    expect(notNumber.stderr).toContain("--limit: 'abc' is not a whole number");
    expect(JSON.parse(badJson.stderr)).toMatchObject({ error: { code: 'invalid_input', details: { field: 'item_types[1]', option: '--type' } } });
    // A hit with a body shows where the words are, on the line under it, the words marked as the tools mark them.
    const added = await svc(['item', 'add', 'reads', 'Queue workers', '--body', 'Workers wake on\nLISTEN/NOTIFY instead of polling the table.'], env);
    expect(added.code, added.stderr).toBe(0);
    const hit = await svc(['search', 'reads', 'notify'], env);
    expect(hit.stdout).toMatch(/^[0-9a-f]{8} {2}decision {2}Queue workers\n {10}Workers wake on LISTEN\/\*\*NOTIFY\*\* instead of polling the table\.\n$/);
    // Nothing matched at all (here an exclusion removed the one item holding the word): no talk of every word.
    expect((await svc(['search', 'reads', 'scheduler -advisory'], env)).stdout).toBe('(no item matches)\n');
    // A ticket or standard number is found by its number and whole (the parser read `-0042` as a negative number).
    expect((await svc(['item', 'add', 'reads', 'Retry budget', '--body', 'Retries follow RFC-0042 and the 2026-11-05 review.'], env)).code).toBe(0);
    const [number, whole, date] = await Promise.all([svc(['search', 'reads', '0042'], env), svc(['search', 'reads', 'rfc-0042'], env), svc(['search', 'reads', '05'], env)]);
    expect(number.stdout).toMatch(/^[0-9a-f]{8} {2}decision {2}Retry budget\n {10}Retries follow RFC-\*\*0042\*\* and the 2026-11-05 review\.\n$/);
    expect(whole.stdout).toContain('Retries follow **RFC-0042** and');
    expect(date.stdout).toContain('Retry budget');
    // An underscore identifier is found by a run of its parts (a newcomer searched advisory_lock, 2026-11-26).
    expect((await svc(['item', 'add', 'reads', 'Scheduler lock', '--body', 'Each job calls pg_try_advisory_lock first.'], env)).code).toBe(0);
    const part = await svc(['search', 'reads', 'advisory_lock'], env);
    expect(part.stdout).toMatch(/^[0-9a-f]{8} {2}decision {2}Scheduler lock\n {10}Each job calls pg_try_\*\*advisory_lock\*\* first\.\n$/);
    // A file by its name, a host by its domain (a newcomer searched search.ts and prod.example.com, 2026-11-26).
    expect((await svc(['item', 'add', 'reads', 'Ranking code', '--body', 'Ranking lives in src/store/search.ts on db-01.prod.example.com.'], env)).code).toBe(0);
    const [file, host] = await Promise.all([svc(['search', 'reads', 'search.ts'], env), svc(['search', 'reads', 'prod.example.com'], env)]);
    expect(file.stdout).toContain('Ranking lives in src/store/**search.ts** on');
    expect(host.stdout).toContain('on db-01.**prod.example.com**.');
    // A version with or without its `v` finds both spellings (an outsider searched 0.8.1 for v0.8.1, 2026-11-27).
    expect((await svc(['item', 'add', 'reads', 'Pinned client', '--body', 'We pinned the client at v0.8.1 after the leak.'], env)).code).toBe(0);
    expect((await svc(['item', 'add', 'reads', 'Server upgrade', '--body', 'The server moved to 0.8.1 (from 0.7.9) on Monday.'], env)).code).toBe(0);
    const [bare, prefixed] = await Promise.all([svc(['search', 'reads', '0.8.1'], env), svc(['search', 'reads', 'v0.8.1'], env)]);
    for (const found of [bare, prefixed]) {
      expect(found.stdout).toMatch(/ {10}We pinned the client at \*\*v0\.8\.1\*\* after the leak\.\n/);
      expect(found.stdout).toMatch(/ {10}The server moved to \*\*0\.8\.1\*\* \(from 0\.7\.9\) on Monday\.\n/);
    }
  }, 180_000);

  it('link add and remove join two seeded items: the edge shows on both ends, adding it again changes nothing, an unknown type and a missing edge are refused', async () => {
    expect((await svc(['project', 'create', 'links'], env)).code).toBe(0);
    const from = 'aaaa0000-0000-4000-8000-00000000000a';
    const to = 'bbbb0000-0000-4000-8000-00000000000b';
    await seedItem('links', from, 'Cache the brief');
    await seedItem('links', to, 'Add Redis');

    const added = await svcJson<{ link: { from_chain_id: string; to_chain_id: string; link_type: string }; created: boolean }>(
      ['link', 'add', 'links', 'aaaa0000', 'depends', 'bbbb0000'],
      env,
    );
    expect(added).toMatchObject({ created: true, link: { from_chain_id: from, to_chain_id: to, link_type: 'depends' } });
    const again = await svcJson<{ created: boolean }>(['link', 'add', 'links', from, 'depends', to], env);
    expect(again.created).toBe(false);

    const [fromEnd, toEnd] = await Promise.all([
      svcJson<{ links: { from_chain_id: string; to_chain_id: string; link_type: string }[] }>(['item', 'show', 'aaaa0000'], env),
      svcJson<{ links: { from_chain_id: string; to_chain_id: string; link_type: string }[] }>(['item', 'show', 'bbbb0000'], env),
    ]);
    for (const end of [fromEnd, toEnd]) {
      expect(end.links).toEqual([expect.objectContaining({ from_chain_id: from, to_chain_id: to, link_type: 'depends' })]);
    }

    const [badType, self] = await Promise.all([
      svc(['link', 'add', 'links', 'aaaa0000', 'relates', 'bbbb0000'], env),
      svc(['link', 'add', 'links', 'aaaa0000', 'blocks', 'aaaa0000'], env),
    ]);
    expect(badType).toMatchObject({ code: 1, stdout: '' });
    expect(badType.stderr).toMatch(/^svc: invalid_input: <type>: /);
    expect(self).toMatchObject({ code: 1, stderr: 'svc: invalid_input: <to>: an item cannot link to itself\n' });

    expect(await svcJson(['link', 'remove', 'links', 'aaaa0000', 'depends', 'bbbb0000'], env)).toEqual({ removed: true });
    expect((await svcJson<{ links: unknown[] }>(['item', 'show', 'aaaa0000'], env)).links).toEqual([]);
    const gone = await svc(['link', 'remove', 'links', 'aaaa0000', 'depends', 'bbbb0000'], env);
    expect(gone).toEqual({ code: 1, stdout: '', stderr: 'svc: not_found: no depends link from aaaa0000 to bbbb0000\n' });
  }, 180_000);

  it('check exits 1 when a finding at or above --fail-on (default error) exists, still printing the findings on stdout; --fail-on never exits 0', async () => {
    expect((await Promise.all([svc(['project', 'create', 'gate'], env), svc(['project', 'create', 'gate-warn'], env)])).map((r) => r.code)).toEqual([0, 0]);
    await seedItem('gate', 'eeee0000-0000-4000-8000-00000000000e', 'Use tabs');
    await seedItem('gate', 'ffff0000-0000-4000-8000-00000000000f', 'Use spaces');
    await seedItem('gate-warn', 'abab0000-0000-4000-8000-00000000000a', 'Cache');
    await seedItem('gate-warn', 'cdcd0000-0000-4000-8000-00000000000c', 'Redis');
    // An error (conflicting-decisions) in gate; only a warning (dangling-link: a link to a deleted item) in gate-warn.
    expect((await svc(['link', 'add', 'gate', 'eeee0000', 'conflicts', 'ffff0000'], env)).code).toBe(0);
    expect((await svc(['link', 'add', 'gate-warn', 'abab0000', 'depends', 'cdcd0000'], env)).code).toBe(0);
    expect((await svc(['item', 'delete', 'cdcd0000'], env)).code).toBe(0);

    const [gated, json, never, warnDefault, warnGated, bad] = await Promise.all([
      svc(['check', 'gate'], env),
      svc(['check', 'gate', '--json'], env),
      svc(['check', 'gate', '--fail-on', 'never'], env),
      svc(['check', 'gate-warn'], env),
      svc(['check', 'gate-warn', '--fail-on', 'warn'], env),
      svc(['check', 'gate', '--fail-on', 'sometimes'], env),
    ]);
    expect(gated.code).toBe(1);
    expect(gated.stdout).toContain('conflicting-decisions');
    expect(gated.stderr).toBe('svc: check: 1 finding(s) at or above error (--fail-on error)\n');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ counts: { error: 1 } });
    expect(never.code).toBe(0);
    expect(never.stdout).toBe(gated.stdout);
    expect(warnDefault.code).toBe(0);
    expect(warnDefault.stdout).toContain('dangling-link');
    expect(warnGated.code).toBe(1);
    expect(warnGated.stdout).toBe(warnDefault.stdout);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("option '--fail-on <severity>' argument 'sometimes' is invalid");
  }, 180_000);

  it('records who wrote: --actor names the actor, SVC_DEFAULT_ACTOR_ID stands in for it, and with neither the audit row says source cli and no actor', async () => {
    const [ops, fallback] = await Promise.all([
      svcJson<{ id: string }>(['actor', 'add', '--email', 'ops@example.test'], env),
      svcJson<{ id: string }>(['actor', 'add', '--email', 'default@example.test'], env),
    ]);
    const [byFlag, byEnv, byNobody, flagBeatsEnv] = await Promise.all([
      svcJson<{ id: string }>(['project', 'create', 'by-flag', '--actor', ops.id], env),
      svcJson<{ id: string }>(['project', 'create', 'by-env'], { ...env, SVC_DEFAULT_ACTOR_ID: fallback.id }),
      svcJson<{ id: string }>(['project', 'create', 'by-nobody'], env),
      svcJson<{ id: string }>(['project', 'create', 'flag-beats-env', '--actor', ops.id.toUpperCase()], { ...env, SVC_DEFAULT_ACTOR_ID: fallback.id }),
    ]);
    expect(await auditOf('project_create', 'target_id', byFlag.id)).toEqual([{ actor_id: ops.id, source: 'cli' }]);
    expect(await auditOf('project_create', 'target_id', byEnv.id)).toEqual([{ actor_id: fallback.id, source: 'cli' }]);
    expect(await auditOf('project_create', 'target_id', byNobody.id)).toEqual([{ actor_id: null, source: 'cli' }]);
    expect(await auditOf('project_create', 'target_id', flagBeatsEnv.id)).toEqual([{ actor_id: ops.id, source: 'cli' }]);

    // The item history of a delete names the actor as well.
    await seedItem('by-flag', 'dddd0000-0000-4000-8000-00000000000d', 'Attributed');
    expect((await svc(['item', 'delete', 'dddd0000', '--actor', ops.id], env)).code).toBe(0);
    const history = await svcJson<{ entries: { change_kind: string; actor_id: string | null; source: string }[] }>(['item', 'history', 'dddd0000'], env);
    expect(history.entries).toEqual([expect.objectContaining({ change_kind: 'deleted', actor_id: ops.id, source: 'cli' })]);
    expect(await auditOf('item_delete', 'project_id', byFlag.id)).toEqual([{ actor_id: ops.id, source: 'cli' }]);
  }, 180_000);

  it('refuses a write by an unknown actor UUID (from --actor or SVC_DEFAULT_ACTOR_ID) with unknown_actor, and writes nothing', async () => {
    const stranger = '11111111-1111-4111-8111-111111111111';
    const [byFlag, byEnv, notUuid] = await Promise.all([
      svc(['project', 'create', 'stranger-flag', '--actor', stranger], env),
      svc(['project', 'create', 'stranger-env'], { ...env, SVC_DEFAULT_ACTOR_ID: stranger }),
      svc(['project', 'create', 'stranger-text', '--actor', 'dana'], env),
    ]);
    for (const run of [byFlag, byEnv]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(new RegExp(`^svc: unknown_actor: .*${stranger}.*svc actor add`));
    }
    // The message names the option only when it was typed; else the variable the actor came from.
    expect(byFlag.stderr).toMatch(/^svc: unknown_actor: --actor: /);
    expect(byEnv.stderr).toMatch(/^svc: unknown_actor: SVC_DEFAULT_ACTOR_ID: /);
    expect(notUuid).toEqual({
      code: 1,
      stdout: '',
      stderr: "svc: invalid_input: --actor: 'dana' is not an actor UUID; `svc actor list` shows the registered ones\n",
    });
    const { rows } = await client.query("select slug from projects where slug like 'stranger-%'");
    expect(rows).toEqual([]);
    const audit = await client.query('select count(*)::int as n from audit_log where actor_id = $1', [stranger]);
    expect(audit.rows[0]).toEqual({ n: 0 });
  }, 120_000);

  it('--json puts the result alone on stdout, even with debug logging on', async () => {
    const noisy = { ...env, SVC_LOG_LEVEL: 'debug' };
    const [list, created] = await Promise.all([svc(['project', 'list', '--json'], noisy), svc(['project', 'create', 'noisy', '--json'], noisy)]);
    for (const run of [list, created]) {
      expect(run.code).toBe(0);
      // JSON.parse takes the whole of stdout: one stray log line before or after the result would throw.
      expect(() => JSON.parse(run.stdout)).not.toThrow();
      // The logs were on, and went to stderr.
      expect(run.stderr).toContain('"msg":"database ready"');
    }
    expect(JSON.parse(created.stdout)).toMatchObject({ slug: 'noisy' });
  }, 120_000);

  it("lets two server processes on one PostgreSQL see each other's writes", async () => {
    const actor = await svcJson<{ id: string }>(['actor', 'add', '--email', 'twin@example.test'], env);
    const [a, b] = await Promise.all([serveHttp(env), serveHttp(env)]);
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
    }
    expect(await Promise.all([a.exited, b.exited])).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
  }, 120_000);
});
