import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { isSvcError, isUuid, newSlugRefusal } from '@svc/domain';
import { findActor, listActors, listProjects, migrationStatus, openStore, redactUrl, type Store } from '@svc/store';
import { type Config, loadConfig } from './config.js';
import { fromDatabase } from './errors.js';
import { firstUseProject } from './operations/setup.js';
import { storeConfig } from './service.js';

type CheckStatus = 'ok' | 'fail' | 'skipped';

interface Check {
  /** settings, database, schema, actor, project, port. */
  name: string;
  status: CheckStatus;
  /** What was found, in a sentence. */
  message: string;
  /** What to run to fix it (fail only). */
  fix?: string;
}

export interface Diagnosis {
  ok: boolean;
  checks: Check[];
}

export interface DiagnoseOptions {
  /** An actor the caller means to use (`--actor`); else SVC_DEFAULT_ACTOR_ID is checked. */
  actor?: string | undefined;
  /** Where `svc serve http` would listen (`--host`, `--port`); else SVC_HTTP_HOST / SVC_HTTP_PORT. */
  host?: string | undefined;
  port?: number | undefined;
}

const ok = (name: string, message: string): Check => ({ name, status: 'ok', message });
const fail = (name: string, message: string, fix: string): Check => ({ name, status: 'fail', message, fix });
const skipped = (name: string, message: string): Check => ({ name, status: 'skipped', message });

/**
 * `svc doctor`: every failure a newcomer meets between `pnpm start` and a first write, each found without
 * changing anything (no migration, no setup), and each with the command that fixes it. A bad setting does
 * not hide the rest: it is reported, set aside, and the other checks run on the defaults.
 */
export async function diagnose(env: Record<string, string | undefined>, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  const checks: Check[] = [];
  const { config, problems } = settings(env);
  checks.push(
    problems.length === 0
      ? ok('settings', 'every SVC_ setting is valid')
      : fail('settings', problems.map((p) => p.message).join('; '), problems.map((p) => p.fix).join('; ')),
  );
  // A project named by a bad SVC_PROJECT is not checked as if none were named (it said "SVC_PROJECT is not set").
  const projectSetAside = env.SVC_PROJECT !== undefined && config.project === undefined;
  const database = await databaseChecks(config, options, projectSetAside);
  const host = options.host ?? config.httpHost;
  const port = options.port ?? config.httpPort;
  const { check: portChecked, serving } = await portCheck(host, port);
  const astray = serving && noEmbeddedDatabase(config);
  checks.push(...database.map((c) => (astray && c.name === 'database' ? elsewhere(c, `${host}:${port}`) : c)), portChecked);
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}

/** No database is configured but the embedded one, and its data directory does not exist yet. */
function noEmbeddedDatabase(config: Config): boolean {
  return config.databaseUrl === undefined && !config.dataDir.startsWith('memory://') && !existsSync(config.dataDir);
}

/**
 * No embedded database here while an svc server answers on the port: that server most likely keeps its data in
 * another directory, and `svc init` here would make a second, empty one beside it (a newcomer who started the
 * server with SVC_DATA_DIR and ran doctor without it, 2026-11-27).
 */
function elsewhere(check: Check, where: string): Check {
  return {
    ...check,
    fix: `the svc on ${where} keeps its data elsewhere: run this with the SVC_DATA_DIR (or SVC_DATABASE_URL) it was started with; or, for a database of your own here, ${check.fix}`,
  };
}

/** loadConfig, with each invalid variable reported and dropped in turn so the other checks can still run. */
function settings(env: Record<string, string | undefined>): { config: Config; problems: { message: string; fix: string }[] } {
  const rest = { ...env };
  const problems: { message: string; fix: string }[] = [];
  for (;;) {
    try {
      return { config: loadConfig(rest), problems };
    } catch (error) {
      const field = isSvcError(error) ? error.details.field : undefined;
      if (typeof field !== 'string' || !(field in rest) || problems.length > 20) throw error;
      const hint = field === 'SVC_DEFAULT_ACTOR_ID' ? ' (`svc actor list` shows the registered actors)' : '';
      problems.push({ message: (error as Error).message, fix: `correct or unset ${field}${hint}` });
      delete rest[field];
    }
  }
}

