import {
  announceHttpServer,
  createLogger,
  type Diagnosis,
  diagnose,
  embeddedDatabaseReady,
  ensureFirstUse,
  type FirstUse,
  isSvcError,
  migrateDatabase,
  openService,
  ops,
  portOf,
  runningHttpServer,
  SvcError,
  schemaStatus,
  withFieldNamed,
} from '@svc/service';
import type { Command } from 'commander';
import type { Cli } from './command-table.js';
import { completionScript, type Shell } from './completion.js';
import { type Connection, connection, localUrl, renderGuide, renderPointer } from './connect-guide.js';
import { requireEmbeddedDatabase, writePrivateFile } from './files.js';
import { print, writeStdout } from './output.js';

/** The actions of the commands the CLI runs itself, named by the command table (commands.ts). */

/** A server that cannot listen says where and why, not as an internal error with a stack of its own. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') return error;
  const why = code === 'EADDRINUSE' ? 'the port is in use (choose another with --port or SVC_HTTP_PORT)' : code;
  return new SvcError('unavailable', `cannot listen on ${host}:${port}: ${why}`, { host, port });
}

/** `svc migrate [--status]`. */
export async function migrate(cli: Cli, _args: string[], opts: { status?: boolean; json?: boolean }): Promise<void> {
  if (opts.status) {
    const status = await schemaStatus(cli.config());
    print(cli.io, status, opts.json === true, (s: typeof status) =>
      [
        `schema: ${s.current ?? 'none'} (${s.currentRelease ?? 'empty database'})`,
        `code:   ${s.latest} (${s.latestRelease})`,
        ...s.applied.map((a) => `  applied ${a.id} ${a.name} (${a.release})`),
        ...s.pending.map((p) => `  pending ${p.id} ${p.name} (${p.release})`),
        ...(s.unknown.length > 0 ? [`  the database is newer than this svc: ${s.unknown.join(', ')}`] : []),
      ].join('\n'),
    );
    return;
  }
  const result = await migrateDatabase(cli.config());
  print(cli.io, result, opts.json === true, (r: typeof result) =>
    r.applied.length > 0 ? `applied ${r.applied.join(', ')}; schema ${r.current} (${r.release})` : `schema ${r.current} (${r.release}) is up to date`,
  );
}

/** `svc version`. */
export function version(cli: Cli, _args: string[], opts: { json?: boolean }): void {
  print(cli.io, cli.version, opts.json === true, (v: Cli['version']) => `svc ${v.release} (schema ${v.schema})`);
}

/** `svc serve mcp`: MCP over stdio until the assistant closes it. */
export async function serveMcp(cli: Cli, _args: string[], opts: { actor?: string; migrate?: boolean }): Promise<void> {
  // Loaded here, not at start-up: the MCP SDK and the HTTP app (hono, the web view) are most of what a CLI
  // command would otherwise load only to list projects (`svc project list` took 1.0–1.3 s, now 0.5–0.6 s; 2026-11-27).
  const { serveStdio } = await import('@svc/mcp');
  const cfg = cli.config();
  // A client starts this server from anywhere; an embedded database is never made here (svc init or the first
  // svc serve http does), so a missing one is named rather than replaced by an empty one.
  requireEmbeddedDatabase(cfg);
  const service = await openService(cfg, { migrate: opts.migrate === true });
  try {
    await cli.verifyActors(service, opts.actor);
    await serveStdio(service, { actorId: opts.actor });
  } finally {
    await service.close();
  }
}

