import { type OutputOf, type ops, SEVERITIES, type Severity, SvcError, SYSTEM_ITEM_TYPES, shortId } from '@svc/service';
import { InvalidArgumentError } from 'commander';
import { type CommandEntry, command, type OptionDecl } from './command-table.js';
import { SHELLS } from './completion.js';
import { readImportLines, readJsonFile, readTextFile } from './files.js';
import * as local from './local-commands.js';
import { ExitCode } from './output.js';

/**
 * Every `svc` command, in the order --help lists them. Most run one operation of the service catalog, the
 * same code the MCP and HTTP surfaces run: their entry says how arguments and options become its input and
 * how its result reads as text. The rest (servers, migrations, set-up, files) name an action of
 * local-commands.ts. A group entry names a command that only holds others.
 */

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

/** `svc glossary list`: a group per paragraph, proposals with the id that accept and reject take. */
function glossaryText(r: OutputOf<typeof ops.glossary_list>): string {
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

/** A hit's snippet under its line, indented, on one line (the body's line breaks as spaces), when the body has one. */
function snippetLine(snippet: string): string[] {
  const line = snippet.replace(/\s+/g, ' ').trim();
  return line === '' ? [] : [`          ${line}`];
}

/** The most a list answers (the service's limit, decision 0049): the CLI asks for it where it shows a whole list. */
const MAX_LIMIT = 200;

/** A line saying a list was cut at MAX_LIMIT (`truncated`), or nothing. */
function moreNotShown(truncated: unknown, what: string): string {
  return truncated === false || truncated === undefined ? '' : `\n(more ${what} not shown: the list stops at ${MAX_LIMIT})`;
}

/** An option's value as a whole number written in decimal digits, or a usage error naming the option. */
function wholeNumber(flag: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${flag}: '${value}' is not a whole number`);
    return Number(value);
  };
}

function searchText(r: OutputOf<typeof ops.svc_item_search>): string {
  const nearMisses = r.partial !== undefined && r.partial.length > 0;
  const cut = (why: 'limit' | 'glossary_expansion' | 'partial') => Array.isArray(r.truncated) && r.truncated.includes(why);
  return [
    // With near misses below, what is missing is a word; without, nothing matched at all (an exclusion may be why).
    ...(r.items.length === 0 ? [nearMisses ? '(no item holds every word)' : '(no item matches)'] : r.items.flatMap((h) => [`${shortId(h.id)}  ${h.item_type.padEnd(9)} ${h.title}`, ...snippetLine(h.snippet)])),
    ...(cut('limit') && !nearMisses ? [`… more match: narrow the query${r.items.length < MAX_LIMIT ? ' or raise --limit' : ''}`] : []),
    ...(cut('glossary_expansion') ? ['… some glossary synonyms were not searched (too many in a group)'] : []),
    ...(nearMisses
      ? ['near misses:', ...(r.partial ?? []).flatMap((h) => [`${shortId(h.id)}  ${h.item_type.padEnd(9)} ${h.title}  (lacks ${(h.missing ?? []).join(', ')})`, ...snippetLine(h.snippet)])]
      : []),
    // With near misses, the strict answer is short: what `limit` cut is near misses, said after them.
    ...(cut('limit') && nearMisses ? ['… more near misses: narrow the query or raise --limit'] : []),
    ...(cut('partial') ? ['… near misses looked for among too many items: some may be missing'] : []),
    ...typeWordHints(r),
  ].join('\n');
}

/**
 * A word the near misses lack that names an item type (`decision`): types are a filter, not words of the text (a
 * newcomer searched `default decision` among five decisions and found none).
 */
function typeWordHints(r: OutputOf<typeof ops.svc_item_search>): string[] {
  const lacked = new Set((r.partial ?? []).flatMap((h) => h.missing ?? []).map((w) => w.toLowerCase().replace(/s$/, '')));
  return SYSTEM_ITEM_TYPES.filter((t) => lacked.has(t)).map((t) => `('${t}' is an item type, not a word of the text: --type ${t} keeps only those)`);
}

/**
 * A repeatable option's values, each of which may list several separated by commas (type keys hold none), as HTTP's
 * query string does: spaces around each trimmed, empty entries left out.
 */
function listed(values: unknown): string[] | undefined {
  return Array.isArray(values) ? values.flatMap((v: string) => v.split(',')).map((part) => part.trim()).filter((part) => part !== '') : undefined;
}

function sweepText(r: OutputOf<typeof ops.research_sweep>): string {
  return r.expired_count === 0
    ? `(no research older than ${r.ttl_days} days)`
    : [
        ...r.expired.map((e) => `${shortId(e.id)}  ${e.refreshed_at.slice(0, 10)}  ${e.title}`),
        ...(r.expired_count > r.expired.length ? [`… ${r.expired_count - r.expired.length} more`] : []),
        r.soft_deleted ? `soft-deleted ${r.expired_count}` : `${r.expired_count} expired (run with --soft-delete to remove)`,
        ...(r.remaining ? ['more expired research is left: run the sweep again'] : []),
      ].join('\n');
}

/** `svc check --fail-on`: a severity of the domain's (info is not offered: every finding would fail) or never. */
const FAIL_ON = ['error', 'warn', 'never'] as const satisfies readonly (Severity | 'never')[];

/** `svc check --fail-on`: the findings are printed first (stdout), then the exit code says whether they pass the gate. */
function checkGate(r: OutputOf<typeof ops.svc_check>, opts: { failOn?: unknown }): ExitCode | undefined {
  // commander lets only FAIL_ON through, with error by default.
  const failOn = FAIL_ON.find((choice) => choice === opts.failOn) ?? 'error';
  if (failOn === 'never') return undefined;
  // SEVERITIES runs from the worst: the gate counts the findings of failOn and every severity above it.
  const failing = SEVERITIES.slice(0, SEVERITIES.indexOf(failOn) + 1).reduce((n, severity) => n + r.counts[severity], 0);
  return failing > 0 ? new ExitCode(1, `check: ${failing} finding(s) at or above ${failOn} (--fail-on ${failOn})`) : undefined;
}

const json: OptionDecl = { flags: '--json', description: 'print the result as JSON' };
/** `--body` or `--body-file` (the file's text), never both. */
const itemTextOptions: OptionDecl[] = [
  { flags: '--body <text>', description: 'the body (markdown)' },
  { flags: '--body-file <file>', description: 'read the body from this file (markdown, up to 1 MiB)' },
];

function bodyOf(o: Record<string, unknown>): string | undefined {
  if (typeof o.bodyFile !== 'string') return o.body as string | undefined;
  if (o.body !== undefined) throw new SvcError('invalid_input', '--body and --body-file: give one of them, not both', { field: 'body' });
  return readTextFile(o.bodyFile, '--body-file');
}

const projectScope: OptionDecl = { flags: '--project <project>', description: 'resolve the id only inside this project' };
const migrateFirst: OptionDecl = { flags: '--migrate', description: 'apply pending migrations first (PostgreSQL; the embedded database always migrates)' };

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'migrate',
    description: 'apply pending database migrations (safe to run from many processes at once)',
    options: [{ flags: '--status', description: 'show applied and pending migrations without changing anything' }, json],
    run: local.migrate,
  },
  { name: 'version', description: 'print the release and schema version', options: [json], run: local.version },

  { name: 'serve', description: 'run svc as a server' },
  {
    name: 'serve mcp',
    description: 'serve MCP over stdio (for an assistant that starts svc itself)',
    options: [{ flags: '--actor <uuid>', description: 'the actor for this session (default SVC_DEFAULT_ACTOR_ID)' }, migrateFirst],
    run: local.serveMcp,
  },
  {
    name: 'serve http',
    description: 'serve HTTP (health, readiness, REST and MCP at /mcp)',
    options: [
      { flags: '--host <host>', description: 'interface to listen on (default SVC_HTTP_HOST or 127.0.0.1)' },
      { flags: '--port <port>', description: 'port (default SVC_HTTP_PORT or 8080)', parse: parsePort },
      migrateFirst,
      { flags: '--project <slug>', description: 'embedded database: the project the first start creates (default SVC_PROJECT or "default")' },
      { flags: '--actor-email <email>', description: 'embedded database: the actor the first start registers (default SVC_ACTOR_EMAIL or your git email)' },
    ],
    run: local.serveHttp,
  },

  {
    name: 'init',
    description: 'set svc up for first use: migrate, find or create a project and an actor, print how to connect an assistant',
    options: [
      { flags: '--project <slug>', description: 'the project to find or create (default SVC_PROJECT or "default")' },
      { flags: '--actor-email <email>', description: 'the actor to find or register (default SVC_ACTOR_EMAIL or your git email)' },
      { flags: '--actor-name <name>', description: 'display name of an actor registered now' },
      json,
    ],
    run: local.init,
  },
  {
    name: 'doctor',
    description: 'check the setup (settings, database, schema, actor, project, HTTP port) and say what to run for each failure',
    options: [
      { flags: '--actor <uuid>', description: 'check this actor (default SVC_DEFAULT_ACTOR_ID)' },
      { flags: '--host <host>', description: 'check this interface for svc serve http (default SVC_HTTP_HOST or 127.0.0.1)' },
      { flags: '--port <port>', description: 'check this port for svc serve http (default SVC_HTTP_PORT or 8080)', parse: parsePort },
      json,
    ],
    run: local.doctor,
  },

  { name: 'project', description: 'create and inspect projects' },
  command({
    name: 'project create',
    arguments: ['<slug>'],
    description: 'create a project',
    operation: 'project_create',
    input: ([slug], o) => ({ slug, name: o.name }),
    options: [{ flags: '--name <name>', description: 'display name' }],
  }),
  command({
    name: 'project list',
    description: 'list projects',
    operation: 'project_list',
    input: () => ({ limit: MAX_LIMIT }),
    text: (r) =>
      r.projects.length === 0 ? '(no projects)' : r.projects.map((p) => `${shortId(p.id)}  ${p.slug}  ${p.name}`).join('\n') + moreNotShown(r.truncated, 'projects'),
  }),
  command({ name: 'project show', arguments: ['<project>'], description: 'show a project', operation: 'project_show', input: ([p]) => ({ project_id: p }) }),
  { name: 'project config', description: 'the TOML project configuration ([research] ttl_days, [checks] disabled_rules)' },
  command({
    name: 'project config import',
    arguments: ['<project>', '<file>'],
    description: 'apply a TOML configuration file',
    operation: 'project_config_import',
    input: ([p, file]) => ({ project_id: p, config: readTextFile(String(file), '<file>') }),
  }),
  command({
    name: 'project config export',
    arguments: ['<project>'],
    description: 'print the configuration as TOML',
    operation: 'project_config_export',
    input: ([p]) => ({ project_id: p }),
    text: (r) => r.config,
  }),

  { name: 'system', description: 'systems of a project' },
  command({ name: 'system add', arguments: ['<project>', '<name>'], description: 'add a system to a project', operation: 'system_add', input: ([p, name]) => ({ project_id: p, name }) }),

  { name: 'actor', description: 'register actors for attribution (no credentials)' },
  command({
    name: 'actor add',
    description: 'register an actor',
    operation: 'actor_add',
    input: (_, o) => ({ email: o.email, name: o.name, role: o.role, external_ids: parseExternalIds(o.externalId as string[] | undefined) }),
    options: [
      { flags: '--email <email>', description: 'email address (unique; the primary human identifier)', required: true },
      { flags: '--name <name>', description: 'display name' },
      { flags: '--role <role>', description: 'role' },
      { flags: '--external-id <key=value>', description: 'an id in another system (repeatable)', repeatable: true },
    ],
  }),
  command({
    name: 'actor list',
    description: 'list actors',
    operation: 'actor_list',
    input: () => ({ limit: MAX_LIMIT }),
    text: (r) => (r.actors.length === 0 ? '(no actors)' : r.actors.map((a) => `${a.id}  ${a.email}  ${a.name}`).join('\n') + moreNotShown(r.truncated, 'actors')),
  }),

  { name: 'type', description: 'item types' },
  command({
    name: 'type add',
    arguments: ['<key>'],
    description: 'register a custom item type',
    operation: 'type_add',
    input: ([key], o) => ({ key, schema: readJsonFile(String(o.schema), '--schema'), display_name: o.displayName, owner: o.owner }),
    options: [
      { flags: '--schema <file.json>', description: 'JSON Schema for the context of items of this type', required: true },
      { flags: '--display-name <name>', description: 'display name' },
      { flags: '--owner <owner>', description: 'owner' },
    ],
  }),
  command({
    name: 'type list',
    description: 'list item types',
    operation: 'type_list',
    input: () => ({}),
    text: (r) => r.types.map((t) => `${t.key.padEnd(16)} ${t.display_name} (${t.owner})`).join('\n'),
  }),

  { name: 'item', description: 'record, edit, inspect, delete and restore items' },
  command({
    name: 'item add',
    arguments: ['<project>', '<title>'],
    description: 'record an item: a decision unless --type says otherwise (svc_item_upsert, as an assistant calls it)',
    operation: 'svc_item_upsert',
    input: ([p, title], o) => ({ project_id: p, title, item_type: o.type, body: bodyOf(o), system_id: o.system, source_url: o.sourceUrl }),
    fields: { item_type: '--type' },
    options: [
      { flags: '--type <type>', description: "item type: decision (default), knowledge, policy, document, research or a custom type" },
      ...itemTextOptions,
      { flags: '--system <system>', description: 'the system of the project it belongs to (id, prefix or name)' },
      { flags: '--source-url <url>', description: 'the http(s) URL the information comes from (required for research)' },
    ],
    help: '\nExamples:\n  svc item add my-project "Use PostgreSQL for billing" --body "One primary, two replicas."\n  svc item add my-project "Retention" --type policy --body-file retention.md',
  }),
  command({
    name: 'item edit',
    arguments: ['<id>'],
    description: 'write a new version of an item (it must be the current one; the old version stays in its history)',
    operation: 'svc_item_upsert',
    input: ([id], o) => ({ project_id: o.project, item_id: id, title: o.title, body: bodyOf(o) }),
    options: [
      { flags: '--project <project>', description: 'the project the item belongs to', required: true },
      { flags: '--title <title>', description: 'a new title' },
      ...itemTextOptions,
    ],
  }),
  command({
    name: 'item show',
    arguments: ['<id>'],
    description: 'show the current version of an item',
    operation: 'item_show',
    input: ([id], o) => ({ item_id: id, project_id: o.project }),
    options: [projectScope],
  }),
  command({
    name: 'item delete',
    arguments: ['<id>'],
    description: 'soft-delete an item',
    operation: 'item_delete',
    input: ([id], o) => ({ item_id: id, project_id: o.project }),
    options: [projectScope],
  }),
  command({
    name: 'item restore',
    arguments: ['<id>'],
    description: 'restore a soft-deleted item',
    operation: 'item_restore',
    input: ([id], o) => ({ item_id: id, project_id: o.project }),
    options: [projectScope],
  }),
  command({
    name: 'item history',
    arguments: ['<id>'],
    description: 'versions and history of an item',
    operation: 'item_history',
    input: ([id], o) => ({ item_id: id, project_id: o.project }),
    options: [projectScope],
  }),

  { name: 'link', description: 'typed edges between items: depends, blocks, supersedes, conflicts' },
  command({
    name: 'link add',
    arguments: ['<project>', '<from>', '<type>', '<to>'],
    description: 'add an edge',
    operation: 'link_add',
    input: ([p, from, t, to]) => ({ project_id: p, from_id: from, type: t, to_id: to }),
  }),
  command({
    name: 'link remove',
    arguments: ['<project>', '<from>', '<type>', '<to>'],
    description: 'remove an edge',
    operation: 'link_remove',
    input: ([p, from, t, to]) => ({ project_id: p, from_id: from, type: t, to_id: to }),
  }),

  { name: 'work', description: 'work units' },
  command({
    name: 'work open',
    arguments: ['<project>', '<title>'],
    description: 'open a work unit (what the svc_work_open tool does)',
    operation: 'svc_work_open',
    input: ([p, title], o) => ({ project_id: p, title, description: o.description, system_id: o.system }),
    options: [
      { flags: '--description <text>', description: 'a longer description' },
      { flags: '--system <system>', description: 'the system it concerns (id, prefix or name)' },
    ],
    help: '\nExample:\n  svc work open my-project "Move billing to the new queue"',
  }),
  command({
    name: 'work reopen',
    arguments: ['<id>'],
    description: 'reopen a closed work unit',
    operation: 'work_reopen',
    input: ([id], o) => ({ work_unit_id: id, project_id: o.project }),
    options: [projectScope],
  }),

  // read: search and brief, the same operations an assistant calls
  command({
    name: 'search',
    arguments: ['<project>', '<query...>'],
    description: 'search the current items of a project (the svc_item_search dialect: words, "phrases", OR, -exclusions)',
    operation: 'svc_item_search',
    // `--type decision,policy` as HTTP's `item_types=decision,policy` (a newcomer's was refused as one unknown type).
    input: ([p, ...words], o) => ({ project_id: p, query: words.join(' '), item_types: listed(o.type), system_ids: o.system, limit: o.limit }),
    fields: { item_types: '--type', system_ids: '--system' },
    options: [
      { flags: '--type <type>', description: 'only items of this type (repeatable, or comma-separated)', repeatable: true },
      { flags: '--system <system>', description: 'only items of this system: id, prefix or name (repeatable)', repeatable: true },
      { flags: '--limit <n>', description: `at most this many (default 20, up to ${MAX_LIMIT})`, parse: wholeNumber('--limit') },
    ],
    help: '\nExamples:\n  svc search my-project connection pool\n  svc search my-project \'"advisory lock" -redis\' --type decision',
    // Quotes alone do not help a query that starts with the dash: the shell drops them (a newcomer quoted '-postgres').
    dashWordHint:
      "to exclude a word, put -- before the query (svc search my-project -- cache -redis, or -- -redis alone), or quote it with a word first (svc search my-project 'cache -redis')",
    text: searchText,
  }),
  command({
    name: 'brief',
    arguments: ['<project>'],
    description: "the project's brief as markdown: active work units and recent items",
    operation: 'svc_brief',
    input: ([p], o) => ({ project_id: p, keyword: o.keyword }),
    options: [{ flags: '--keyword <word>', description: 'only what mentions this word' }],
  }),

  { name: 'research', description: 'research items (cached external references with a time to live)' },
  command({
    name: 'research sweep',
    arguments: ['<project>'],
    description: "list research past the project's research.ttl_days; --soft-delete removes it",
    operation: 'research_sweep',
    input: ([p], o) => ({ project_id: p, soft_delete: o.softDelete === true }),
    options: [{ flags: '--soft-delete', description: 'soft-delete the expired items (restorable with svc item restore)' }],
    text: sweepText,
  }),
  command({
    name: 'check',
    arguments: ['<project>'],
    description: 'run the rule pack; findings as markdown',
    operation: 'svc_check',
    input: ([p], o) => ({ project_id: p, rule: o.rule, severity: o.severity }),
    options: [
      { flags: '--rule <rule>', description: 'run only this rule' },
      { flags: '--severity <severity>', description: 'show only error, warn or info and above' },
      {
        flags: '--fail-on <severity>',
        description: 'exit 1 when a finding of this severity or worse exists (never: always exit 0)',
        choices: FAIL_ON,
        default: 'error',
      },
    ],
    help:
      '\nExamples:\n  svc check my-project\n  svc check my-project --rule dependency-cycle --json\n  svc check my-project --severity warn\n  svc check my-project --fail-on warn    # a CI gate: exit 1 on any warning or error',
    exit: checkGate,
  }),

  command({
    name: 'purge',
    description: 'rewrite the tables redaction changes (VACUUM FULL), so redacted text leaves the database files too',
    operation: 'storage_purge',
    input: () => ({}),
    help:
      '\nRedaction removes text from every answer at once; the old bytes stay in the data files until this runs.\n' +
      'Each table is locked while it is rewritten. Backups, WAL archives and replicas are yours to handle.',
  }),

  {
    name: 'export',
    arguments: ['[project]'],
    description: "write a project's whole memory as JSON Lines (lossless; see svc import)",
    options: [
      { flags: '--inbox', description: 'write the shared inbox instead: the captures of no project, not promoted' },
      { flags: '--out <file>', description: 'write to this file instead of stdout' },
      { flags: '--json', description: 'print a summary as JSON (with --out)' },
    ],
    help: '\nExamples:\n  svc export my-project --out my-project.jsonl\n  svc export my-project | gzip > backup.jsonl.gz\n  svc export --inbox --out inbox.jsonl',
    run: local.exportFile,
  },
  command({
    name: 'import',
    arguments: ['<file>'],
    description: 'restore a project (or the shared inbox) from an export, in one transaction (a bad file writes nothing)',
    operation: 'project_import',
    input: ([file], o) => ({ lines: readImportLines(String(file), '<file>'), as_slug: o.as }),
    fields: { as_slug: '--as' },
    options: [{ flags: '--as <slug>', description: 'import as a new project with this slug (every id renewed)' }],
    help: '\nExamples:\n  svc import my-project.jsonl                 # into a database without that project\n  svc import my-project.jsonl --as my-copy    # beside the original',
    text: (r) =>
      `imported ${'slug' in r ? r.slug : 'the shared inbox'}: ${Object.entries(r.counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${n === 1 ? k : recordsOf(k)}`)
        .join(', ')}` +
      // Whom the file's records now name: it may carry anyone's email (decision 0063).
      (r.actors_here ? `\nattributed to actors already here, matched by email: ${r.actors_here.join(', ')}` : ''),
  }),

  { name: 'glossary', description: 'glossary groups and terms that expand searches' },
  { name: 'glossary group', description: 'glossary groups' },
  command({
    name: 'glossary group add',
    arguments: ['<project>', '<name>'],
    description: 'add a glossary group',
    operation: 'glossary_group_add',
    input: ([p, name]) => ({ project_id: p, name }),
  }),
  { name: 'glossary term', description: 'accepted glossary terms' },
  command({
    name: 'glossary term add',
    arguments: ['<project>', '<group>', '<term>'],
    description: 'add an accepted term to a group',
    operation: 'glossary_term_add',
    input: ([p, g, t]) => ({ project_id: p, group: g, term: t }),
  }),
  command({
    name: 'glossary propose',
    arguments: ['<project>', '<group>', '<term>'],
    description: 'propose a term (joins the review queue)',
    operation: 'glossary_term_propose',
    input: ([p, g, t]) => ({ project_id: p, group: g, term: t }),
  }),
  command({
    name: 'glossary accept',
    arguments: ['<project>', '<term-id>'],
    description: 'accept a proposed term',
    operation: 'glossary_term_accept',
    input: ([p, id]) => ({ project_id: p, term_id: id }),
  }),
  command({
    name: 'glossary reject',
    arguments: ['<project>', '<term-id>'],
    description: 'reject a proposed term',
    operation: 'glossary_term_reject',
    input: ([p, id], o) => ({ project_id: p, term_id: id, reason: o.reason }),
    options: [{ flags: '--reason <reason>', description: 'why it was rejected' }],
  }),
  command({
    name: 'glossary list',
    arguments: ['<project>'],
    description: 'list groups with their accepted terms and pending proposals',
    operation: 'glossary_list',
    input: ([p]) => ({ project_id: p, limit: MAX_LIMIT }),
    text: glossaryText,
  }),
  command({
    name: 'glossary queue',
    arguments: ['<project>'],
    description: 'list proposed terms awaiting review',
    operation: 'glossary_queue',
    input: ([p]) => ({ project_id: p, limit: MAX_LIMIT }),
    text: (r) =>
      r.terms.length === 0
        ? '(no proposed terms)'
        : r.terms.map((t) => `${shortId(t.id)}  ${t.term}  (group ${t.group_name})`).join('\n') + moreNotShown(r.truncated, 'proposed terms'),
  }),

  {
    name: 'completion',
    arguments: [{ name: '<shell>', description: 'the shell', choices: SHELLS }],
    description: 'print a shell completion script (bash or zsh)',
    help: '\nExamples:\n  source <(svc completion bash)                 # this bash session\n  svc completion bash >> ~/.bashrc\n  svc completion zsh > "${fpath[1]}/_svc"       # zsh, then restart it',
    run: local.completion,
  },
];

/** An export's record kind in the plural, as the import's summary counts them (`13 items`, `2 histories`). */
function recordsOf(kind: string): string {
  if (kind === 'history') return 'history entries';
  if (kind === 'audit') return 'audit entries';
  return `${kind}s`;
}
