import { closeSync, constants, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { serveStdio } from '@svc/mcp';
import { startHttpServer } from '@svc/http';
import {
  CONFIG_MAX_BYTES,
  codeVersion,
  type Config,
  createLogger,
  type Diagnosis,
  diagnose,
  ensureFirstUse,
  type FirstUse,
  findOperation,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_LINE_BYTES,
  loadConfig,
  migrateDatabase,
  openService,
  type Service,
  SvcError,
  schemaStatus,
  shortId,
} from '@svc/service';
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { completionScript, SHELLS, type Shell } from './completion.js';
import { type Connection, connection, localUrl, renderGuide, renderPointer } from './connect-guide.js';
import { ExitCode, type Io, print, type RunState } from './output.js';

interface CommonOptions {
  json?: boolean;
  actor?: string;
  project?: string;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function parseExternalIds(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  // fromEntries defines own keys, so `__proto__=x` stays a key (and is judged as one) instead of a prototype.
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new SvcError('invalid_input', `--external-id: '${pair}' is not KEY=VALUE`, { field: 'external_ids' });
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** `--port`: refused as a usage error while parsing, before any database is opened. */
function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('must be a port number (0 to 65535)');
  return port;
}

/** A server that cannot listen says where and why, not as an internal error with a stack of its own. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') return error;
  const why = code === 'EADDRINUSE' ? 'the port is in use (choose another with --port or SVC_HTTP_PORT)' : code;
  return new SvcError('unavailable', `cannot listen on ${host}:${port}: ${why}`, { host, port });
}

const MIB = 1024 * 1024;

/**
 * Read a file chunk by chunk, handing each complete line (without its newline) to `onLine`, and stop with a
 * message naming the limit as soon as the file or a line outgrows it: `/dev/zero` or a runaway pipe is
 * refused after reading at most a limit's worth, never held whole in memory.
 */
function readCapped(path: string, flag: string, maxBytes: number, maxLineBytes: number, onLine: (line: string) => void): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new SvcError('invalid_input', `${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { field: flag });
  }
  try {
    const chunk = Buffer.alloc(MIB);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let total = 0;
    let line = 1;
    const tooLong = () =>
      new SvcError('payload_too_large', `${flag}: line ${line} of ${path} is longer than ${maxLineBytes / MIB} MiB, the most a line may hold`, { field: flag, line });
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new SvcError('invalid_input', `${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { field: flag });
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new SvcError('payload_too_large', `${flag}: ${path} is larger than ${maxBytes / MIB} MiB, the most svc reads from such a file`, { field: flag });
      let start = 0;
      for (let at = chunk.indexOf(10, 0); at !== -1 && at < n; at = chunk.indexOf(10, start)) {
        if (pendingBytes + at - start > maxLineBytes) throw tooLong();
        onLine(Buffer.concat([...pending, chunk.subarray(start, at)]).toString('utf8'));
        pending = [];
        pendingBytes = 0;
        start = at + 1;
        line++;
      }
      if (pendingBytes + n - start > maxLineBytes) throw tooLong();
      pending.push(Buffer.from(chunk.subarray(start, n)));
      pendingBytes += n - start;
    }
    if (pendingBytes > 0) onLine(Buffer.concat(pending).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/** A whole small file (configuration, schema) as text, read with a cap of CONFIG_MAX_BYTES. */
function readTextFile(path: string, flag: string): string {
  const lines: string[] = [];
  readCapped(path, flag, CONFIG_MAX_BYTES, CONFIG_MAX_BYTES, (line) => lines.push(line));
  return lines.join('\n');
}

interface GlossaryListing {
  groups: { id: string; name: string; accepted: { term: string }[]; proposed: { id: string; term: string }[] }[];
  truncated: boolean;
}

/** `svc glossary list`: a group per paragraph, proposals with the id that accept and reject take. */
function glossaryText(r: GlossaryListing): string {
  if (r.groups.length === 0) return '(no glossary groups)';
  const groups = r.groups.map((g) =>
    [
      `${g.name}  (${shortId(g.id)})`,
      `  accepted: ${g.accepted.length === 0 ? '(none)' : g.accepted.map((t) => t.term).join(', ')}`,
      `  proposed: ${g.proposed.length === 0 ? '(none)' : g.proposed.map((t) => `${t.term} (${shortId(t.id)})`).join(', ')}`,
    ].join('\n'),
  );
  return `${groups.join('\n\n')}${r.truncated ? '\n\n(more groups not shown)' : ''}`;
}

/** An export file as its lines, read with the import limits (docs/decisions/0014). */
function readImportLines(path: string, flag: string): string[] {
  const lines: string[] = [];
  readCapped(path, flag, IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES, (line) => lines.push(line));
  return lines;
}

function readJsonFile(path: string, flag: string): unknown {
  const text = readTextFile(path, flag);
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it refused: the file may be anyone's (--schema /etc/shadow), so say where, never what.
    throw new SvcError('invalid_input', `${flag}: ${path} is not valid JSON (${jsonErrorPlace(text, (error as Error).message)})`, { field: flag });
  }
}

/**
 * Where JSON.parse gave up, as line and column, without a character of the text. V8 names a position for
 * some errors and quotes the text for others, so the place is found by parsing prefixes: a prefix ending
 * before the fault is merely incomplete, one reaching past it is wrong (about 20 parses of at most 1 MiB).
 */
function jsonErrorPlace(text: string, message: string): string {
  const incomplete = (why: string, length: number): boolean => {
    if (/Unexpected end of JSON input/.test(why)) return true;
    const at = /at position (\d+)/.exec(why);
    return at !== null && Number(at[1]) >= length;
  };
  if (incomplete(message, text.length)) return 'it ends before the value is complete';
  const wrong = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return false;
    } catch (error) {
      return !incomplete((error as Error).message, length);
    }
  };
  let low = 1;
  let high = text.length;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (wrong(mid)) high = mid;
    else low = mid + 1;
  }
  const before = text.slice(0, low - 1);
  return `at line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
}

/**
 * Write an export to `path` for this user only: created 0600, and never through a symbolic link someone
 * planted there (O_NOFOLLOW), so another user cannot redirect it into a file of theirs or of ours.
 */
function writePrivateFile(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new SvcError('invalid_input', `--out: ${path} is a symbolic link; svc does not write through one (remove it or name another file)`, {
        field: '--out',
      });
    }
    throw new SvcError('invalid_input', `--out: cannot write ${path} (${code ?? 'error'})`, { field: '--out' });
  }
  try {
    // A file another user made (a world-writable one in /tmp) would hand them the export.
    if (process.getuid && fstatSync(fd).uid !== process.getuid()) {
      throw new SvcError('invalid_input', `--out: ${path} belongs to another user; svc does not write an export into it`, { field: '--out' });
    }
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * The `svc` command line. Every command runs operations of the service catalog, the same code the MCP and
 * HTTP surfaces run; this file only parses arguments and prints.
 */
export function buildProgram(io: Io, env: Record<string, string | undefined> = process.env, state: RunState = { json: false }): Command {
  const version = codeVersion();
  const program = new Command('svc')
    .description('svc: per-project decision memory for AI assistants and the people who work with them')
    .version(`svc ${version.release} (schema ${version.schema})`, '-V, --version', 'print the release and schema version')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });

  const config = (): Config => loadConfig(env);
  /** The result of the command that ran, for hooks that act on it after printing (check --fail-on). */
  const lastResult: { value: unknown } = { value: undefined };
  // main.ts prints a refusal as JSON when the command that ran was given --json.
  program.hook('preAction', (_program, action) => {
    state.json = action.opts<{ json?: boolean }>().json === true;
  });

  /** Open the service, run `fn`, close. CLI commands log only warnings unless SVC_LOG_LEVEL says otherwise. */
  async function withService<T>(fn: (service: Service) => Promise<T>): Promise<T> {
    const cfg = config();
    const logger = createLogger(env.SVC_LOG_LEVEL ? cfg.logLevel : 'warn');
    const service = await openService(cfg, { logger });
    try {
      return await fn(service);
    } finally {
      await service.close();
    }
  }

  /**
   * A server checks the actors it was given before it serves, so a typo stops it at start (exit 1, saying how
   * to register one) instead of failing every write later.
   */
  async function verifyActors(service: Service, flag?: string): Promise<void> {
    if (flag !== undefined) await service.verifyActor(flag, '--actor');
    if (service.defaultActorId !== undefined) await service.verifyActor(service.defaultActorId, 'SVC_DEFAULT_ACTOR_ID');
  }

  /** A progress bar on stderr when it is a terminal; nothing otherwise (stdout stays the result only). */
  function progressBar(): { onProgress?: (done: number, total: number, label: string) => void; stop(): void } {
    if (!process.stderr.isTTY) return { stop() {} };
    const bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: '{label} [{bar}] {value}/{total}', hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      onProgress(done, total, label) {
        if (!started) {
          bar.start(total, done, { label });
          started = true;
        }
        bar.setTotal(total);
        bar.update(done, { label });
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }

  /** Add a command that runs one catalog operation and prints its result. */
  function op(
    parent: Command,
    spec: string,
    description: string,
    operation: string,
    toInput: (args: string[], opts: Record<string, unknown>) => Record<string, unknown>,
    configure?: (cmd: Command) => void,
    text?: (result: never) => string,
  ): Command {
    const cmd = parent.command(spec).description(description).option('--json', 'print the result as JSON');
    // Every write takes --actor, decided by the catalog rather than per command (docs/decisions/0020).
    if (findOperation(operation)?.kind === 'write') {
      cmd.option('--actor <uuid>', 'attribute the write to this actor (default SVC_DEFAULT_ACTOR_ID; else recorded as source cli)');
    }
    configure?.(cmd);
    cmd.action(async (...raw: unknown[]) => {
      const command = raw.at(-1) as Command;
      const opts = command.opts<CommonOptions & Record<string, unknown>>();
      const args = command.args;
      const bar = progressBar();
      const result = await withService((service) =>
        service.call(operation, toInput(args, opts), { source: 'cli', actorId: opts.actor ?? undefined, onProgress: bar.onProgress }),
      ).finally(() => bar.stop());
      const presentation = findOperation(operation)?.presentation;
      lastResult.value = result;
      const rendered = text ?? (presentation && presentation.kind !== 'json' ? (presentation.render as (r: never) => string) : undefined);
      print(io, result, opts.json === true, rendered);
    });
    return cmd;
  }

  const projectScope = (cmd: Command) => cmd.option('--project <project>', 'resolve the id only inside this project');

  // migrate
  program
    .command('migrate')
    .description('apply pending database migrations (safe to run from many processes at once)')
    .option('--status', 'show applied and pending migrations without changing anything')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { status?: boolean; json?: boolean }) => {
      if (opts.status) {
        const status = await schemaStatus(config());
        print(io, status, opts.json === true, (s: typeof status) =>
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
      const result = await migrateDatabase(config());
      print(io, result, opts.json === true, (r: typeof result) =>
        r.applied.length > 0
          ? `applied ${r.applied.join(', ')}; schema ${r.current} (${r.release})`
          : `schema ${r.current} (${r.release}) is up to date`,
      );
    });

  program
    .command('version')
    .description('print the release and schema version')
    .option('--json', 'print the result as JSON')
    .action((opts: { json?: boolean }) => print(io, version, opts.json === true, (v: typeof version) => `svc ${v.release} (schema ${v.schema})`));

  // serve
  const serve = program.command('serve').description('run svc as a server');
  serve
    .command('mcp')
    .description('serve MCP over stdio (for an assistant that starts svc itself)')
    .option('--actor <uuid>', 'the actor for this session (default SVC_DEFAULT_ACTOR_ID)')
    .option('--migrate', 'apply pending migrations first (PostgreSQL; the embedded database always migrates)')
    .action(async (opts: { actor?: string; migrate?: boolean }) => {
      const service = await openService(config(), { migrate: opts.migrate === true });
      try {
        await verifyActors(service, opts.actor);
        await serveStdio(service, { actorId: opts.actor });
      } finally {
        await service.close();
      }
    });
  serve
    .command('http')
    .description('serve HTTP (health, readiness, REST and MCP at /mcp)')
    .option('--host <host>', 'interface to listen on (default SVC_HTTP_HOST or 127.0.0.1)')
    .addOption(new Option('--port <port>', 'port (default SVC_HTTP_PORT or 8080)').argParser(parsePort))
    .option('--migrate', 'apply pending migrations first (PostgreSQL; the embedded database always migrates)')
    .option('--project <slug>', 'embedded database: the project the first start creates (default SVC_PROJECT or "default")')
    .option('--actor-email <email>', 'embedded database: the actor the first start registers (default SVC_ACTOR_EMAIL or your git email)')
    .action(async (opts: { host?: string; port?: number; migrate?: boolean; project?: string; actorEmail?: string }) => {
      const cfg = config();
      const host = opts.host ?? cfg.httpHost;
      const port = opts.port ?? cfg.httpPort;
      const service = await openService(cfg, { migrate: opts.migrate === true });
      await verifyActors(service).catch(async (error: unknown) => {
        await service.close();
        throw error;
      });
      // On the embedded database the first start sets up a project and an actor, so the printed header works
      // at once; PostgreSQL is an operator's database, set up with `svc init` (docs/decisions/0028).
      let first: FirstUse | undefined;
      try {
        if (service.store.backend === 'pglite') first = await ensureFirstUse(service, cfg, { project: opts.project, actorEmail: opts.actorEmail }, env);
      } catch (error) {
        await service.close();
        throw error;
      }
      // Once listening, closing the server closes the service; until then, it is ours to close. Left open, a
      // PostgreSQL pool keeps the process alive for its idle time-out and the embedded lock is never released.
      const server = await startHttpServer(service, { host, port, allowedHosts: cfg.allowedHosts }).catch(async (error: unknown) => {
        await service.close();
        throw listenError(error, host, port);
      });
      service.logger.info({ url: server.url }, 'svc http listening');
      if (first) {
        const guide = connection(first, cfg, localUrl(host, Number(new URL(server.url).port)));
        io.err(first.created.project || first.created.actor ? `${renderGuide(guide)}\n` : renderPointer(guide));
      }
      io.err(`svc listening on ${server.url} (database: ${service.store.location})`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          service.logger.info('shutting down');
          server.close().then(resolve, resolve);
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });

  // init, doctor
  program
    .command('init')
    .description('set svc up for first use: migrate, find or create a project and an actor, print how to connect an assistant')
    .option('--project <slug>', 'the project to find or create (default SVC_PROJECT or "default")')
    .option('--actor-email <email>', 'the actor to find or register (default SVC_ACTOR_EMAIL or your git email)')
    .option('--actor-name <name>', 'display name of an actor registered now')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { project?: string; actorEmail?: string; actorName?: string; json?: boolean }) => {
      const cfg = config();
      const service = await openService(cfg, { migrate: true, logger: createLogger(env.SVC_LOG_LEVEL ? cfg.logLevel : 'warn') });
      let first: FirstUse;
      try {
        first = await ensureFirstUse(service, cfg, { project: opts.project, actorEmail: opts.actorEmail, actorName: opts.actorName }, env);
      } finally {
        await service.close();
      }
      const guide = connection(first, cfg, localUrl(cfg.httpHost, cfg.httpPort));
      io.err(renderGuide(guide));
      print(io, guide, opts.json === true, (c: Connection) =>
        [`project: ${c.project.slug} (${c.project.id})`, `actor: ${c.actor.id} (${c.actor.email})`, `mcp_url: ${c.mcp_url}`].join('\n'),
      );
    });
  program
    .command('doctor')
    .description('check the setup (settings, database, schema, actor, project, HTTP port) and say what to run for each failure')
    .option('--actor <uuid>', 'check this actor (default SVC_DEFAULT_ACTOR_ID)')
    .option('--host <host>', 'check this interface for svc serve http (default SVC_HTTP_HOST or 127.0.0.1)')
    .addOption(new Option('--port <port>', 'check this port for svc serve http (default SVC_HTTP_PORT or 8080)').argParser(parsePort))
    .option('--json', 'print the result as JSON')
    .action(async (opts: { actor?: string; host?: string; port?: number; json?: boolean }) => {
      const result = await diagnose(env, { actor: opts.actor, host: opts.host, port: opts.port });
      print(io, result, opts.json === true, (d: Diagnosis) =>
        d.checks
          .map((c) => `${c.status === 'ok' ? 'ok  ' : c.status === 'fail' ? 'FAIL' : 'skip'}  ${c.name.padEnd(8)} ${c.message}${c.fix ? `\n                fix: ${c.fix}` : ''}`)
          .join('\n'),
      );
      const failed = result.checks.filter((c) => c.status === 'fail').map((c) => c.name);
      if (failed.length > 0) throw new SvcError('unavailable', `doctor: ${failed.join(', ')} failed (fixes above)`, { failed });
    });

  // project
  const project = program.command('project').description('create and inspect projects');
  op(project, 'create <slug>', 'create a project', 'project_create', ([slug], o) => ({ slug, name: o.name }), (c) => {
    c.option('--name <name>', 'display name');
  });
  op(project, 'list', 'list projects', 'project_list', () => ({ limit: 200 }), undefined, (r: { projects: { id: string; slug: string; name: string }[] }) =>
    r.projects.length === 0 ? '(no projects)' : r.projects.map((p) => `${shortId(p.id)}  ${p.slug}  ${p.name}`).join('\n'),
  );
  op(project, 'show <project>', 'show a project', 'project_show', ([p]) => ({ project_id: p }));
  const configCommand = project.command('config').description('the TOML project configuration ([research] ttl_days, [checks] disabled_rules)');
  op(configCommand, 'import <project> <file>', 'apply a TOML configuration file', 'project_config_import', ([p, file]) => ({ project_id: p, config: readTextFile(String(file), '<file>') }));
  op(configCommand, 'export <project>', 'print the configuration as TOML', 'project_config_export', ([p]) => ({ project_id: p }), undefined, (r: { config: string }) => r.config);

  // system
  const system = program.command('system').description('systems of a project');
  op(system, 'add <project> <name>', 'add a system to a project', 'system_add', ([p, name]) => ({ project_id: p, name }));

  // actor
  const actor = program.command('actor').description('register actors for attribution (no credentials)');
  op(
    actor,
    'add',
    'register an actor',
    'actor_add',
    (_, o) => ({ email: o.email, name: o.name, role: o.role, external_ids: parseExternalIds(o.externalId as string[] | undefined) }),
    (c) => {
      c.requiredOption('--email <email>', 'email address (unique; the primary human identifier)')
        .option('--name <name>', 'display name')
        .option('--role <role>', 'role')
        .option('--external-id <key=value>', 'an id in another system (repeatable)', collect);
    },
  );
  op(actor, 'list', 'list actors', 'actor_list', () => ({ limit: 200 }), undefined, (r: { actors: { id: string; email: string; name: string }[] }) =>
    r.actors.length === 0 ? '(no actors)' : r.actors.map((a) => `${a.id}  ${a.email}  ${a.name}`).join('\n'),
  );

  // type
  const type = program.command('type').description('item types');
  op(
    type,
    'add <key>',
    'register a custom item type',
    'type_add',
    ([key], o) => ({ key, schema: readJsonFile(String(o.schema), '--schema'), display_name: o.displayName, owner: o.owner }),
    (c) => {
      c.requiredOption('--schema <file.json>', 'JSON Schema for the context of items of this type')
        .option('--display-name <name>', 'display name')
        .option('--owner <owner>', 'owner');
    },
  );
  op(type, 'list', 'list item types', 'type_list', () => ({}), undefined, (r: { types: { key: string; display_name: string; owner: string }[] }) =>
    r.types.map((t) => `${t.key.padEnd(16)} ${t.display_name} (${t.owner})`).join('\n'),
  );

  // item
  const item = program.command('item').description('inspect, delete and restore items');
  op(item, 'show <id>', 'show the current version of an item', 'item_show', ([id], o) => ({ item_id: id, project_id: o.project }), projectScope);
  op(item, 'delete <id>', 'soft-delete an item', 'item_delete', ([id], o) => ({ item_id: id, project_id: o.project }), (c) => {
    projectScope(c);
  });
  op(item, 'restore <id>', 'restore a soft-deleted item', 'item_restore', ([id], o) => ({ item_id: id, project_id: o.project }), (c) => {
    projectScope(c);
  });
  op(item, 'history <id>', 'versions and history of an item', 'item_history', ([id], o) => ({ item_id: id, project_id: o.project }), projectScope);

  // link
  const link = program.command('link').description('typed edges between items: depends, blocks, supersedes, conflicts');
  op(link, 'add <project> <from> <type> <to>', 'add an edge', 'link_add', ([p, from, t, to]) => ({ project_id: p, from_id: from, type: t, to_id: to }));
  op(link, 'remove <project> <from> <type> <to>', 'remove an edge', 'link_remove', ([p, from, t, to]) => ({ project_id: p, from_id: from, type: t, to_id: to }));

  // work
  const work = program.command('work').description('work units');
  op(work, 'reopen <id>', 'reopen a closed work unit', 'work_reopen', ([id], o) => ({ work_unit_id: id, project_id: o.project }), (c) => {
    projectScope(c);
  });

  // read: search and brief, the same operations an assistant calls
  type Hit = { id: string; item_type: string; title: string; missing?: string[] };
  op(
    program,
    'search <project> <query...>',
    'search the current items of a project (the svc_item_search dialect: words, "phrases", OR, -exclusions)',
    'svc_item_search',
    ([p, ...words], o) => ({ project_id: p, query: words.join(' '), item_types: o.type, limit: o.limit === undefined ? undefined : Number(o.limit) }),
    (c) => {
      c.option('--type <type>', 'only items of this type (repeatable)', collect).option('--limit <n>', 'at most this many (default 20, up to 200)');
      c.addHelpText('after', '\nExamples:\n  svc search my-project connection pool\n  svc search my-project \'"advisory lock" -redis\' --type decision');
    },
    (r: { items: Hit[]; truncated: boolean; partial?: Hit[] }) =>
      [
        ...(r.items.length === 0 ? ['(no item holds every word)'] : r.items.map((h) => `${shortId(h.id)}  ${h.item_type.padEnd(9)} ${h.title}`)),
        ...(r.truncated ? ['… more match: narrow the query or raise --limit'] : []),
        ...(r.partial && r.partial.length > 0
          ? ['near misses:', ...r.partial.map((h) => `${shortId(h.id)}  ${h.item_type.padEnd(9)} ${h.title}  (lacks ${(h.missing ?? []).join(', ')})`)]
          : []),
      ].join('\n'),
  );
  op(program, 'brief <project>', "the project's brief as markdown: active work units and recent items", 'svc_brief', ([p], o) => ({
    project_id: p,
    keyword: o.keyword,
  }), (c) => {
    c.option('--keyword <word>', 'only what mentions this word');
  });

  // research, check
  const research = program.command('research').description('research items (cached external references with a time to live)');
  op(
    research,
    'sweep <project>',
    "list research past the project's research.ttl_days; --soft-delete removes it",
    'research_sweep',
    ([p], o) => ({ project_id: p, soft_delete: o.softDelete === true }),
    (c) => {
      c.option('--soft-delete', 'soft-delete the expired items (restorable with svc item restore)');
    },
    (r: { expired: { id: string; title: string; refreshed_at: string }[]; expired_count: number; soft_deleted: boolean; remaining: boolean; ttl_days: number }) =>
      r.expired_count === 0
        ? `(no research older than ${r.ttl_days} days)`
        : [
            ...r.expired.map((e) => `${shortId(e.id)}  ${e.refreshed_at.slice(0, 10)}  ${e.title}`),
            ...(r.expired_count > r.expired.length ? [`… ${r.expired_count - r.expired.length} more`] : []),
            r.soft_deleted ? `soft-deleted ${r.expired_count}` : `${r.expired_count} expired (run with --soft-delete to remove)`,
            ...(r.remaining ? ['more expired research is left: run the sweep again'] : []),
          ].join('\n'),
  );
  const check = op(program, 'check <project>', 'run the rule pack; findings as markdown', 'svc_check', ([p], o) => ({ project_id: p, rule: o.rule, severity: o.severity }), (c) => {
    c.option('--rule <rule>', 'run only this rule').option('--severity <severity>', 'show only error, warn or info and above');
    c.addOption(
      new Option('--fail-on <severity>', 'exit 1 when a finding of this severity or worse exists (never: always exit 0)')
        .choices(['error', 'warn', 'never'])
        .default('error'),
    );
    c.addHelpText(
      'after',
      '\nExamples:\n  svc check my-project\n  svc check my-project --rule dependency-cycle --json\n  svc check my-project --severity warn\n  svc check my-project --fail-on warn    # a CI gate: exit 1 on any warning or error',
    );
  });
  // The findings are printed first (stdout), then the exit code says whether they pass the gate.
  check.hook('postAction', (_cmd, action) => {
    const failOn = action.opts<{ failOn: 'error' | 'warn' | 'never' }>().failOn;
    const counts = lastResult.value as { counts?: Record<'error' | 'warn' | 'info', number> } | undefined;
    if (failOn === 'never' || !counts?.counts) return;
    const failing = counts.counts.error + (failOn === 'warn' ? counts.counts.warn : 0);
    if (failing > 0) throw new ExitCode(1, `check: ${failing} finding(s) at or above ${failOn} (--fail-on ${failOn})`);
  });

  // purge
  op(
    program,
    'purge',
    'rewrite the tables redaction changes (VACUUM FULL), so redacted text leaves the database files too',
    'storage_purge',
    () => ({}),
    (c) => {
      c.addHelpText(
        'after',
        '\nRedaction removes text from every answer at once; the old bytes stay in the data files until this runs.\n' +
          'Each table is locked while it is rewritten. Backups, WAL archives and replicas are yours to handle.',
      );
    },
  );

  // export, import
  program
    .command('export [project]')
    .description("write a project's whole memory as JSON Lines (lossless; see svc import)")
    .option('--inbox', 'write the shared inbox instead: the captures of no project, not promoted')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--json', 'print a summary as JSON (with --out)')
    .addHelpText(
      'after',
      '\nExamples:\n  svc export my-project --out my-project.jsonl\n  svc export my-project | gzip > backup.jsonl.gz\n  svc export --inbox --out inbox.jsonl',
    )
    .action(async (project: string | undefined, opts: { inbox?: boolean; out?: string; json?: boolean }, command: Command) => {
      if ((project === undefined) === (opts.inbox !== true)) {
        command.error('error: name a project to export, or pass --inbox for the shared inbox (not both)', { exitCode: 2 });
      }
      const bar = progressBar();
      const [operation, input] = opts.inbox ? ['inbox_export', {}] : ['project_export', { project_id: project }];
      const result = (await withService((service) =>
        service.call(operation, input, { source: 'cli', onProgress: bar.onProgress }),
      ).finally(() => bar.stop())) as { lines: string[]; counts: Record<string, number> };
      const text = `${result.lines.join('\n')}\n`;
      if (!opts.out) {
        process.stdout.write(text);
        return;
      }
      writePrivateFile(opts.out, text);
      print(io, { file: opts.out, records: result.lines.length - 2, counts: result.counts }, opts.json === true, (r: { file: string; records: number }) => `wrote ${r.records} records to ${r.file}`);
    });
  op(
    program,
    'import <file>',
    'restore a project (or the shared inbox) from an export, in one transaction (a bad file writes nothing)',
    'project_import',
    ([file], o) => ({ lines: readImportLines(String(file), '<file>'), as_slug: o.as }),
    (c) => {
      c.option('--as <slug>', 'import as a new project with this slug (every id renewed)');
      c.addHelpText('after', '\nExamples:\n  svc import my-project.jsonl                 # into a database without that project\n  svc import my-project.jsonl --as my-copy    # beside the original');
    },
    (r: { slug?: string; counts: Record<string, number> }) => `imported ${r.slug ?? 'the shared inbox'}: ${Object.entries(r.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ')}`,
  );

  // glossary
  const glossary = program.command('glossary').description('glossary groups and terms that expand searches');
  const group = glossary.command('group').description('glossary groups');
  op(group, 'add <project> <name>', 'add a glossary group', 'glossary_group_add', ([p, name]) => ({ project_id: p, name }));
  const term = glossary.command('term').description('accepted glossary terms');
  op(term, 'add <project> <group> <term>', 'add an accepted term to a group', 'glossary_term_add', ([p, g, t]) => ({ project_id: p, group: g, term: t }));
  op(glossary, 'propose <project> <group> <term>', 'propose a term (joins the review queue)', 'glossary_term_propose', ([p, g, t]) => ({ project_id: p, group: g, term: t }));
  op(glossary, 'accept <project> <term-id>', 'accept a proposed term', 'glossary_term_accept', ([p, id]) => ({ project_id: p, term_id: id }));
  op(glossary, 'reject <project> <term-id>', 'reject a proposed term', 'glossary_term_reject', ([p, id], o) => ({ project_id: p, term_id: id, reason: o.reason }), (c) => {
    c.option('--reason <reason>', 'why it was rejected');
  });
  op(glossary, 'list <project>', 'list groups with their accepted terms and pending proposals', 'glossary_list', ([p]) => ({ project_id: p, limit: 200 }), undefined, glossaryText);
  op(glossary, 'queue <project>', 'list proposed terms awaiting review', 'glossary_queue', ([p]) => ({ project_id: p, limit: 200 }), undefined, (r: { terms: { id: string; term: string; group_name: string }[] }) =>
    r.terms.length === 0 ? '(no proposed terms)' : r.terms.map((t) => `${shortId(t.id)}  ${t.term}  (group ${t.group_name})`).join('\n'),
  );

  program
    .command('completion')
    .description('print a shell completion script (bash or zsh)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      '\nExamples:\n  source <(svc completion bash)                 # this bash session\n  svc completion bash >> ~/.bashrc\n  svc completion zsh > "${fpath[1]}/_svc"       # zsh, then restart it',
    )
    .action((shell: Shell) => io.out(completionScript(program, shell)));

  return program;
}
