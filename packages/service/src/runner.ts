import { randomUUID } from 'node:crypto';
import { checkJsonDepth, invalidInput, isUuid, SvcError } from '@svc/domain';
import { type AuditEntry, type Database, type Kysely, requireActor, type Store, writeAudit } from '@svc/store';
import type { z } from 'zod';
import { fromDatabase, fromZod, isRetryable, refineRefusal } from './errors.js';
import type { Logger } from './logger.js';
import type { AnyOperation, AttributedContext, AuditTarget, ReadContext, Source } from './operation.js';
import { deadlinePlugin, isSearchTimeout, type SearchBounds, searchCancelled, searchTimedOut } from './searches.js';

export interface Runtime {
  readonly store: Store;
  readonly logger: Logger;
  /** SVC_DEFAULT_ACTOR_ID: the actor for writes whose call names none. */
  readonly defaultActorId?: string | undefined;
  /** How long a search may take, and how many run at once (searches.ts). */
  readonly searches: SearchBounds;
}

export interface CallContext {
  source: Source;
  /** The actor from the surface's auth context (X-Actor, --actor). */
  actorId?: string | null | undefined;
  /** How the call arrived, when one source has several ways in (MCP: stdio or HTTP); it shapes error hints. */
  transport?: 'stdio' | 'http' | undefined;
  requestId?: string | undefined;
  onProgress?: ((done: number, total: number, label: string) => void) | undefined;
  /**
   * Aborted when the caller has gone (an HTTP client closed its connection, an MCP request was cancelled): a search
   * waiting for its turn leaves the line, and a running one stops after its statement (an attacker queued searches
   * with clients that gave up at once, and they ran to their time-out ahead of everyone's, 2026-11-28).
   */
  signal?: AbortSignal | undefined;
}

/**
 * Prepare raw input: an optional parameter given as "" means "not given" (the spec's convention); null means
 * "clear this field" and is kept only where the schema accepts it, elsewhere refused naming the field
 * (decision 0017). Unknown parameters are refused so a misspelt one never silently drops a value, and a
 * value nested deeper than MAX_JSON_DEPTH is refused before zod or anything else walks it.
 */
function normaliseInput(op: AnyOperation, raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new SvcError('invalid_input', 'input: the arguments must be a JSON object', { field: 'input' });
  }
  const shape = op.input.shape as Record<string, z.ZodType>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    // Own keys only: `constructor`, `toString` or `__proto__` must read as unknown, not as Object.prototype's.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) {
      const known = Object.keys(shape).join(', ');
      throw new SvcError('invalid_input', `${key}: unknown parameter for ${op.name}; known parameters: ${known}`, {
        field: key,
      });
    }
    if (value === '' && field.safeParse(undefined).success) continue;
    if (value === null && !field.safeParse(null).success) {
      // "Cleared" and "unchanged" speak of a write; a read's optional parameter is simply left out.
      const why = !field.safeParse(undefined).success
        ? 'is required and cannot be null'
        : op.kind === 'read'
          ? 'cannot be null; omit it (or give "") for the default'
          : 'cannot be cleared (null); omit it or give "" to leave it unchanged';
      throw new SvcError('invalid_input', `${key}: ${why}`, { field: key });
    }
    checkJsonDepth(value, key);
    out[key] = value;
  }
  return out;
}

