import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Route } from '@svc/http';
import { send } from '@svc/http/testing';
import type { listTools } from '@svc/mcp';
import { createLogger, loadConfig, openService, ops } from '@svc/service';
import fc from 'fast-check';
import { count, type Probe, run, SVC, type Summary } from './harness.js';

/**
 * Generators and a raw HTTP client for part 3b (issue 16's doors). Kept apart from suite.test.ts so the part
 * reads as what it tries; every value here is generated with fast-check or is a named worst case.
 */

/** The error of an answer, when it carries one: `{ code, details: { field } }`. */
function errorOf(body: unknown): { code: string; message: string; details: { field?: string; line?: number } } | undefined {
  const error = (body as { error?: { code: unknown; message: string; details?: { field?: string } } } | null)?.error;
  if (!error) return undefined;
  // A JSON-RPC error carries a numeric code; svc's own errors a string one.
  return { code: typeof error.code === 'string' ? error.code : `json-rpc ${String(error.code)}`, message: error.message, details: error.details ?? {} };
}

/**
 * The JSON text of a value that nests exactly `depth` levels of objects and arrays (the value itself is level
 * 1, as the service counts); `shape` picks object or array at each level. Text, not a value: JSON.stringify
 * itself overflows the stack a few thousand levels down, so deep values are sent as raw JSON.
 */
function nestedText(depth: number, shape: (level: number) => 'object' | 'array' = () => 'object'): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let level = 1; level < depth; level++) {
    const array = shape(level) === 'array';
    open.push(array ? '[' : '{"d":');
    close.push(array ? ']' : '}');
  }
  return `${open.join('')}{"leaf":true}${close.reverse().join('')}`;
}

/** Where a deep value goes in a JSON text built around it (see withDeep). */
const DEEP = '\u0001deep\u0001';

/** `JSON.stringify(value)` with the string DEEP replaced by the raw JSON text `deep`. */
function withDeep(value: unknown, deep: string): string {
  return JSON.stringify(value).replace(JSON.stringify(DEEP), deep);
}

/** A nesting depth over the limit of 64 and a mix of objects and arrays: the named worst cases and generated ones. */
const overDeep = fc.record({
  depth: fc.oneof(fc.constantFrom(65, 2_000, 5_000), fc.integer({ min: 65, max: 5_000 })),
  arrays: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
});

const buildDeep = ({ depth, arrays }: { depth: number; arrays: boolean[] }): string =>
  nestedText(depth, (level) => (arrays[level % arrays.length] ? 'array' : 'object'));

/** Keys every JavaScript object inherits: a lookup by name finds them unless the code guards against it. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'toLocaleString'];

/** A Host or Origin name that is not on the default allow-list (localhost, 127.0.0.1, [::1]). */
const foreignHost = fc
  .oneof(
    fc.domain(),
    fc.constantFrom('attacker.example', 'localhost.evil.example', '127.0.0.1.nip.io', 'evil.example:8080', 'LOCALHOST.evil.example'),
    fc.ipV4().filter((ip) => ip !== '127.0.0.1'),
  )
  .filter((host) => !/^(localhost|127\.0\.0\.1)(:\d+)?$/i.test(host));

const foreignOrigin = fc.oneof(
  foreignHost.map((host) => `http://${host}`),
  foreignHost.map((host) => `https://${host}`),
  fc.constantFrom('null', 'file://', 'http://localhost.evil.example', 'chrome-extension://abcdefghijklmnop'),
);

/** Content types a cross-site page can send without a preflight, and near misses of application/json. */
const notJson = fc.constantFrom(
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'application/json-patch',
  'text/json',
  'application/ld+json',
  '',
);

/** A string a backtracking engine needs 2^n steps to refuse against ^(a+)+$. */
const catastrophic = fc.oneof(
  fc.constantFrom(`${'a'.repeat(40)}!`, `${'a'.repeat(5_000)}!`),
  fc.record({ n: fc.integer({ min: 25, max: 20_000 }), tail: fc.constantFrom('!', 'b', '\u0000', ' ', 'é') }).map(({ n, tail }) => `${'a'.repeat(n)}${tail}`),
);

interface CraftedFile {
  /** What the file tries, in the words of the report. */
  kind: string;
  /** 1-based line the import must name. */
  line: number;
  lines: string[];
}

type Rec = Record<string, unknown>;

export const IMPORT_KINDS = [
  'another project id',
  'forged audit row',
  'invalid item-type schema',
  'out-of-range settings',
  'deep nesting',
  'wrong types',
] as const;

/** Columns whose values are scalars: a value of another JSON type must be refused naming the line. */
const SCALAR_FIELDS = ['title', 'body', 'slug', 'name', 'email', 'status', 'text', 'created_at', 'updated_at', 'version', 'is_head', 'operation', 'source', 'link_type', 'item_type', 'review_state', 'chain_id', 'created_by'];

/**
 * Crafted import files: the honest export `lines` with one line changed as a stranger's file might, `perKind`
 * of each kind in IMPORT_KINDS. `other` is a project (and its actor) the file must not reach.
 */
