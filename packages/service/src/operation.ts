import type { Actor } from '@svc/domain';
import type { Database, Kysely, Store, Transaction } from '@svc/store';
import type { z } from 'zod';
import type { Logger } from './logger.js';

/**
 * `tool`: one of the svc_ tools of the spec, on MCP, HTTP and the CLI. `operator`: a rarely used operation,
 * on the CLI only.
 */
type Surface = 'tool' | 'operator';

/** Where a call came from; recorded in the audit log. */
export type Source = 'mcp' | 'http' | 'cli' | 'test';

/** The behaviour hints an operation declares for MCP; readOnlyHint is not among them: it follows from the kind. */
interface Hints {
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

export interface AuditTarget {
  project_id?: string | null;
  target_kind?: string;
  target_id?: string | null;
  /** Ids and counts only: never user text that may later be redacted. */
  details?: Record<string, unknown>;
}

interface BaseContext {
  readonly source: Source;
  readonly requestId: string;
  readonly logger: Logger;
  /** Report progress of a long operation (the CLI shows a bar when stderr is a terminal). */
  progress(done: number, total: number, label: string): void;
}

/** What a read gets: a handle to read through, no actor, nothing to audit. */
export interface ReadContext extends BaseContext {
  /** The pool; for a snapshot read or a search, a read-only transaction. */
  readonly db: Kysely<Database>;
  /**
   * A search's deadline (epoch milliseconds, SVC_SEARCH_TIMEOUT_MS from its call): its first statement sets its
   * transaction's statement time-out to what is left (searches.ts timeLeft), and no statement begins after it.
   */
  readonly deadline?: number | undefined;
}

/** What every write gets: its actor and its audit row to fill in. */
export interface AttributedContext extends BaseContext {
  /** The attributed actor (null only for operator writes from the CLI without one). */
  readonly actor: Actor | null;
  /** Say what the write touched; the runner writes one audit row per write. */
  audit(target: AuditTarget): void;
}

/**
 * What a write outside a transaction block (VACUUM) gets: no handle, only a way to take a maintenance session
 * (Store.maintenance). No other context holds the store, so a read cannot reach a write through it.
 */
interface MaintenanceContext extends AttributedContext {
  readonly maintenance: Store['maintenance'];
}

/** What a write gets: its transaction, its actor, and its audit row to fill in. */
export interface WriteContext extends AttributedContext {
  /** The operation's one transaction. */
  readonly tx: Transaction<Database>;
}

/**
 * How a result is presented on surfaces that show text (MCP): JSON; markdown rendered from the data; or a
 * short acknowledgement line, with the data alongside as structured content.
 */
type Presentation<O> =
  | { kind: 'json' }
  | { kind: 'markdown'; render(result: O): string }
  | { kind: 'ack'; render(result: O): string };

interface Declared<I extends z.ZodObject, O, N extends string> {
  readonly name: N;
  readonly surface: Surface;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly annotations: Hints;
  readonly presentation: Presentation<O>;
  /** Input field whose value, when given, names the acting actor (capture tools take actor_id). */
  readonly actorField?: keyof z.output<I> & string;
  /**
   * Optional input fields the MCP tool requires all the same: the spec's tool contract lists them, while a
   * surface that names the record another way can do without (svc_impact's project_id: REST's
   * /items/{id}/impact takes the item's own project). tools/list marks them required; the runner enforces it.
   */
  readonly mcpRequired?: readonly (keyof z.output<I> & string)[];
  /**
   * The input fields that name the record a write acts on (REST puts them in the path). One that names nothing
   * is not_found; any other reference in a write's arguments that names nothing is invalid_input naming its
   * field (decision 0017). Default: the required top-level id fields (see addressedFields).
   */
  readonly addresses?: readonly (keyof z.output<I> & string)[];
}

export interface ReadOperation<I extends z.ZodObject = z.ZodObject, O = unknown, N extends string = string> extends Declared<I, O, N> {
  readonly kind: 'read';
  /** A read of several statements that must see one snapshot (export): runs in a read-only transaction. */
  readonly snapshot?: boolean;
  /**
   * A snapshot read's answer from one statement on the pool (which sees one snapshot by itself), tried first where
   * the transaction's round trips would cost more than the work (decision 0050); undefined when it cannot answer so,
   * and run() answers in the transaction. It must answer exactly as run() would.
   */
  readonly oneStatement?: (ctx: ReadContext, input: z.output<I>) => Promise<O | undefined>;
  /**
   * A search, whose cost the caller's words decide: it runs in a read-only transaction within SVC_SEARCH_TIMEOUT_MS,
   * and on PostgreSQL in its turn among the searches a pool may run at once (searches.ts, decision 0065).
   */
  readonly search?: true;
  run(ctx: ReadContext, input: z.output<I>): Promise<O>;
}

export interface WriteOperation<I extends z.ZodObject = z.ZodObject, O = unknown, N extends string = string> extends Declared<I, O, N> {
  readonly kind: 'write';
  readonly outsideTransaction?: false;
  run(ctx: WriteContext, input: z.output<I>): Promise<O>;
}

/**
 * A maintenance write that cannot run in a transaction block (VACUUM): the runner gives it no transaction and
 * writes its audit row after it. Operator surface only.
 */
export interface MaintenanceOperation<I extends z.ZodObject = z.ZodObject, O = unknown, N extends string = string>
  extends Declared<I, O, N> {
  readonly kind: 'write';
  readonly outsideTransaction: true;
  run(ctx: MaintenanceContext, input: z.output<I>): Promise<O>;
}

/**
 * An operation, by what it does to the database (its `kind`, declared by each): a `read` runs on the pool (a
 * snapshot read in a read-only transaction) and needs no actor; a `write` runs in one transaction, attributed,
 * with one audit row (docs/decisions/0033). The context a kind gets is typed accordingly: only a write holds a
 * `Transaction`, so a store function that must run in one cannot be called from a read.
 */
type Operation<I extends z.ZodObject = z.ZodObject, O = unknown, N extends string = string> =
  | ReadOperation<I, O, N>
  | WriteOperation<I, O, N>
  | MaintenanceOperation<I, O, N>;

export type AnyOperation = Operation<z.ZodObject, unknown>;

/** The input a caller may give an operation (before defaults), and the answer it gets. */
export type InputOf<Op> = Op extends { readonly input: infer I extends z.ZodObject } ? z.input<I> : never;
export type OutputOf<Op> = Op extends { run(ctx: never, input: never): Promise<infer O> } ? O : never;

const ID_FIELDS = new Set(['project_id', 'item_id', 'work_unit_id', 'task_id', 'qa_id', 'capture_id', 'idea_id', 'term_id']);

/** The fields naming the record an operation acts on: `addresses`, else its required top-level id fields. */
export function addressedFields(op: AnyOperation): ReadonlySet<string> {
  if (op.addresses) return new Set(op.addresses);
  const shape = op.input.shape as Record<string, z.ZodType>;
  return new Set(Object.keys(shape).filter((key) => ID_FIELDS.has(key) && !(shape[key] as z.ZodType).safeParse(undefined).success));
}

type Definition<Op> = Op extends unknown ? Omit<Op, 'presentation'> & { presentation?: Op extends Operation<z.ZodObject, infer O> ? Presentation<O> : never } : never;

export function defineOperation<I extends z.ZodObject, O, const N extends string>(op: Definition<ReadOperation<I, O, N>>): ReadOperation<I, O, N>;
export function defineOperation<I extends z.ZodObject, O, const N extends string>(op: Definition<WriteOperation<I, O, N>>): WriteOperation<I, O, N>;
export function defineOperation<I extends z.ZodObject, O, const N extends string>(
  op: Definition<MaintenanceOperation<I, O, N>>,
): MaintenanceOperation<I, O, N>;
export function defineOperation(op: Definition<AnyOperation>): AnyOperation {
  return { presentation: { kind: 'json' }, ...op } as AnyOperation;
}
