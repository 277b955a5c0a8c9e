import { codeVersion, createLogger, loadConfig, openService, type Service } from '@svc/service';
import { Command } from 'commander';
import { addCommands, type Cli } from './command-table.js';
import { COMMANDS } from './commands.js';
import { requireEmbeddedDatabase } from './files.js';
import type { Io, RunState } from './output.js';
import { progressBar } from './progress.js';

/**
 * The `svc` command line, built from the command table (commands.ts). Every command runs operations of the
 * service catalog, the same code the MCP and HTTP surfaces run, or an action of the CLI's own; this package
 * only parses arguments and prints.
 */
export function buildProgram(io: Io, env: Record<string, string | undefined> = process.env, state: RunState = { json: false }): Command {
  const version = codeVersion();
  const program = new Command('svc')
    .description('svc: per-project decision memory for AI assistants and the people who work with them')
    .version(`svc ${version.release} (schema ${version.schema})`, '-V, --version', 'print the release and schema version')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });

  // main.ts prints a refusal as JSON when the command that ran was given --json.
  program.hook('preAction', (_program, action) => {
    state.json = action.opts<{ json?: boolean }>().json === true;
  });

  const cli: Cli = {
    io,
    env,
    version,
    program,
    progressBar,
    config: () => loadConfig(env),
    /** CLI commands log only warnings unless SVC_LOG_LEVEL says otherwise. */
    async withService<T>(fn: (service: Service) => Promise<T>, options: { reads?: boolean } = {}): Promise<T> {
      const cfg = loadConfig(env);
      // A read never creates the embedded database: run from another directory, the default ./.svc/data would be
      // a new, empty one, and its answer (no such project) would hide where the data really is. A write (project
      // create, import) may: it is how a database starts.
      if (options.reads) requireEmbeddedDatabase(cfg);
      const logger = createLogger(env.SVC_LOG_LEVEL ? cfg.logLevel : 'warn');
      const service = await openService(cfg, { logger });
      try {
        return await fn(service);
      } finally {
        await service.close();
      }
    },
    /** A typo in an actor stops a server at start (exit 1, saying how to register one), not every write later. */
    async verifyActors(service: Service, flag?: string): Promise<void> {
      if (flag !== undefined) await service.verifyActor(flag, '--actor');
      if (service.defaultActorId !== undefined) await service.verifyActor(service.defaultActorId, 'SVC_DEFAULT_ACTOR_ID');
    },
  };
  addCommands(program, COMMANDS, cli);
  return program;
}
