import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { createEmptyPostgresDatabase } from '@svc/service/testing';
import { describe, expect, it } from 'vitest';
import { type Env, freshDataDir, serveHttp, svc, svcEnv, svcJson } from './testing/svc-process.js';

interface Check {
  name: string;
  status: 'ok' | 'fail' | 'skipped';
  message: string;
  fix?: string;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

async function stop(server: { child: { kill(signal: NodeJS.Signals): boolean }; exited: Promise<unknown> }) {
  server.child.kill('SIGTERM');
  await server.exited;
}

/** `svc doctor --json` as a process: its exit code, and each check by name. */
async function doctor(env: Env, args: string[] = []) {
  const run = await svc(['doctor', '--json', ...args], env);
  const parsed = JSON.parse(run.stdout) as { ok: boolean; checks: Check[] };
  return { code: run.code, stderr: run.stderr, ok: parsed.ok, check: Object.fromEntries(parsed.checks.map((c) => [c.name, c])) as Record<string, Check> };
}

/**
 * Doctor exits 1 with check `name` failed: its message is `message` exactly or holds each of `holds`, and its
 * fix holds `fix`. `others` are the statuses further checks must have.
 */
function expectFailed(
  answer: Awaited<ReturnType<typeof doctor>>,
  name: string,
  want: { message?: string; holds?: string[]; fix: string; others?: Record<string, string> },
): void {
  const others = want.others ?? {};
  const statuses = Object.fromEntries(Object.keys(others).map((k) => [k, answer.check[k]?.status]));
  expect({ code: answer.code, [name]: answer.check[name]?.status, ...statuses }).toEqual({ code: 1, [name]: 'fail', ...others });
  if (want.message !== undefined) expect(answer.check[name]?.message).toBe(want.message);
  for (const part of want.holds ?? []) expect(answer.check[name]?.message).toContain(part);
  expect(answer.check[name]?.fix).toContain(want.fix);
}

/** A port taken by something that is not svc: it hangs up on whoever connects. */
function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/**
 * Issue 19, point 1: from `pnpm start` on a fresh machine to an assistant that writes, in one step. The first
 * start on an empty embedded data directory sets up a project and an actor and prints how to connect; later
 * starts add nothing. `svc init` does the same without serving; `svc doctor` names what is wrong and the fix.
 */
describe('the first start of svc serve http on an empty data directory', () => {
  it('creates a project and an actor, prints the /mcp URL, its X-Actor header and client configurations, and the printed header writes; a second start creates nothing', async () => {
    const env = svcEnv({ SVC_DATA_DIR: freshDataDir(), SVC_ACTOR_EMAIL: 'newcomer@example.test' });
    const first = await serveHttp(env);
    let actorId: string;
    let printedStart: Record<string, string> = {};
    try {
      const printed = first.output().stderr;
      // stdout carries results only; the guide is a message.
      expect(first.output().stdout).toBe('');
      // The wait for the embedded database to be made is announced before it, not left silent.
      expect(printed.indexOf('svc: making the embedded database in ')).toBeGreaterThanOrEqual(0);
      expect(printed.indexOf('svc: making the embedded database in ')).toBeLessThan(printed.indexOf('svc is ready'));
      const header = /header: X-Actor: (\S+)/.exec(printed);
      expect(header?.[1]).toMatch(UUID);
      actorId = header?.[1] as string;
      const mcpUrl = `${first.url}/mcp`;
      expect(printed).toContain(`svc is ready (created project 'default' and registered actor newcomer@example.test)`);
      expect(printed).toContain('Connect an assistant over MCP to this server:');
      expect(printed).toContain(`URL:    ${mcpUrl}`);
      expect(printed).toContain(`claude mcp add --transport http svc ${mcpUrl} --header "X-Actor: ${actorId}"`);
      // The web view is read-only without an actor: the guide says where it is and how to act in it.
      expect(printed).toContain(`The web view is at ${first.url}/: read-only unless`);
      // …with the settings that name this database and port, which differ from the defaults here: a newcomer ran the
      // line without them and met another, empty database that refused the actor (2026-11-28). The second start
      // below runs it as printed.
      const start = /yourself: (.*) pnpm start \(or a proxy/.exec(printed)?.[1] ?? '';
      printedStart = Object.fromEntries(start.split(' ').map((a) => a.split('=') as [string, string]));
      expect(printedStart).toEqual({ SVC_DATA_DIR: env.SVC_DATA_DIR, SVC_HTTP_PORT: new URL(first.url).port, SVC_DEFAULT_ACTOR_ID: actorId });
      // VS Code's .vscode/mcp.json ("servers", typed) and the mcpServers JSON, over HTTP and over stdio.
      expect(printed).toMatch(/"servers": \{\s+"svc": \{\s+"type": "http",\s+"url": "[^"]+\/mcp",\s+"headers": \{\s+"X-Actor": "[0-9a-f-]{36}"/);
      expect(printed).toMatch(/"mcpServers": \{\s+"svc": \{\s+"type": "http"/);
      expect(printed).toMatch(/"mcpServers": \{\s+"svc": \{\s+"command": "[^"]*node_modules\/\.bin\/svc",\s+"args": \[\s*"serve",\s*"mcp",\s*"--actor",\s*"[0-9a-f-]{36}"\s*\]/);
      // The printed header is all a client needs to write.
      const written = await fetch(`${first.url}/projects/default/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Actor': actorId },
        body: JSON.stringify({ title: 'Written with the printed header' }),
      });
      expect(written.status).toBe(200);
      // And over MCP at the printed URL, with the same header.
      const called = await fetch(mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-Actor': actorId },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'svc_save_decisions', arguments: { project_id: 'default', decisions: [{ title: 'Saved over /mcp', body: 'first use' }] } },
        }),
      });
      expect(called.status).toBe(200);
      expect(await called.text()).not.toContain('"isError":true');
    } finally {
      await stop(first);
    }

    // Started as the guide said, on the same port and data, acting as the actor.
    const second = await serveHttp(svcEnv({ ...printedStart, SVC_ACTOR_EMAIL: 'newcomer@example.test' }), []);
    try {
      expect(new URL(second.url).port).toBe(printedStart.SVC_HTTP_PORT);
      const printed = second.output().stderr;
      expect(printed).not.toContain('svc is ready');
      expect(printed).not.toContain('making the embedded database');
      expect(printed).toContain(`svc: project 'default', actor ${actorId} (newcomer@example.test); MCP at ${second.url}/mcp with header "X-Actor: ${actorId}"`);
      // Another CLI process, served by the running server: one project, one actor.
      const [projects, actors] = await Promise.all([
        svcJson<{ projects: { slug: string }[] }>(['project', 'list'], env),
        svcJson<{ actors: { id: string }[] }>(['actor', 'list'], env),
      ]);
      expect(projects.projects.map((p) => p.slug)).toEqual(['default']);
      expect(actors.actors.map((a) => a.id)).toEqual([actorId]);
      // Doctor, beside the running server: everything ok, the port taken by svc itself.
      const port = new URL(second.url).port;
      const healthy = await doctor({ ...env, SVC_HTTP_PORT: port });
      expect({ code: healthy.code, ok: healthy.ok }).toEqual({ code: 0, ok: true });
      expect(healthy.check.port?.message).toContain('taken by a running svc serve http');
      expect(Object.values(healthy.check).map((c) => `${c.name} ${c.status}`)).toEqual([
        'settings ok',
        'database ok',
        'schema ok',
        'actor ok',
        'project ok',
        'port ok',
      ]);
      // Doctor run without the server's data directory: its fix was `svc init`, which made a second, empty database
      // beside the one the server used (a newcomer, 2026-11-27); it now points at the server's data first.
      const astray = await doctor({ ...env, SVC_DATA_DIR: join(freshDataDir(), 'none'), SVC_HTTP_PORT: port });
      expect(astray.check.database?.status).toBe('fail');
      expect(astray.check.database?.fix).toContain(`the svc on 127.0.0.1:${port} keeps its data elsewhere: run this with the SVC_DATA_DIR`);
      // svc init beside it, without its port: the guide gives the running server's URL, not the configured 8080
      // (a newcomer connected to 8080 and got nothing, 2026-11-27).
      const init = await svc(['init'], env);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stderr).toContain(`Connect an assistant over MCP to the svc serve http running on this data (pid ${second.child.pid}):`);
      expect(init.stderr).toContain(`URL:    ${second.url}/mcp`);
      expect(init.stderr).not.toContain(':8080');
    } finally {
      await stop(second);
    }
    // Stopped, it is no longer named: the guide says where a server will listen once it runs.
    const after = await svc(['init'], { ...env, SVC_HTTP_PORT: '9124' });
    expect(after.stderr).toContain('Connect an assistant over MCP to `svc serve http` once it runs');
    expect(after.stderr).toContain('URL:    http://127.0.0.1:9124/mcp');
  }, 300_000);
});

describe('svc init', () => {
  it('sets up a project and an actor once, answers the same on every later run (--json), and prints the connection guide', async () => {
    const env = svcEnv({ SVC_DATA_DIR: freshDataDir(), SVC_HTTP_PORT: '9123' });
    const named = ['init', '--json', '--project', 'alpha', '--actor-email', 'init@example.test'];
    const first = await svc(named, env);
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout);
    expect(created).toMatchObject({
      project: { slug: 'alpha', id: expect.stringMatching(UUID) },
      actor: { email: 'init@example.test', id: expect.stringMatching(UUID) },
      created: { project: true, actor: true },
      mcp_url: 'http://127.0.0.1:9123/mcp',
      headers: { 'X-Actor': created.actor.id },
      clients: { claude_code: `claude mcp add --transport http svc http://127.0.0.1:9123/mcp --header "X-Actor: ${created.actor.id}"` },
    });
    expect(first.stderr).toContain(`header: X-Actor: ${created.actor.id}`);
    // init serves nothing: the guide says the URL works once a server runs.
    expect(first.stderr).toContain('to `svc serve http` once it runs (`pnpm start` starts it)');

    // Again with the same names, then with none (defaults are not created beside existing ones).
    const again = await svcJson(['init', '--project', 'alpha', '--actor-email', 'init@example.test'], env);
    const bare = await svcJson(['init'], env);
    for (const later of [again, bare]) {
      expect(later).toMatchObject({ project: { id: created.project.id, slug: 'alpha' }, actor: { id: created.actor.id }, created: { project: false, actor: false } });
    }
    const [projects, actors] = await Promise.all([
      svcJson<{ projects: unknown[] }>(['project', 'list'], env),
      svcJson<{ actors: unknown[] }>(['actor', 'list'], env),
    ]);
    expect({ projects: projects.projects.length, actors: actors.actors.length }).toEqual({ projects: 1, actors: 1 });
    expect({ again: again.chosen, bare: bare.chosen }).toEqual({ again: 'named', bare: 'oldest' });

    // With two projects and none named, init takes the oldest and says so; doctor says which init would take, and
    // checks SVC_PROJECT's when it is set (a newcomer was not told which of two projects was taken).
    await svcJson(['project', 'create', 'beta'], env);
    const oldest = await svc(['init'], env);
    expect(oldest.stdout).toContain('project: alpha');
    expect(oldest.stderr).toContain("project 'alpha' (the oldest project: none was named and none is called default; choose with --project or SVC_PROJECT)");
    const quiet = { ...env, SVC_HTTP_PORT: '0' };
    // One at a time: each opens the embedded database, which one process holds at once.
    const unnamed = await doctor(quiet);
    const beta = await doctor({ ...quiet, SVC_PROJECT: 'beta' });
    const gamma = await doctor({ ...quiet, SVC_PROJECT: 'gamma' });
    expect(unnamed.check.project).toEqual({
      name: 'project',
      status: 'ok',
      message:
        'svc init uses project alpha: SVC_PROJECT is not set and no project is named default and it is the oldest (set SVC_PROJECT or pass --project for another; svc project list shows them all)',
    });
    expect(beta.check.project).toMatchObject({ status: 'ok', message: 'project beta (SVC_PROJECT) exists' });
    expectFailed(gamma, 'project', { message: 'project gamma (SVC_PROJECT) does not exist yet', fix: 'svc project create gamma' });
    // One that reads as a project id cannot be made (decision 0051): the fix is another name, not a refused command.
    const idLike = await doctor({ ...quiet, SVC_PROJECT: 'deadbeef' });
    expectFailed(idLike, 'project', { holds: ["no project has the slug deadbeef (SVC_PROJECT), and none can: 'deadbeef' reads as a project id"], fix: "set SVC_PROJECT to a project's slug" });
    // A bad SVC_PROJECT is a settings failure; the project check does not then say it is not set (an attacker).
    const bad = await doctor({ ...quiet, SVC_PROJECT: 'Bad' });
    expectFailed(bad, 'settings', { holds: ['SVC_PROJECT'], fix: 'correct or unset SVC_PROJECT' });
    expect(bad.check.project).toEqual({ name: 'project', status: 'skipped', message: 'SVC_PROJECT is not a project slug (see settings)' });

    // A refused name is refused as such, naming it, before anything is written.
    // A refused name is refused as such, naming the option that gave it (an attacker met `actor_email: Invalid email address`).
    const refused = await svc(['init', '--project', 'Not A Slug'], env);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^svc: invalid_input: --project: 'Not A Slug' is not a valid slug/);
    const email = await svc(['init', '--actor-email', 'bad'], env);
    expect(email).toEqual({ code: 1, stdout: '', stderr: 'svc: invalid_input: --actor-email: must be an email address (name@example.com)\n' });
  }, 300_000);
});

describe('svc doctor', () => {
  it('exits 1 naming the fix for an unknown or malformed default actor, a taken port, an unreachable PostgreSQL and a missing database', async () => {
    const dataDir = freshDataDir();
    const base = svcEnv({ SVC_DATA_DIR: dataDir, SVC_HTTP_PORT: '0' });
    // Before anything exists: no database yet.
    const empty = await doctor(base);
    expect({ code: empty.code, ok: empty.ok, database: empty.check.database?.status }).toEqual({ code: 1, ok: false, database: 'fail' });
    expect(empty.check.database?.fix).toContain('svc init');
    // With --json, the refusal is JSON on stderr too.
    expect(JSON.parse(empty.stderr)).toMatchObject({ error: { code: 'unavailable', message: expect.stringContaining('doctor: database failed') } });

    expect((await svc(['init', '--actor-email', 'doctor@example.test'], base)).code).toBe(0);
    const taken = await listen();
    try {
      const takenPort = String((taken.address() as AddressInfo).port);
      const stranger = randomUUID();
      const [healthy, unknownActor, malformed, givenActor, portTaken, unreachable, text] = await Promise.all([
        doctor(base),
        doctor({ ...base, SVC_DEFAULT_ACTOR_ID: stranger }),
        doctor({ ...base, SVC_DEFAULT_ACTOR_ID: 'bob' }),
        doctor(base, ['--actor', 'not-a-uuid']),
        doctor({ ...base, SVC_HTTP_PORT: takenPort }),
        doctor(svcEnv({ SVC_DATABASE_URL: 'postgres://svc:secret@127.0.0.1:1/x', SVC_HTTP_PORT: '0' })),
        svc(['doctor'], { ...base, SVC_DEFAULT_ACTOR_ID: stranger }),
      ]);
      expect({ code: healthy.code, ok: healthy.ok }).toEqual({ code: 0, ok: true });

      expectFailed(unknownActor, 'actor', { message: `SVC_DEFAULT_ACTOR_ID ${stranger} is not a registered actor`, fix: 'svc actor add --email' });

      // A malformed setting is named, and the other checks still run on the rest.
      expectFailed(malformed, 'settings', { holds: ['SVC_DEFAULT_ACTOR_ID'], fix: 'unset SVC_DEFAULT_ACTOR_ID', others: { database: 'ok' } });
      expect(givenActor.check.actor).toMatchObject({ status: 'fail', message: "--actor 'not-a-uuid' is not an actor UUID" });

      expectFailed(portTaken, 'port', { message: `127.0.0.1:${takenPort} is taken by another program`, fix: 'SVC_HTTP_PORT=' });

      expectFailed(unreachable, 'database', { holds: ['postgres://svc:***@127.0.0.1:1/x'], fix: 'SVC_DATABASE_URL', others: { schema: 'skipped' } });
      expect(unreachable.check.database?.message).not.toContain('secret');

      // Without --json: one line per check, the fix under each failure, the summary on stderr.
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/^ok {4}settings/m);
      expect(text.stdout).toMatch(/^FAIL {2}actor {4}SVC_DEFAULT_ACTOR_ID \S+ is not a registered actor\n\s+fix: svc actor list/m);
      expect(text.stderr).toBe('svc: unavailable: doctor: actor failed (fixes above)\n');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  }, 300_000);

  it.skipIf(!process.env.SVC_TEST_DATABASE_URL)('on PostgreSQL: names pending migrations with `svc migrate`, then `svc init` sets it up', async () => {
    const db = (await createEmptyPostgresDatabase())!;
    try {
      const env = svcEnv({ SVC_DATABASE_URL: db.url, SVC_HTTP_PORT: '0' });
      const before = await doctor(env);
      expectFailed(before, 'schema', { fix: 'svc migrate' });
      expect(await svcJson(['init', '--actor-email', 'pg@example.test'], env)).toMatchObject({ project: { slug: 'default' }, created: { project: true, actor: true } });
      const after = await doctor(env);
      expect({ code: after.code, ok: after.ok }).toEqual({ code: 0, ok: true });
    } finally {
      await db.drop();
    }
  }, 300_000);
});