async function databaseChecks(config: Config, options: DiagnoseOptions, projectSetAside = false): Promise<Check[]> {
  const dependents = ['schema', 'actor', 'project'];
  const skipAll = (why: string) => dependents.map((name) => skipped(name, why));
  if (noEmbeddedDatabase(config)) {
    return [fail('database', `no embedded database at ${resolve(config.dataDir)} yet`, 'svc init (or `pnpm start`: the first start sets it up)'), ...skipAll('no database')];
  }
  let store: Store;
  try {
    store = await openStore(storeConfig(config));
    await store.ping();
  } catch (error) {
    return [databaseFailure(config, error), ...skipAll('the database cannot be opened')];
  }
  try {
    const checks: Check[] = [ok('database', `${store.backend === 'pglite' ? `pglite ${resolve(config.dataDir)}` : store.location} answers`)];
    const status = await migrationStatus(store.db);
    if (status.unknown.length > 0) {
      checks.push(
        fail(
          'schema',
          `the database has schema ${status.current} (${status.currentRelease}), newer than this svc (${status.latest}, ${status.latestRelease})`,
          `upgrade svc to a release that ships migration ${status.unknown.at(-1)}`,
        ),
      );
      return [...checks, skipped('actor', 'unknown schema'), skipped('project', 'unknown schema')];
    }
    if (status.pending.length > 0) {
      const embedded = store.backend === 'pglite';
      checks.push(
        fail(
          'schema',
          `the schema is at ${status.current ?? 'nothing'}; migrations ${status.pending.map((p) => p.id).join(', ')} are pending`,
          embedded ? 'svc migrate (or `svc init`)' : 'svc migrate (or start the server with --migrate)',
        ),
      );
      if (status.current === null) return [...checks, skipped('actor', 'no schema yet'), skipped('project', 'no schema yet')];
    } else {
      checks.push(ok('schema', `schema ${status.current} (${status.currentRelease}) is current`));
    }
    checks.push(await actorCheck(store, config, options.actor));
    checks.push(projectSetAside ? skipped('project', 'SVC_PROJECT is not a project slug (see settings)') : await projectCheck(store, config));
    return checks;
  } catch (error) {
    const mapped = fromDatabase(error);
    return [databaseFailure(config, mapped ?? error), ...skipAll('the database stopped answering')];
  } finally {
    await store.close().catch(() => {});
  }
}

/**
 * SVC_PROJECT names no project: svc init (or `svc project create`) makes it, unless its name may not be a new
 * project's slug (decision 0051: it reads as an id), when the fix is another name (an attacker was told to create it).
 */
function missingProject(slug: string): Check {
  const refused = newSlugRefusal(slug);
  if (refused) return fail('project', `no project has the slug ${slug} (SVC_PROJECT), and none can: ${refused}`, 'set SVC_PROJECT to a project\'s slug (svc project list shows them)');
  return fail('project', `project ${slug} (SVC_PROJECT) does not exist yet`, `svc init (or \`svc project create ${slug}\`)`);
}

/**
 * The project `svc init` and the first `svc serve http` use: SVC_PROJECT's when set, else `default`, else the oldest
 * (a newcomer with two projects was not told which one was taken).
 */
async function projectCheck(store: Store, config: Config): Promise<Check> {
  const first = await firstUseProject(store.db, config.project);
  if (config.project !== undefined) {
    return first
      ? ok('project', `project ${first.project.slug} (SVC_PROJECT) exists`)
      : missingProject(config.project);
  }
  if (!first) return fail('project', 'no project yet', 'svc init (or `svc project create SLUG`)');
  const projects = await listProjects(store.db, 2);
  if (projects.length === 1) return ok('project', `project ${first.project.slug} exists`);
  const why = first.chosen === 'default' ? 'it is named default' : 'no project is named default and it is the oldest';
  return ok(
    'project',
    `svc init uses project ${first.project.slug}: SVC_PROJECT is not set and ${why} (set SVC_PROJECT or pass --project for another; svc project list shows them all)`,
  );
}

