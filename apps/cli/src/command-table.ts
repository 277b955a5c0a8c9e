import { type Config, type codeVersion, findOperation, isSvcError, type OutputOf, type ops, type Service, withFieldNamed } from '@svc/service';
import { Argument, type Command, Option } from 'commander';
import { type ExitCode, type Io, print } from './output.js';
import type { ProgressBar } from './progress.js';

/**
 * The declared shape of an svc command: the CLI is built from a table of these (commands.ts), as the catalog
 * builds the MCP tools and REST routes, so a new command is one entry (docs/decisions/0036).
 */

/** Options as commander hands them to an action: `--dry-run` as `dryRun`. */
type Opts = Record<string, unknown>;

export interface OptionDecl {
  /** As commander spells it: '--limit <n>', '--soft-delete'. */
  flags: string;
  description: string;
  /** The command refuses to run without it. */
  required?: boolean;
  /** May be given more than once; the values arrive as an array. */
  repeatable?: boolean;
  choices?: readonly string[];
  default?: string;
  /** Turns the value into what the command takes, or throws InvalidArgumentError (a usage error, exit 2). */
  parse?: (value: string) => unknown;
}

/** A positional argument: '<slug>', '[project]', '<query...>', or one with a description and choices. */
type ArgumentDecl = string | { name: string; description: string; choices?: readonly string[] };

interface Declared {
  /** The words after `svc` that name the command: 'glossary term add'. Its parent words are groups of the table. */
  name: string;
  description: string;
  arguments?: readonly ArgumentDecl[];
  options?: readonly OptionDecl[];
  /** Shown after the options in --help (examples, caveats). */
  help?: string;
  /** Added to the error for an unknown one-dash option (`-redis`), which is more likely a word meant for the query. */
  dashWordHint?: string;
}

/** A group of commands (`svc project …`): a name and a description, nothing to run. */
type GroupCommand = Pick<Declared, 'name' | 'description'>;

/** A catalog operation's name: a misspelt one does not compile. */
type OperationName = keyof typeof ops;

/** What the named operation answers: the type its `text` and `exit` read, so a renamed field fails to compile. */
type Answer<Op extends OperationName> = OutputOf<(typeof ops)[Op]>;

/**
 * A command that runs one catalog operation and prints its result. It takes --json, and --actor when the
 * operation writes (decided by the catalog, docs/decisions/0020), before its own options.
 */
interface OperationCommand<Op extends OperationName> extends Declared {
  operation: Op;
  /** The operation's input from the command's arguments and options. */
  input(args: string[], opts: Opts): Record<string, unknown>;
  /**
   * How the command spells an input field that no option or argument of the same name feeds (`item_types`:
   * '--type'), so a refusal names what the user typed (refusalForCli).
   */
  fields?: Readonly<Record<string, string>>;
  /** The result as text without --json; default: the operation's own presentation, else a readable dump. */
  text?(result: Answer<Op>): string;
  /** After printing: an exit code the result calls for (check --fail-on). */
  exit?(result: Answer<Op>, opts: Opts): ExitCode | undefined;
}

/** An operation command of any operation, each typed by its own (what the table holds). */
type AnyOperationCommand = { [Op in OperationName]: OperationCommand<Op> }[OperationName];

/**
 * Declare an operation command: its `text` and `exit` are checked against the answer of its own `operation`.
 * Every operation entry of the table goes through this.
 */
export function command<const Op extends OperationName>(entry: OperationCommand<Op>): OperationCommand<Op> {
  return entry;
}

/** A command the CLI runs itself (servers, migrations, set-up, files): declares every option, --json too. */
interface LocalCommand extends Declared {
  run(cli: Cli, args: string[], opts: Opts, command: Command): Promise<void> | void;
}

export type CommandEntry = GroupCommand | AnyOperationCommand | LocalCommand;