/** `svc serve http`: listen until SIGTERM or SIGINT. */
export async function serveHttp(
  cli: Cli,
  _args: string[],
  opts: { host?: string; port?: number; migrate?: boolean; project?: string; actorEmail?: string },
): Promise<void> {
  const cfg = cli.config();
  const host = opts.host ?? cfg.httpHost;
  const port = opts.port ?? cfg.httpPort;
  const { startHttpServer } = await import('@svc/http');
  // Making an embedded database takes most of a first start, and a newcomer waited on a silent terminal (2026-11-28).
  if (!embeddedDatabaseReady(cfg)) {
    cli.io.err(`svc: making the embedded database in ${cfg.dataDir} (a first start takes about 20 s)`);
  }
  const service = await openService(cfg, { migrate: opts.migrate === true });
  await cli.verifyActors(service).catch(async (error: unknown) => {
    await service.close();
    throw error;
  });
  // On the embedded database the first start sets up a project and an actor, so the printed header works
  // at once; PostgreSQL is an operator's database, set up with `svc init` (docs/decisions/0028).
  let first: FirstUse | undefined;
  try {
    if (service.database.backend === 'pglite') first = await ensureFirstUse(service, cfg, { project: opts.project, actorEmail: opts.actorEmail }, cli.env);
  } catch (error) {
    await service.close();
    throw firstUseRefusal(error, opts);
  }
  // Once listening, closing the server closes the service; until then, it is ours to close. Left open, a
  // PostgreSQL pool keeps the process alive for its idle time-out and the embedded lock is never released.
  const server = await startHttpServer(service, { host, port, allowedHosts: cfg.allowedHosts }).catch(async (error: unknown) => {
    await service.close();
    throw listenError(error, host, port);
  });
  service.logger.info({ url: server.url }, 'svc http listening');
  let withdraw = () => {};
  try {
    withdraw = announceHttpServer(cfg, host, portOf(server.url));
  } catch (error) {
    // Only `svc init` beside it reads the announcement: a directory that refuses it costs that, not the server.
    service.logger.warn({ err: error }, 'could not announce the server beside the data directory');
  }
  if (first) {
    const guide = connection(first, cfg, localUrl(host, portOf(server.url)));
    cli.io.err(first.created.project || first.created.actor ? `${renderGuide(guide, true)}\n` : renderPointer(guide));
  }
  cli.io.err(`svc listening on ${server.url} (database: ${service.database.location})`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      service.logger.info('shutting down');
      withdraw();
      server.close().then(resolve, resolve);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

/**
 * A refusal of first use named as the user gave the value: `--project` / `--actor-email`, or the variable it came
 * from (`svc init --actor-email bad` said "actor_email: Invalid email address": an attacker, 2026-11-27).
 */
function firstUseRefusal(error: unknown, opts: { project?: string; actorEmail?: string }): unknown {
  if (!isSvcError(error) || typeof error.details.field !== 'string') return error;
  const names: Record<string, string> = {
    project: opts.project !== undefined ? '--project' : 'SVC_PROJECT',
    actor_email: opts.actorEmail !== undefined ? '--actor-email' : 'SVC_ACTOR_EMAIL',
    actor_name: '--actor-name',
  };
  const name = names[error.details.field];
  return name === undefined ? error : withFieldNamed(error, name, { option: name });
}

/** `svc init`: migrate, find or create a project and an actor, print how to connect. */
export async function init(cli: Cli, _args: string[], opts: { project?: string; actorEmail?: string; actorName?: string; json?: boolean }): Promise<void> {
  const cfg = cli.config();
  const service = await openService(cfg, { migrate: true, logger: createLogger(cli.env.SVC_LOG_LEVEL ? cfg.logLevel : 'warn') });
  let first: FirstUse;
  try {
    first = await ensureFirstUse(service, cfg, { project: opts.project, actorEmail: opts.actorEmail, actorName: opts.actorName }, cli.env);
  } catch (error) {
    throw firstUseRefusal(error, opts);
  } finally {
    await service.close();
  }
  // A server already running on this embedded database is where an assistant connects, whatever this process's settings say.
  const running = await runningHttpServer(cfg);
  const guide = connection(first, cfg, running ? localUrl(running.bind, running.port) : localUrl(cfg.httpHost, cfg.httpPort));
  cli.io.err(renderGuide(guide, running ? { pid: running.pid } : false));
  print(cli.io, guide, opts.json === true, (c: Connection) =>
    [`project: ${c.project.slug} (${c.project.id})`, `actor: ${c.actor.id} (${c.actor.email})`, `mcp_url: ${c.mcp_url}`].join('\n'),
  );
}

/** `svc doctor`: every check with its fix; exit 1 when one fails. */
export async function doctor(cli: Cli, _args: string[], opts: { actor?: string; host?: string; port?: number; json?: boolean }): Promise<void> {
  const result = await diagnose(cli.env, { actor: opts.actor, host: opts.host, port: opts.port });
  print(cli.io, result, opts.json === true, (d: Diagnosis) =>
    d.checks
      .map((c) => `${c.status === 'ok' ? 'ok  ' : c.status === 'fail' ? 'FAIL' : 'skip'}  ${c.name.padEnd(8)} ${c.message}${c.fix ? `\n                fix: ${c.fix}` : ''}`)
      .join('\n'),
  );
  const failed = result.checks.filter((c) => c.status === 'fail').map((c) => c.name);
  if (failed.length > 0) throw new SvcError('unavailable', `doctor: ${failed.join(', ')} failed (fixes above)`, { failed });
}

/** `svc export [project] [--inbox] [--out file]`: the lines to stdout, or to a private file with a summary. */
export async function exportFile(cli: Cli, [project]: string[], opts: { inbox?: boolean; out?: string; json?: boolean }, command: Command): Promise<void> {
  if ((project === undefined) === (opts.inbox !== true)) {
    command.error('error: name a project to export, or pass --inbox for the shared inbox (not both)', { exitCode: 2 });
  }
  if (opts.out === '') throw new SvcError('invalid_input', '--out: give a file name (or leave --out out: the export goes to standard output)', { field: '--out' });
  const bar = cli.progressBar();
  const call = { source: 'cli', onProgress: bar.onProgress } as const;
  const result = await cli
    // Exactly one of the two is given (refused above otherwise): no project means the inbox.
    .withService((service) => (project === undefined ? service.call(ops.inbox_export, {}, call) : service.call(ops.project_export, { project_id: project }, call)), {
      reads: true,
    })
    .finally(() => bar.stop());
  const text = `${result.lines.join('\n')}\n`;
  // `--out -` is standard output, as for most tools; an empty name (`--out "$FILE"` with FILE unset) is refused rather
  // than taken as no option, which printed the project's whole memory (an attacker, 2026-11-27).
  if (opts.out === undefined || opts.out === '-') {
    writeStdout(text);
    return;
  }
  writePrivateFile(opts.out, text);
  print(
    cli.io,
    { file: opts.out, records: result.lines.length - 2, counts: result.counts },
    opts.json === true,
    (r: { file: string; records: number }) => `wrote ${r.records} records to ${r.file}`,
  );
}

/** `svc completion <shell>`: generated from the command tree. */
export function completion(cli: Cli, [shell]: string[]): void {
  cli.io.out(completionScript(cli.program, shell as Shell));
}