function craftedFiles(lines: string[], other: { projectId: string; actorId: string }, perKind: number): CraftedFile[] {
  const records = lines.map((l) => JSON.parse(l) as Rec);
  const at = (where: (r: Rec) => boolean) => records.flatMap((r, i) => (where(r) ? [i + 1] : []));
  const withProject = at((r) => typeof r.project_id === 'string');
  const audits = at((r) => r.type === 'audit');
  const types = at((r) => r.type === 'item_type');
  const project = at((r) => r.type === 'project');
  const deepHolders = at((r) => ['item', 'capture', 'audit'].includes(r.type as string) && r !== records[0]);
  const scalarHolders = at((r) => r.type !== undefined && r.type !== 'end' && SCALAR_FIELDS.some((f) => ['string', 'number', 'boolean'].includes(typeof r[f])));
  for (const [name, found] of Object.entries({ withProject, audits, types, project, deepHolders, scalarHolders })) {
    if (found.length === 0) throw new Error(`the source export has no line for ${name}`);
  }
  const elsewhere = fc.oneof(fc.constant(other.projectId), fc.uuid({ version: 4 }));
  const wrongFor = (value: unknown): fc.Arbitrary<unknown> =>
    typeof value === 'string'
      ? fc.oneof(fc.integer(), fc.boolean(), fc.constant([]), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }))
      : typeof value === 'number'
        ? fc.oneof(fc.string(), fc.boolean(), fc.constant([value]), fc.constantFrom(1e300, 0.5, 2 ** 63))
        : fc.oneof(fc.string(), fc.integer(), fc.constant({}));
  /** The fields `set` on line `line`; `deep`, when given, replaces the string DEEP among them. */
  type Mutation = { line: number; set: Rec; deep?: string };
  const mutations: Record<(typeof IMPORT_KINDS)[number], fc.Arbitrary<Mutation>> = {
    'another project id': fc.record({ line: fc.constantFrom(...withProject), id: elsewhere }).map(({ line, id }) => ({ line, set: { project_id: id } })),
    'forged audit row': fc
      .record({ line: fc.constantFrom(...audits), field: fc.constantFrom('project_id', 'actor_id'), id: fc.oneof(fc.constant(other.projectId), fc.constant(other.actorId), fc.uuid({ version: 4 })), nulled: fc.boolean() })
      .map(({ line, field, id, nulled }) => ({ line, set: { [field]: field === 'project_id' && nulled ? null : id } })),
    'invalid item-type schema': fc
      .record({
        line: fc.constantFrom(...types),
        schema: fc.oneof(
          fc.constantFrom<unknown>(
            { type: 'object', properties: 5 },
            { type: 'string' },
            { type: 'object', required: 5 },
            { type: 'object', properties: { code: { type: 'string', pattern: '(a' } } },
            { type: 'object', properties: { code: { type: 'string', pattern: '^(a)\\1$' } } },
            { type: 'object', properties: { code: { type: 'string', format: 'nonsense' } } },
            { type: 'object', properties: { code: { $ref: 'http://evil.example/schema.json' } } },
            [],
            'object',
          ),
          fc.string({ minLength: 1, maxLength: 12 }).filter((t) => !['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'].includes(t)).map((t) => ({ type: 'object', properties: { code: { type: t } } })),
          overDeep.map((deep) => ({ deep: buildDeep(deep) })),
        ),
      })
      .map(({ line, schema }): Mutation => {
        const deep = (schema as { deep?: unknown } | null)?.deep;
        return typeof deep === 'string'
          ? { line, set: { schema: { type: 'object', properties: { code: DEEP } } }, deep }
          : { line, set: { schema } };
      }),
    'out-of-range settings': fc
      .record({
        line: fc.constantFrom(...project),
        settings: fc.oneof(
          fc.oneof(fc.constant(99_999_999_999), fc.integer({ min: 36_501 }), fc.integer({ max: 0 }), fc.double({ min: 1.5, max: 100, noInteger: true, noNaN: true }), fc.string()).map((ttl_days) => ({ research: { ttl_days } })),
          fc.oneof(fc.integer(), fc.string(), fc.constant([5])).map((disabled_rules) => ({ checks: { disabled_rules } })),
          fc.string({ minLength: 1, maxLength: 10 }).filter((k) => k !== 'research' && k !== 'checks').map((k) => ({ [k]: 'red' })),
        ),
      })
      .map(({ line, settings }) => ({ line, set: { settings } })),
    'deep nesting': fc.record({ line: fc.constantFrom(...deepHolders), deep: overDeep }).map(({ line, deep }) => {
      const type = (records[line - 1] as Rec).type;
      return { line, set: { [type === 'item' ? 'context' : type === 'capture' ? 'signals' : 'details']: { nested: DEEP } }, deep: buildDeep(deep) };
    }),
    'wrong types': fc
      .record({ line: fc.constantFrom(...scalarHolders), pick: fc.nat() })
      .chain(({ line, pick }) => {
        const r = records[line - 1] as Rec;
        const fields = SCALAR_FIELDS.filter((f) => ['string', 'number', 'boolean'].includes(typeof r[f]));
        const field = fields[pick % fields.length] as string;
        return wrongFor(r[field]).map((value) => ({ line, set: { [field]: value } }));
      }),
  };
  const files: CraftedFile[] = [];
  for (const kind of IMPORT_KINDS) {
    for (const { line, set, deep } of fc.sample(mutations[kind], perKind)) {
      const copy = [...lines];
      const record = JSON.parse(copy[line - 1] as string) as Rec;
      Object.assign(record, set);
      copy[line - 1] = deep === undefined ? JSON.stringify(record) : withDeep(record, deep);
      files.push({ kind, line, lines: copy });
    }
  }
  return files;
}