/** What a command may use of the program it runs in. */
export interface Cli {
  readonly io: Io;
  readonly env: Record<string, string | undefined>;
  readonly version: ReturnType<typeof codeVersion>;
  /** The whole command tree (completion walks it). */
  readonly program: Command;
  config(): Config;
  /** Open the service, run `fn`, close. A read (`reads`) never creates the embedded database. */
  withService<T>(fn: (service: Service) => Promise<T>, options?: { reads?: boolean }): Promise<T>;
  /** A server checks the actors it was given before it serves. */
  verifyActors(service: Service, flag?: string): Promise<void>;
  progressBar(): ProgressBar;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function toOption(decl: OptionDecl): Option {
  const option = new Option(decl.flags, decl.description);
  if (decl.required) option.makeOptionMandatory();
  if (decl.repeatable) option.argParser(collect);
  if (decl.parse) option.argParser(decl.parse);
  if (decl.choices) option.choices(decl.choices);
  if (decl.default !== undefined) option.default(decl.default);
  return option;
}

function toArgument(decl: ArgumentDecl): Argument {
  if (typeof decl === 'string') return new Argument(decl);
  const argument = new Argument(decl.name, decl.description);
  return decl.choices ? argument.choices(decl.choices) : argument;
}

/** The command a path names under `root`, created (with the table's description) the first time a path uses it. */
function groupOf(root: Command, words: string[], groups: Map<string, string>): Command {
  let parent = root;
  for (const [i, word] of words.entries()) {
    const found = parent.commands.find((c) => c.name() === word);
    const path = words.slice(0, i + 1).join(' ');
    const description = groups.get(path);
    if (found) parent = found;
    else if (description !== undefined) parent = parent.command(word).description(description);
    else throw new Error(`command table: '${path}' is not a declared group`);
  }
  return parent;
}

function isOperation(entry: CommandEntry): entry is AnyOperationCommand {
  return 'operation' in entry;
}

function isLocal(entry: CommandEntry): entry is LocalCommand {
  return 'run' in entry;
}

/** Build `table` into `root`, in table order (the order --help and completion list the commands in). */
export function addCommands(root: Command, table: readonly CommandEntry[], cli: Cli): void {
  const groups = new Map(table.filter((e) => !isOperation(e) && !isLocal(e)).map((e) => [e.name, e.description]));
  for (const entry of table) {
    if (!isOperation(entry) && !isLocal(entry)) continue;
    const words = entry.name.split(' ');
    const cmd = groupOf(root, words.slice(0, -1), groups).command(words.at(-1) as string);
    for (const argument of entry.arguments ?? []) cmd.addArgument(toArgument(argument));
    cmd.description(entry.description);
    if (isOperation(entry)) {
      cmd.option('--json', 'print the result as JSON');
      if (findOperation(entry.operation)?.kind === 'write') {
        cmd.option('--actor <uuid>', 'attribute the write to this actor (default SVC_DEFAULT_ACTOR_ID; else recorded as source cli)');
      }
    }
    for (const option of entry.options ?? []) cmd.addOption(toOption(option));
    if (entry.help !== undefined) cmd.addHelpText('after', entry.help);
    const hint = entry.dashWordHint;
    if (hint !== undefined) {
      const inherited = cmd.configureOutput();
      cmd.configureOutput({
        outputError: (text, write) =>
          (inherited.outputError ?? ((t: string, w: (t: string) => void) => w(t)))(/^error: unknown option '-[^-]/.test(text) ? `${text.trimEnd()}\n${hint}\n` : text, write),
      });
    }
    cmd.action(async (...raw: unknown[]) => {
      const command = raw.at(-1) as Command;
      const opts = command.opts<Opts>();
      if (isOperation(entry)) await runOperation(cli, entry, command, opts);
      else await entry.run(cli, command.args, opts, command);
    });
  }
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replaceAll('-', '_');

/**
 * What the command calls an input field: the entry's own spelling, else the option or argument that feeds a field of
 * its name (`--limit`: limit; `--project`: project_id; `<project>`: project_id).
 */
function cliSpelling(entry: AnyOperationCommand, command: Command, root: string, env: Cli['env']): string | undefined {
  const own = entry.fields?.[root];
  if (own !== undefined) return own;
  const feeds = (name: string) => name === root || `${name}_id` === root;
  // --actor is named only when typed: left out, the actor came from SVC_DEFAULT_ACTOR_ID, which is named then. An
  // option left out that a refusal is about (--source-url for research) is named: it is what to add.
  const typed = (o: Option) => command.getOptionValueSource(o.attributeName()) !== undefined;
  if (root === 'actor' && !command.options.some((o) => o.long === '--actor' && typed(o)) && env.SVC_DEFAULT_ACTOR_ID) return 'SVC_DEFAULT_ACTOR_ID';
  const option = command.options.find((o) => feeds(snakeCase(o.attributeName())) && (o.long !== '--actor' || typed(o)));
  if (option?.long) return option.long;
  // `<id>` is the id the command acts on (item_id, work_unit_id): any id field no option feeds.
  const argument = command.registeredArguments.find((a) => feeds(snakeCase(a.name())) || (a.name() === 'id' && root.endsWith('_id')));
  return argument ? `<${argument.name()}>` : undefined;
}

/**
 * A refusal as the CLI's user reads it: the message names the option or argument they typed (`--type`), not the
 * operation's input field (`item_types[0]`); details.field still names the input field, details.option the spelling.
 */
function refusalForCli(entry: AnyOperationCommand, command: Command, error: unknown, env: Cli['env']): unknown {
  if (!isSvcError(error) || typeof error.details.field !== 'string') return error;
  const field = error.details.field;
  const root = /^[A-Za-z0-9_]+/.exec(field)?.[0] ?? field;
  const spelled = cliSpelling(entry, command, root, env);
  if (spelled === undefined) return error;
  // An element of a repeated option (`item_types[0]`) is named by the option: the message quotes the value.
  return withFieldNamed(error, /^[A-Za-z0-9_]+(\[\d+\])?$/.test(field) ? spelled : `${spelled} (${field})`, { option: spelled });
}

async function runOperation<Op extends OperationName>(cli: Cli, entry: OperationCommand<Op>, command: Command, opts: Opts): Promise<void> {
  const bar = cli.progressBar();
  const actorId = typeof opts.actor === 'string' ? opts.actor : undefined;
  const result = await cli
    .withService((service) => service.call(entry.operation, entry.input(command.args, opts), { source: 'cli', actorId, onProgress: bar.onProgress }), {
      reads: findOperation(entry.operation)?.kind === 'read',
    })
    .catch((error: unknown) => {
      throw refusalForCli(entry as AnyOperationCommand, command, error, cli.env);
    })
    .finally(() => bar.stop());
  const presentation = findOperation(entry.operation)?.presentation;
  const text = entry.text ?? (presentation && presentation.kind !== 'json' ? presentation.render : undefined);
  print(cli.io, result, opts.json === true, text);
  const exit = entry.exit?.(result, opts);
  if (exit) throw exit;
}