function parseInput<I extends z.ZodObject>(op: { input: I; name: string }, raw: unknown): z.output<I> {
  const normalised = normaliseInput(op as unknown as AnyOperation, raw);
  const parsed = op.input.safeParse(normalised);
  if (!parsed.success) throw fromZod(parsed.error);
  for (const [key, value] of Object.entries(normalised)) {
    const dropped = droppedKey(value, (parsed.data as Record<string, unknown>)[key], key);
    if (dropped) throw new SvcError('invalid_input', `${dropped}: unknown parameter`, { field: dropped });
  }
  return parsed.data;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The path of a key the caller gave inside a nested parameter (a batch's entry, a link) that parsing dropped:
 * zod strips an object's unknown keys, so a misspelt nested field would silently lose its value. Free-form
 * objects (context, signals) keep every key and so never report one.
 */
function droppedKey(given: unknown, parsed: unknown, path: string): string | undefined {
  if (Array.isArray(given) && Array.isArray(parsed)) {
    for (const [i, item] of given.entries()) {
      const dropped = droppedKey(item, parsed[i], `${path}[${i}]`);
      if (dropped) return dropped;
    }
    return undefined;
  }
  if (!isPlainObject(given) || !isPlainObject(parsed)) return undefined;
  for (const [key, value] of Object.entries(given)) {
    if (!Object.hasOwn(parsed, key)) return `${path}.${key}`;
    const dropped = droppedKey(value, parsed[key], `${path}.${key}`);
    if (dropped) return dropped;
  }
  return undefined;
}

const given = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/**
 * The actor of a write (docs/decisions/0012). The transport's actor (X-Actor, --actor) is the caller's identity
 * as the deployment established it, so a body `actor_id` may repeat it but never name someone else. Without
 * one, SVC_DEFAULT_ACTOR_ID stands in and a body `actor_id` may name the author in its place. A body
 * `actor_id` alone never makes a write attributable: that is `actor_required`, as if none were named.
 */
function actorIdFor(op: AnyOperation, input: Record<string, unknown>, call: CallContext, runtime: Runtime): string | undefined {
  const fromInput = op.actorField ? given(input[op.actorField]) : undefined;
  const fromTransport = given(call.actorId);
  if (fromTransport !== undefined) {
    if (fromInput !== undefined && fromInput.toLowerCase() !== fromTransport.toLowerCase()) {
      const field = op.actorField ?? 'actor_id';
      throw new SvcError(
        'invalid_input',
        `${field}: names another actor than the one this connection acts as (${fromTransport}); omit ${field}, or send the same actor`,
        { field },
      );
    }
    return fromTransport;
  }
  const fallback = given(runtime.defaultActorId);
  if (fallback === undefined) {
    if (fromInput !== undefined) {
      throw new SvcError(
        'actor_required',
        `${op.actorField}: a body actor_id alone does not attribute a write; ${actorHint(call)} (register one with \`svc actor add --email EMAIL\`)`,
        { field: 'actor' },
      );
    }
    return undefined;
  }
  return fromInput ?? fallback;
}

/** How to name an actor, in the words of the surface the call came through. */
function actorHint(call: CallContext): string {
  switch (call.source) {
    case 'mcp':
      return call.transport === 'http'
        ? 'send the X-Actor header (an actor UUID) with the MCP requests, or set SVC_DEFAULT_ACTOR_ID on the server'
        : 'start `svc serve mcp` with --actor UUID, or set SVC_DEFAULT_ACTOR_ID';
    case 'http':
      return 'send the X-Actor header (an actor UUID), or set SVC_DEFAULT_ACTOR_ID on the server';
    case 'cli':
      return 'pass --actor UUID, or set SVC_DEFAULT_ACTOR_ID';
    case 'test':
      return 'name an actor in the call';
  }
}

/**
 * The one attribution rule for every write (docs/decisions/0020): an actor, when one is named, must be an
 * actor UUID (registered: checked in the write's transaction); MCP and HTTP writes must name one; a CLI write
 * without one is the operator's own and is recorded as source `cli` with no actor.
 */
function checkAttribution(actorId: string | undefined, call: CallContext): void {
  if (actorId === undefined) {
    if (call.source === 'cli') return;
    throw new SvcError(
      'actor_required',
      `this write needs an actor: ${actorHint(call)} (register one with \`svc actor add --email EMAIL\`)`,
      { field: 'actor' },
    );
  }
  if (!isUuid(actorId)) {
    throw new SvcError('invalid_input', `actor: '${actorId}' is not an actor UUID; \`svc actor list\` shows the registered ones`, {
      field: 'actor',
    });
  }
}

/**
 * Run one operation: validate input, resolve the actor, run it in one transaction (writes) or straight on the
 * pool (reads), write one audit row per write, and turn every failure into an SvcError.
 */
export async function execute(runtime: Runtime, op: AnyOperation, raw: unknown, call: CallContext): Promise<unknown> {
  const requestId = call.requestId ?? randomUUID();
  try {
    const input = parseInput(op, raw) as Record<string, unknown>;
    if (call.source === 'mcp') {
      const missing = op.mcpRequired?.find((field) => input[field] === undefined);
      if (missing !== undefined) throw invalidInput(missing, `required by ${op.name}`);
    }
    if (op.kind === 'read') {
      const base = baseContext(runtime, call, requestId);
      if (op.search) return await search(runtime, op, base, input, call.signal);
      if (!op.snapshot) return await op.run({ ...base, db: runtime.store.db }, input);
      return await readInTransaction(runtime, op, input, 'repeatable read', (tx) => ({ ...base, db: tx }));
    }
    const actorId = actorIdFor(op, input, call, runtime);
    checkAttribution(actorId, call);
    /**
     * Run the write with `db` to read its actor through (its transaction, or the pool for a maintenance write),
     * then `record` its audit row.
     */
    const write = async (db: Kysely<Database>, run: (ctx: AttributedContext) => Promise<unknown>, record: (entry: AuditEntry) => Promise<void>) => {
      const actor = actorId === undefined ? null : await requireActor(db, actorId.toLowerCase(), 'actor');
      let target: AuditTarget = {};
      const ctx: AttributedContext = {
        ...baseContext(runtime, call, requestId),
        actor,
        audit: (t) => {
          target = { ...target, ...t, details: { ...target.details, ...t.details } };
        },
      };
      const result = await run(ctx);
      await record({
        actor_id: actor?.id ?? null,
        source: call.source,
        operation: op.name,
        project_id: target.project_id ?? null,
        target_kind: target.target_kind ?? null,
        target_id: target.target_id ?? null,
        request_id: requestId,
        details: target.details ?? {},
      });
      return result;
    };
    if (op.outsideTransaction) {
      const { store } = runtime;
      return await write(
        store.db,
        (ctx) => op.run({ ...ctx, maintenance: (fn) => store.maintenance(fn) }, input),
        (entry) => store.db.transaction().execute((tx) => writeAudit(tx, entry)),
      );
    }
    for (let attempt = 1; ; attempt++) {
      try {
        // Read committed whatever the database's default: the search index's triggers read the glossary's groups after
        // waiting for a group's rebuild, and must see what it committed (docs/decisions/0053).
        return await runtime.store.db
          .transaction()
          .setIsolationLevel('read committed')
          .execute((tx) => write(tx, (ctx) => op.run({ ...ctx, tx }, input), (entry) => writeAudit(tx, entry)));
      } catch (error) {
        if (attempt < 3 && isRetryable(error)) continue;
        throw error;
      }
    }
  } catch (error) {
    // A search stopped by the statement time-out its budget set (searches.ts) is refused as the search's, not as a
    // database that does not answer.
    if (op.kind === 'read' && op.search && call.signal?.aborted) {
      runtime.logger.debug({ requestId, op: op.name }, 'search stopped: its caller went away');
      throw error instanceof SvcError ? error : new SvcError('unavailable', 'the search was stopped: its caller went away');
    }
    if (op.kind === 'read' && op.search && isSearchTimeout(error)) {
      runtime.logger.info({ requestId, op: op.name, timeout_ms: runtime.searches.timeoutMs }, 'search stopped at its time-out');
      throw error;
    }
    const found = fromDatabase(error);
    const mapped = found && refineRefusal(op, found);
    if (mapped) {
      if (mapped.code === 'unavailable') runtime.logger.warn({ requestId, op: op.name, err: error }, 'database unavailable');
      throw mapped;
    }
    runtime.logger.error({ requestId, op: op.name, err: error }, 'operation failed unexpectedly');
    throw new SvcError('internal_error', `internal error (request id ${requestId}); the server log has the details`, {
      request_id: requestId,
    });
  }
}

/**
 * A search (ReadOperation.search): in its turn (SearchBounds' gate, on PostgreSQL), and within its time-out, waiting
 * included. Its one-statement answer where it has one (bounded by its design: a page's first postings), else its
 * transaction, given the deadline: its first statement sets the statement time-out to what is left of it (the search's
 * own, so that no round trip is spent on it), and a statement that ends past it stops the search (deadlinePlugin).
 */
async function search(
  runtime: Runtime,
  op: AnyOperation & { kind: 'read' },
  base: Omit<ReadContext, 'db'>,
  input: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const { timeoutMs, gate } = runtime.searches;
  const deadline = Date.now() + timeoutMs;
  const run = () =>
    readInTransaction(
      runtime,
      op,
      input,
      op.snapshot ? 'repeatable read' : 'read committed',
      (tx) => ({ ...base, db: tx.withPlugin(deadlinePlugin(deadline, timeoutMs, signal)), deadline }),
      () => Date.now() < deadline,
    );
  try {
    return await (gate ? gate.run(deadline, timeoutMs, run, signal) : run());
  } catch (error) {
    // A statement the database cancelled is the search's time-out or someone else's cancel, said as such; one whose
    // caller has gone is left for execute to say so.
    if ((error as { code?: unknown } | undefined)?.code === '57014' && !signal?.aborted) {
      throw cancelledByAnother(error, deadline) ? searchCancelled() : searchTimedOut(timeoutMs);
    }
    throw error;
  }
}

/** How far before its deadline a search's cancelled statement is taken for another's cancel: timers' slack. */
const CANCEL_MARGIN_MS = 50;

/**
 * Whether a search's cancelled statement (57014) was cancelled by someone else (an operator's pg_cancel_backend, another
 * client's cancel request) rather than by a statement time-out: read as the search's time-out, it told the caller to
 * narrow a query that had not been slow (a reviewer, 2026-11-28). PostgreSQL says which in its message; where the
 * server writes messages in another language, the time decides: the time-out a search sets ends a statement at or
 * past its deadline. (A time-out the role sets below the search's, as docs/scaling.md has PgBouncer users do, ends
 * one earlier: its message says so.)
 */
function cancelledByAnother(error: unknown, deadline: number): boolean {
  const { message } = (error ?? {}) as { message?: unknown };
  const said = typeof message === 'string' ? message : '';
  if (/due to statement timeout/.test(said)) return false;
  if (/due to user request/.test(said)) return true;
  return Date.now() < deadline - CANCEL_MARGIN_MS;
}

/**
 * A read's one-statement answer where it has one, else `op.run` in a read-only transaction at `isolation`, with the
 * context `ctx` makes of it; a failure the database says to retry is retried once, while `again` allows.
 */
async function readInTransaction(
  runtime: Runtime,
  op: AnyOperation & { kind: 'read' },
  input: Record<string, unknown>,
  isolation: 'repeatable read' | 'read committed',
  ctx: (tx: Kysely<Database>) => ReadContext,
  again: () => boolean = () => true,
): Promise<unknown> {
  const quick = await tryOneStatement(op, { ...ctx(runtime.store.db), db: runtime.store.db }, input);
  if (quick !== undefined) return quick;
  for (let attempt = 1; ; attempt++) {
    try {
      return await runtime.store.db
        .transaction()
        .setIsolationLevel(isolation)
        .setAccessMode('read only')
        .execute((tx) => op.run(ctx(tx), input));
    } catch (error) {
      if (attempt < 2 && isRetryable(error) && again()) continue;
      throw error;
    }
  }
}

function baseContext(runtime: Runtime, call: CallContext, requestId: string): Omit<ReadContext, 'db'> {
  const progress = call.onProgress ?? (() => {});
  return { source: call.source, requestId, logger: runtime.logger, progress };
}

/**
 * A snapshot read's one-statement answer (ReadOperation.oneStatement), or undefined: then its transaction answers,
 * also when the statement failed (a lost connection, a standby's recovery conflict): the transaction retries what
 * can be retried and refuses in its own words what cannot.
 */
async function tryOneStatement(op: AnyOperation & { kind: 'read' }, ctx: ReadContext, input: Record<string, unknown>): Promise<unknown> {
  if (!op.oneStatement) return undefined;
  try {
    return await op.oneStatement(ctx, input);
  } catch (error) {
    ctx.logger.debug({ requestId: ctx.requestId, op: op.name, err: error }, 'one-statement answer failed; answering in the transaction');
    return undefined;
  }
}