// ---------------------------------------------------------------------------------------------------------
// The doors. Each takes a running server and the suite's database and records every call in its probe: the
// answer it got, and a failure for a 5xx, an internal_error or unavailable, a transport failure, an answer
// other than the one the door must give, or a refusal after which a table changed.
// ---------------------------------------------------------------------------------------------------------

export interface Door {
  /** Base URL of a running `svc serve http` (default allow-list). */
  base: string;
  /** The actor the transport names (X-Actor). */
  actor: string;
  /** Ids of live records of project `rel`, by the parameter that names them. */
  valid: Record<string, string>;
  /** Row counts of every table, audit_log included (every write audits): equal before and after a refusal. */
  fingerprint(): Promise<string>;
  summary: Summary;
  problems: string[];
}

/** What a call came back with, whatever the surface. */
interface Outcome {
  surface: 'rest' | 'mcp' | 'cli';
  status: number;
  code?: string;
  field?: string;
  message?: string;
  body?: unknown;
  ms?: number;
}

const BAD_CODES = new Set(['internal_error', 'unavailable']);

/** The label an outcome is counted under in the report: surface, status (REST) and code. */
function label(o: Outcome): string {
  const status = o.surface === 'rest' || (o.surface === 'mcp' && o.status !== 200) ? ` ${o.status}` : '';
  return `${o.surface === 'rest' ? 'REST' : o.surface === 'mcp' ? 'MCP' : 'CLI'}${status} ${o.code ?? 'ok'}`;
}

/**
 * Make one call, count it, and check it: `wanted` says whether the answer is the one the door must give.
 * A refusal (any error code) must leave the fingerprint as it was.
 */