function databaseFailure(config: Config, error: unknown): Check {
  const code = String((error as { code?: unknown }).code ?? '');
  const message = (error as Error).message ?? String(error);
  if (config.databaseUrl !== undefined) {
    return fail(
      'database',
      `cannot reach PostgreSQL at ${redactUrl(config.databaseUrl)}: ${message}${code && !message.includes(code) ? ` (${code})` : ''}`,
      'start PostgreSQL there, or correct SVC_DATABASE_URL (unset it to use the embedded database)',
    );
  }
  const holder = isSvcError(error) ? (error.details.holder as { pid?: number; host?: string } | null | undefined) : undefined;
  if (holder) {
    return fail(
      'database',
      message,
      `stop process ${holder.pid} on ${holder.host} (an svc that cannot share the directory), or use another SVC_DATA_DIR`,
    );
  }
  return fail('database', `cannot open the embedded database at ${resolve(config.dataDir)}: ${message}`, 'check SVC_DATA_DIR');
}

async function actorCheck(store: Store, config: Config, given: string | undefined): Promise<Check> {
  const [id, source] = given !== undefined ? [given.trim(), '--actor'] : [config.defaultActorId, 'SVC_DEFAULT_ACTOR_ID'];
  const register = 'svc actor list (registered actors), or `svc actor add --email you@example.com` (register one)';
  if (id === undefined) {
    const actors = await listActors(store.db, 1);
    return actors.length > 0
      ? ok('actor', `actor ${actors[0]?.id} (${actors[0]?.email}) is registered; clients name theirs with X-Actor or --actor`)
      : fail('actor', 'no actor registered yet: writes cannot be attributed', 'svc init (or `svc actor add --email you@example.com`)');
  }
  if (!isUuid(id)) return fail('actor', `${source} '${id}' is not an actor UUID`, register);
  const actor = await findActor(store.db, id.toLowerCase());
  return actor
    ? ok('actor', `${source} ${actor.id} is ${actor.email}`)
    : fail('actor', `${source} ${id} is not a registered actor`, register);
}

/**
 * The port `svc serve http` would take: free, or already serving svc, is fine; anything else says how to move. With
 * whether an svc server already answers there (`serving`).
 */
async function portCheck(host: string, port: number): Promise<{ check: Check; serving: boolean }> {
  const where = `${host}:${port}`;
  const error = await new Promise<NodeJS.ErrnoException | undefined>((done) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) => done(e));
    server.listen({ host, port, exclusive: true }, () => server.close(() => done(undefined)));
  });
  if (error === undefined) return { check: ok('port', `${where} is free for svc serve http`), serving: false };
  const move = `stop what listens there, or choose another port: SVC_HTTP_PORT=${port === 8080 ? 8081 : port + 1} svc serve http (or --port)`;
  if (error.code !== 'EADDRINUSE') return { check: fail('port', `cannot listen on ${where}: ${error.code ?? error.message}`, move), serving: false };
  if (await answersAsSvc(host, port)) return { check: ok('port', `${where} is taken by a running svc serve http`), serving: true };
  return { check: fail('port', `${where} is taken by another program`, move), serving: false };
}

/** Whether what listens there is an svc server: its /health answers {"status":"ok"} with an X-Request-Id. */
export async function answersAsSvc(host: string, port: number): Promise<boolean> {
  const name = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  try {
    const response = await fetch(`http://${name}:${port}/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as { status?: unknown };
    return response.ok && body.status === 'ok' && response.headers.has('x-request-id');
  } catch {
    return false;
  }
}