async function probeCall(door: Door, probe: Probe, attempt: () => Promise<Outcome>, wanted: (o: Outcome) => boolean, what: string): Promise<Outcome> {
  const before = await door.fingerprint();
  const t0 = Date.now();
  const outcome = await attempt().catch((error: Error): Outcome => ({ surface: 'rest', status: 0, code: `transport failure: ${error.message.slice(0, 80)}` }));
  outcome.ms ??= Date.now() - t0;
  probe.calls++;
  door.summary.operations++;
  count(probe.answers, label(outcome));
  let failed = !wanted(outcome) || outcome.status === 0 || outcome.status >= 500 || BAD_CODES.has(outcome.code ?? '');
  if (outcome.code) {
    count(door.summary.errors, outcome.code.startsWith('transport') ? 'transport failure' : outcome.code);
    door.summary.invariants++;
    if ((await door.fingerprint()) !== before) {
      failed = true;
      door.summary.violations++;
      count(probe.answers, 'a table changed after the refusal');
    }
  }
  if (failed) {
    probe.failures++;
    door.problems.push(`${probe.door}: ${what}: ${JSON.stringify({ ...outcome, body: undefined, message: outcome.message?.slice(0, 200) })}`);
  }
  return outcome;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A tools/call over /mcp as raw JSON-RPC: `args` is JSON text, so it may hold what JSON.stringify cannot build. */
async function mcpCall(door: Door, name: string, args: string, headers: Record<string, string> = { 'x-actor': door.actor }): Promise<Outcome> {
  const answer = await send(door.base, 'POST', '/mcp', { ...MCP_HEADERS, ...headers }, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`);
  const error = errorOf(answer.body);
  if (error) return { surface: 'mcp', status: answer.status, code: error.code, field: error.details?.field, message: error.message };
  const rpc = answer.body as { result?: { isError?: boolean; structuredContent?: unknown }; error?: { code: number; message: string } };
  if (rpc.error) return { surface: 'mcp', status: answer.status, code: `json-rpc ${rpc.error.code}`, message: rpc.error.message };
  if (!rpc.result) return { surface: 'mcp', status: answer.status, code: `http ${answer.status}`, message: String(answer.body).slice(0, 200) };
  const toolError = rpc.result.isError ? errorOf(rpc.result.structuredContent) : undefined;
  if (rpc.result.isError) return { surface: 'mcp', status: answer.status, code: toolError?.code ?? 'tool error', field: toolError?.details?.field, message: toolError?.message };
  return { surface: 'mcp', status: answer.status, body: rpc.result.structuredContent };
}

/** A REST call: `body` is JSON text (or absent), headers as given (fetch would not let us choose Host). */
async function restCall(door: Door, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Outcome> {
  const answer = await send(door.base, method, path, headers, body);
  const error = errorOf(answer.body);
  if (answer.status === 200 && !error) return { surface: 'rest', status: 200, body: answer.body };
  return { surface: 'rest', status: answer.status, code: error?.code ?? `http ${answer.status}`, field: error?.details?.field, message: error?.message };
}

/** The refusal a door must give: this code, naming this field, and over REST (or the HTTP edge) this status. */
const refused = (code: string, field: string, status?: number) => (o: Outcome) =>
  o.code === code && o.field === field && (status === undefined || (o.surface === 'mcp' && o.status === 200) || o.status === status);

/** A route's path with its parameters filled from `valid`, and the fields it consumed. */
function routePath(route: Route, valid: Record<string, string>): { path: string; used: string[] } {
  const used: string[] = [];
  const path = route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
    used.push(name);
    return encodeURIComponent(valid[name] ?? 'none');
  });
  return { path, used };
}

/** Arguments that make a call of `tool` valid but for what a door adds: ids from `valid` and a few required texts. */
function baseArgs(tool: { name: string; inputSchema: { properties?: unknown; required?: unknown } }, valid: Record<string, string>): Record<string, unknown> {
  const properties = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
  const required = new Set((tool.inputSchema.required ?? []) as string[]);
  const args: Record<string, unknown> = {};
  for (const key of properties) {
    if (key in valid && required.has(key)) args[key] = valid[key];
    else if (required.has(key) && ['title', 'text', 'query', 'summary', 'reason', 'note'].includes(key)) args[key] = `door ${key}`;
  }
  if (tool.name === 'svc_save_decisions') args.decisions = [{ title: 'door decision' }];
  if (tool.name === 'svc_capture_set_state') args.review_state = 'review';
  if (tool.name === 'svc_capture_annotate') args.summary = 'door summary';
  return args;
}

/** Split a call's arguments over a route: path parameters, then the query string (GET) or the JSON body. */
function overRoute(route: Route, args: Record<string, unknown>, valid: Record<string, string>) {
  const { path, used } = routePath(route, { ...valid, ...(args as Record<string, string>) });
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !used.includes(k)));
  return { path, rest };
}

/** Bodies that would write on each write route were the door open. */
function bodyFor(operation: string): Record<string, unknown> {
  switch (operation) {
    case 'svc_capture_add':
      return { text: 'door 1 capture' };
    case 'svc_idea_add':
      return { text: 'door 1 idea' };
    case 'svc_save_decisions':
      return { decisions: [{ title: 'door 1 decision' }] };
    case 'svc_item_upsert':
    case 'svc_work_open':
    case 'svc_task_add':
    case 'svc_qa_add':
      return { title: 'door 1' };
    default:
      return {};
  }
}

/** 1. Host/Origin on every route and /mcp (403), JSON-only writes (415). */
export async function doorHostOrigin(door: Door, probe: Probe, routes: readonly Route[]): Promise<void> {
  const targets = [
    ...routes.map((route) => ({
      method: route.method.toUpperCase(),
      path: routePath(route, door.valid).path,
      body: route.method === 'get' ? undefined : JSON.stringify(bodyFor(route.operation)),
      name: route.operation,
    })),
    { method: 'POST', path: '/mcp', body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_capture_add","arguments":{"text":"door 1 mcp"}}}', name: 'mcp' },
    { method: 'GET', path: '/ready', body: undefined, name: 'ready' },
    { method: 'GET', path: '/openapi.json', body: undefined, name: 'openapi' },
  ];
  const port = new URL(door.base).port;
  for (const target of targets) {
    const write = target.method !== 'GET';
    const mcp = target.name === 'mcp';
    const headers = { ...(mcp ? MCP_HEADERS : write ? { 'content-type': 'application/json' } : {}), 'x-actor': door.actor };
    const call = (extra: Record<string, string>) => () =>
      restCall(door, target.method, target.path, { ...headers, ...extra }, target.body).then((o): Outcome => (mcp ? { ...o, surface: 'mcp' } : o));
    const [host] = fc.sample(foreignHost, 1) as [string];
    await probeCall(door, probe, call({ host }), refused('forbidden', 'host', 403), `${target.method} ${target.path} Host: ${host}`);
    const [origin] = fc.sample(foreignOrigin, 1) as [string];
    await probeCall(door, probe, call({ host: `localhost:${port}`, origin }), refused('forbidden', 'origin', 403), `${target.method} ${target.path} Origin: ${origin}`);
    if (write) {
      // /mcp answers in JSON-RPC: its transport refuses another media type itself, with a 415 of its own.
      const [type] = fc.sample(notJson, 1) as [string];
      const wanted = mcp ? (o: Outcome) => o.status === 415 : refused('unsupported_media_type', 'content-type', 415);
      await probeCall(door, probe, call({ 'content-type': type }), wanted, `${target.method} ${target.path} Content-Type: ${type}`);
    }
  }
}

/** 2. A body actor_id other than X-Actor, or with no X-Actor at all, on every tool that takes one, over /mcp and REST. */
export async function doorActor(door: Door, probe: Probe, tools: readonly Tool[], routes: readonly Route[], intruder: string): Promise<void> {
  const withActor = tools.filter((tool) => 'actor_id' in ((tool.inputSchema.properties ?? {}) as Record<string, unknown>));
  if (withActor.length === 0) throw new Error('no tool takes actor_id');
  const other = fc.oneof(fc.uuid({ version: 4 }), fc.constant(intruder), fc.constant(intruder.toUpperCase()));
  for (const tool of withActor) {
    const route = routes.find((r) => r.operation === tool.name);
    for (const actorId of fc.sample(other, 2)) {
      const args = { ...baseArgs(tool, door.valid), actor_id: actorId };
      await probeCall(door, probe, () => mcpCall(door, tool.name, JSON.stringify(args)), refused('invalid_input', 'actor_id'), `${tool.name} actor_id ${actorId}`);
      if (!route) continue;
      const { path, rest } = overRoute(route, args, door.valid);
      await probeCall(
        door,
        probe,
        () => restCall(door, route.method.toUpperCase(), path, { 'content-type': 'application/json', 'x-actor': door.actor }, JSON.stringify(rest)),
        refused('invalid_input', 'actor_id', 400),
        `${route.method} ${path} actor_id ${actorId}`,
      );
    }
    // With no X-Actor (and no default actor), a body actor_id alone attributes nothing: actor_required.
    const args = { ...baseArgs(tool, door.valid), actor_id: intruder };
    await probeCall(door, probe, () => mcpCall(door, tool.name, JSON.stringify(args), {}), refused('actor_required', 'actor'), `${tool.name} actor_id alone`);
    if (!route) continue;
    const { path, rest } = overRoute(route, args, door.valid);
    await probeCall(
      door,
      probe,
      () => restCall(door, route.method.toUpperCase(), path, { 'content-type': 'application/json' }, JSON.stringify(rest)),
      refused('actor_required', 'actor', 400),
      `${route.method} ${path} actor_id alone`,
    );
  }
}

/** The JSON parameters a caller can nest, with the rest of a valid call around them (DEEP marks the spot). */
const NESTABLE: { tool: string; field: string; args: (valid: Record<string, string>) => Record<string, unknown> }[] = [
  { tool: 'svc_item_upsert', field: 'context', args: () => ({ project_id: 'rel', title: 'door 4', context: DEEP }) },
  { tool: 'svc_capture_annotate', field: 'signals', args: (v) => ({ capture_id: v.capture_id, signals: DEEP }) },
  { tool: 'svc_capture_promote', field: 'context', args: (v) => ({ capture_id: v.capture_id, project_id: 'rel', title: 'door 4', context: DEEP }) },
  { tool: 'svc_save_decisions', field: 'decisions', args: () => ({ project_id: 'rel', decisions: [{ title: 'door 4', context: DEEP }] }) },
];

/** 4. Values nested past 64 levels (65, 5,000 and generated depths), over /mcp and REST; 64 itself accepted. */
export async function doorNesting(door: Door, probe: Probe, routes: readonly Route[]): Promise<void> {
  for (const { tool, field, args } of NESTABLE) {
    const route = routes.find((r) => r.operation === tool) as Route;
    const depths = [{ depth: 65, arrays: [false] }, { depth: 5_000, arrays: [true, false] }, ...fc.sample(overDeep, 1)];
    for (const deep of depths) {
      const text = buildDeep(deep);
      const what = `${tool} ${field} nested ${deep.depth} deep`;
      const wanted = (o: Outcome) => refused('invalid_input', field, 400)(o) && /nested deeper than 64 levels/.test(o.message ?? '');
      await probeCall(door, probe, () => mcpCall(door, tool, withDeep(args(door.valid), text)), wanted, `MCP ${what}`);
      const { path, rest } = overRoute(route, args(door.valid), door.valid);
      await probeCall(door, probe, () => restCall(door, route.method.toUpperCase(), path, { 'content-type': 'application/json', 'x-actor': door.actor }, withDeep(rest, text)), wanted, `REST ${what}`);
    }
  }
  // The limit is 64, not less: a context exactly 64 deep is stored, over both surfaces.
  const ok = (o: Outcome) => o.code === undefined;
  const at64 = nestedText(64);
  await probeCall(door, probe, () => mcpCall(door, 'svc_item_upsert', withDeep({ project_id: 'rel', title: 'door 4, 64 deep', context: DEEP }, at64)), ok, 'MCP context 64 deep');
  await probeCall(door, probe, () => restCall(door, 'POST', '/projects/rel/items', { 'content-type': 'application/json', 'x-actor': door.actor }, withDeep({ title: 'door 4, 64 deep', context: DEEP }, at64)), ok, 'REST context 64 deep');
}

/**
 * 5. Writes of an item of `typeKey` (its schema: `pattern: "^(a+)+$"` on context.code) with catastrophic strings,
 * over /mcp and REST, while /health is polled; returns the slowest write and the slowest /health answer.
 */
export async function doorPattern(door: Door, probe: Probe, typeKey: string): Promise<{ slowestWrite: number; slowestHealth: number; polls: number }> {
  let polling = true;
  let slowestHealth = 0;
  let polls = 0;
  const poller = (async () => {
    while (polling) {
      const t0 = Date.now();
      const answer = await send(door.base, 'GET', '/health', {}).catch(() => ({ status: 0, body: undefined }));
      slowestHealth = Math.max(slowestHealth, Date.now() - t0);
      polls++;
      if (answer.status !== 200) door.problems.push(`${probe.door}: /health answered ${answer.status} during the writes`);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  let slowestWrite = 0;
  try {
    const wanted = (o: Outcome) => refused('invalid_input', 'context.code', 400)(o) && (o.ms ?? 0) < 5_000;
    // The NUL tail is listed too: the generator draws it only sometimes, and it must be refused naming context.code.
    for (const code of [`${'a'.repeat(40)}!`, `${'a'.repeat(5_000)}!`, `${'a'.repeat(36)}\u0000`, ...fc.sample(catastrophic, 4)]) {
      const args = { project_id: 'rel', title: 'door 5', item_type: typeKey, context: { code } };
      const viaMcp = await probeCall(door, probe, () => mcpCall(door, 'svc_item_upsert', JSON.stringify(args)), wanted, `MCP ${code.length} chars`);
      const { project_id: _, ...rest } = args;
      const viaRest = await probeCall(door, probe, () => restCall(door, 'POST', '/projects/rel/items', { 'content-type': 'application/json', 'x-actor': door.actor }, JSON.stringify(rest)), wanted, `REST ${code.length} chars`);
      slowestWrite = Math.max(slowestWrite, viaMcp.ms ?? 0, viaRest.ms ?? 0);
    }
    // A value that matches is stored: the pattern runs, it only cannot backtrack.
    await probeCall(door, probe, () => mcpCall(door, 'svc_item_upsert', JSON.stringify({ project_id: 'rel', title: 'door 5 ok', item_type: typeKey, context: { code: 'a'.repeat(50) } })), (o) => o.code === undefined, 'MCP matching value');
  } finally {
    polling = false;
    await poller;
  }
  if (slowestHealth >= 2_000) door.problems.push(`${probe.door}: /health took ${slowestHealth} ms while the writes ran`);
  return { slowestWrite, slowestHealth, polls };
}

/** 6. Prototype keys as query parameters (every GET route), JSON body keys (every write route) and MCP arguments (every tool). */
export async function doorPrototypeKeys(door: Door, probe: Probe, tools: readonly Tool[], routes: readonly Route[]): Promise<void> {
  const value = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant({ polluted: true }), fc.constant(null), fc.constant([]));
  const pick = () => fc.sample(fc.record({ key: fc.constantFrom(...PROTOTYPE_KEYS), value }), 1)[0] as { key: string; value: unknown };
  for (const tool of tools) {
    const { key, value: v } = pick();
    const args = baseArgs(tool, door.valid);
    const text = `${JSON.stringify(args).slice(0, -1)}${Object.keys(args).length > 0 ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(v)}}`;
    await probeCall(door, probe, () => mcpCall(door, tool.name, text), refused('invalid_input', key), `MCP ${tool.name} ${key}`);
    const route = routes.find((r) => r.operation === tool.name);
    if (!route) continue;
    const { path, rest } = overRoute(route, args, door.valid);
    if (route.method === 'get') {
      const search = new URLSearchParams(Object.entries(rest).map(([k, x]): [string, string] => [k, String(x)]));
      search.append(key, typeof v === 'string' ? v : JSON.stringify(v));
      await probeCall(door, probe, () => restCall(door, 'GET', `${path}?${search.toString()}`, {}), refused('invalid_input', key, 400), `GET ${path}?${key}`);
    } else {
      const body = `${JSON.stringify(rest).slice(0, -1)}${Object.keys(rest).length > 0 ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(v)}}`;
      await probeCall(door, probe, () => restCall(door, route.method.toUpperCase(), path, { 'content-type': 'application/json', 'x-actor': door.actor }, body), refused('invalid_input', key, 400), `${route.method} ${path} body ${key}`);
    }
  }
}

/**
 * 7. Searches and briefs over a glossary group of `terms` (500), with long OR queries: answered, or refused as
 * too long (invalid_input), never unavailable or internal_error. Returns how many answers said expansion_cut.
 */
export async function doorGlossary(door: Door, probe: Probe, terms: string[]): Promise<number> {
  const word = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...terms) }, { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{2,12}$/) });
  const orQuery = fc.array(word, { minLength: 2, maxLength: 60 }).map((words) => words.join(' OR '));
  const mixed = fc
    .array(fc.oneof(orQuery.map((q) => q.split(' OR ').slice(0, 3).join(' OR ')), word, word.map((w) => `-${w}`), word.map((w) => `"${w} ${w}"`)), { minLength: 1, maxLength: 40 })
    .map((clauses) => clauses.join(' '));
  // The largest query the parser allows: 1,000 characters of group terms, all one OR group, and 32 OR groups.
  const longest = terms.reduce((q, t) => (q.length + t.length + 4 <= 1000 ? (q ? `${q} OR ${t}` : t) : q), '');
  const groups = Array.from({ length: 32 }, (_, i) => `${terms[i * 2]} OR ${terms[i * 2 + 1]}`).join(' ');
  const queries = [longest, groups.length <= 1000 ? groups : groups.slice(0, 1000), ...fc.sample(orQuery, 8), ...fc.sample(mixed, 4)];
  let cut = 0;
  const answered = (o: Outcome) => o.code === undefined || o.code === 'invalid_input';
  const isCut = (o: Outcome) => (o.body as { expansion_cut?: boolean } | undefined)?.expansion_cut === true;
  for (const query of queries) {
    const viaMcp = await probeCall(door, probe, () => mcpCall(door, 'svc_item_search', JSON.stringify({ project_id: 'rel', query })), answered, `MCP search ${query.length} chars`);
    const viaRest = await probeCall(door, probe, () => restCall(door, 'GET', `/projects/rel/items/search?${new URLSearchParams({ query }).toString()}`, {}), answered, `REST search ${query.length} chars`);
    cut += Number(isCut(viaMcp)) + Number(isCut(viaRest));
  }
  for (const keyword of fc.sample(fc.constantFrom(...terms), 2)) {
    await probeCall(door, probe, () => mcpCall(door, 'svc_brief', JSON.stringify({ project_id: 'rel', keyword })), answered, `MCP brief ${keyword}`);
    await probeCall(door, probe, () => restCall(door, 'GET', `/projects/rel/brief?keyword=${encodeURIComponent(keyword)}`, {}), answered, `REST brief ${keyword}`);
  }
  return cut;
}

type Tool = ReturnType<typeof listTools>[number];

/** Run `svc` with `args`; never throws: the exit code and both streams come back. */
async function svcProcess(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [...SVC, ...args], { env, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof error.code === 'number' ? error.code : -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
}

/**
 * 3. Crafted export files through `svc import --as` processes: `lines` (the honest export of a small project) with
 * one line changed per file, `perKind` of each IMPORT_KINDS. Each must exit 1 naming the line, without the word
 * "internal", and write nothing; the honest file then imports.
 */
export async function doorImport(door: Door, probe: Probe, env: NodeJS.ProcessEnv, lines: string[], other: { projectId: string; actorId: string }, perKind: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
  try {
    const files = craftedFiles(lines, other, perKind);
    const before = await door.fingerprint();
    // Two processes at a time: each is a whole `svc` start, and nothing else writes meanwhile.
    const lanes = [0, 1].map(async (lane) => {
      for (let i = lane; i < files.length; i += 2) {
        const file = files[i] as CraftedFile;
        const path = join(dir, `crafted-${i}.jsonl`);
        writeFileSync(path, `${file.lines.join('\n')}\n`);
        const result = await svcProcess(env, ['import', path, '--as', `hostile-crafted-${i}`]);
        const code = result.code === 0 ? undefined : (/^svc: ([a-z_ ]+):/m.exec(result.stderr)?.[1] ?? `exit ${result.code}`);
        probe.calls++;
        door.summary.operations++;
        count(probe.answers, `${label({ surface: 'cli', status: result.code, code })} (${file.kind})`);
        if (code) count(door.summary.errors, code);
        const namesLine = result.stderr.includes(`: line ${file.line}: `);
        if (result.code !== 1 || !namesLine || /internal/i.test(result.stderr) || code === 'unavailable') {
          probe.failures++;
          door.problems.push(`${probe.door}: ${file.kind} at line ${file.line}: exit ${result.code}: ${result.stderr.trim().slice(0, 300)}`);
        }
      }
    });
    await Promise.all(lanes);
    door.summary.invariants++;
    if ((await door.fingerprint()) !== before) {
      probe.failures++;
      door.summary.violations++;
      count(probe.answers, 'a table changed after the refusals');
      door.problems.push(`${probe.door}: a table changed after ${files.length} refused imports`);
    }
    // The honest file imports: the refusals were the files', not the setup's.
    const honest = join(dir, 'honest.jsonl');
    writeFileSync(honest, `${lines.join('\n')}\n`);
    const imported = await svcProcess(env, ['import', honest, '--as', 'hostile-honest']);
    probe.calls++;
    door.summary.operations++;
    count(probe.answers, imported.code === 0 ? 'CLI ok (the honest file)' : `CLI exit ${imported.code} (the honest file)`);
    if (imported.code !== 0) {
      probe.failures++;
      door.problems.push(`${probe.door}: the honest export did not import: ${imported.stderr.trim().slice(0, 300)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The records of project `rel` the doors aim at, made over REST; the ids by the parameter that names them. */
async function seedDoors(base: string, actor: string): Promise<Record<string, string>> {
  const work_unit_id = await post(base, actor, '/projects/rel/work-units', { title: 'doors' });
  return {
    project_id: 'rel',
    work_unit_id,
    task_id: await post(base, actor, `/work-units/${work_unit_id}/tasks`, { title: 'doors task' }),
    item_id: await post(base, actor, '/projects/rel/items', { title: 'doors item' }),
    qa_id: await post(base, actor, '/projects/rel/qa-checks', { title: 'doors qa' }),
    capture_id: await post(base, actor, '/captures', { text: 'doors capture' }),
    idea_id: await post(base, actor, `/work-units/${work_unit_id}/ideas`, { text: 'doors idea' }),
  };
}

/** Tables a refused call must leave as they were (audit_log included: every write audits). */
const DOOR_TABLES = [
  'projects',
  'actors',
  'item_types',
  'systems',
  'items',
  'links',
  'work_units',
  'captures',
  'capture_promotions',
  'ideas',
  'items_history',
  'sync_jobs',
  'glossary_groups',
  'glossary_terms',
  'audit_log',
];

export const FINGERPRINT_SQL = `select ${DOOR_TABLES.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')}`;

export const BACKTRACK_TYPE = 'hostile_backtrack';

export interface Prepared {
  valid: Record<string, string>;
  /** An actor of the database that no door's file carries. */
  intruder: string;
  /** The id of project `rel`: another project, as the crafted import files see it. */
  relId: string;
  /** The 500 accepted terms of one glossary group of `rel`. */
  terms: string[];
  /** The export of project hostile-src, as lines: the honest file the crafted ones are made from. */
  source: string[];
}

/**
 * What the doors need. Records of `rel` and of the import source over REST; the custom type whose schema has
 * `pattern: "^(a+)+$"` with `svc type add`; the rest with the operator operations in this process (another
 * actor, a project, a glossary group of 500 terms, an export): 500 `svc glossary term add` processes would
 * take minutes, and none of it is what a door tries.
 */
export async function prepareDoors(base: string, env: NodeJS.ProcessEnv, actor: string): Promise<Prepared> {
  const valid = await seedDoors(base, actor);
  const dir = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
  try {
    const schema = join(dir, 'backtrack.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }));
    const added = await svcProcess(env, ['type', 'add', BACKTRACK_TYPE, '--schema', schema, '--actor', actor]);
    if (added.code !== 0) throw new Error(`svc type add: ${added.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const terms = fc.sample(fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{3,10}$/), { minLength: 500, maxLength: 500 }), 1)[0] as string[];
  const service = await openService(loadConfig(env), { logger: createLogger('silent') });
  try {
    const as = { source: 'cli' as const, actorId: actor };
    const intruder = await service.call(ops.actor_add, { email: 'intruder@example.test' }, as);
    const rel = await service.call(ops.project_show, { project_id: 'rel' }, as);
    await service.call(ops.glossary_group_add, { project_id: 'rel', name: 'hostile synonyms' }, as);
    const queue = [...terms];
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        for (let term = queue.shift(); term !== undefined; term = queue.shift()) {
          await service.call(ops.glossary_term_add, { project_id: 'rel', group: 'hostile synonyms', term }, as);
        }
      }),
    );
    await post(base, actor, '/projects/rel/items', { title: `glossary ${terms[0]}`, body: `${terms[1]} ${terms[499]}` });
    await service.call(ops.project_create, { slug: 'hostile-src' }, as);
    await seedSource(base, actor);
    const exported = await service.call(ops.project_export, { project_id: 'hostile-src' }, as);
    return { valid, intruder: intruder.id, relId: rel.id, terms, source: exported.lines.filter((line) => line !== '') };
  } finally {
    await service.close();
  }
}

async function post(base: string, actor: string, path: string, body: unknown): Promise<string> {
  const answer = await send(base, 'POST', path, { 'content-type': 'application/json', 'x-actor': actor }, JSON.stringify(body));
  if (answer.status !== 200) throw new Error(`preparing the doors: POST ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return (answer.body as { id: string }).id;
}

/** A small project with one record of each kind an export carries: a custom type, a link, a promotion, … */
async function seedSource(base: string, actor: string): Promise<void> {
  const unit = await post(base, actor, '/projects/hostile-src/work-units', { title: 'source unit' });
  const task = await post(base, actor, `/work-units/${unit}/tasks`, { title: 'source task' });
  const item = await post(base, actor, '/projects/hostile-src/items', { title: 'source item', item_type: BACKTRACK_TYPE, context: { code: 'aaa' } });
  await post(base, actor, '/projects/hostile-src/items', { title: 'source dependant', context: { a: { b: [1, 2] } }, links: [{ type: 'depends', target_id: item }] });
  await post(base, actor, '/projects/hostile-src/qa-checks', { title: 'source check', target_task_ids: [task] });
  const capture = await post(base, actor, '/captures', { text: 'source capture' });
  await post(base, actor, `/captures/${capture}/annotate`, { signals: { source: 1 } });
  await post(base, actor, `/captures/${capture}/promote`, { project_id: 'hostile-src', title: 'source promoted' });
  await post(base, actor, `/work-units/${unit}/ideas`, { text: 'source idea' });
  await post(base, actor, '/projects/hostile-src/decisions', { decisions: [{ title: 'source decision', body: 'b' }] });
}
