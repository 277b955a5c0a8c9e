import type { Actor } from '@svc/domain';
import type { Database, Kysely, Store } from '@svc/store';
import type { z } from 'zod';
import type { Logger } from './logger.js';

/**
 * `tool`: one of the svc_ tools of the spec, on MCP, HTTP and the CLI. `operator`: a rarely used operation,
 * on the CLI only.
 */
export type Surface = 'tool' | 'operator';

/** Where a call came from; recorded in the audit log. */
export type Source = 'mcp' | 'http' | 'cli' | 'test';

export interface Annotations {
  /** Reads only: runs without a transaction and needs no actor. */
  readOnlyHint: boolean;
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

export interface OperationContext {
  /** A transaction for writes; the pool for reads. */
  readonly tx: Kysely<Database>;
  readonly store: Store;
  /** The attributed actor (null only for reads and for operator writes from the CLI without one). */
  readonly actor: Actor | null;
  readonly source: Source;
  readonly requestId: string;
  readonly logger: Logger;
  /** Say what the write touched; the runner writes one audit row per write. */
  audit(target: AuditTarget): void;
  /** Report progress of a long operation (the CLI shows a bar when stderr is a terminal). */
  progress(done: number, total: number, label: string): void;
}

/**
 * How a result is presented on surfaces that show text (MCP): JSON; markdown rendered from the data; or a
 * short acknowledgement line, with the data alongside as structured content.
 */
export type Presentation<O> =
  | { kind: 'json' }
  | { kind: 'markdown'; render(result: O): string }
  | { kind: 'ack'; render(result: O): string };

export interface Operation<I extends z.ZodObject = z.ZodObject, O = unknown> {
  readonly name: string;
  readonly surface: Surface;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly annotations: Annotations;
  readonly presentation: Presentation<O>;
  /** A read of several statements that must see one snapshot (export): runs in a read-only transaction. */
  readonly snapshot?: boolean;
  /**
   * A maintenance write that cannot run in a transaction block (VACUUM): the runner gives it no transaction and
   * writes its audit row after it. Operator surface only.
   */
  readonly outsideTransaction?: boolean;
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
  run(ctx: OperationContext, input: z.output<I>): Promise<O>;
}

export type AnyOperation = Operation<z.ZodObject, unknown>;

const ID_FIELDS = new Set(['project_id', 'item_id', 'work_unit_id', 'task_id', 'qa_id', 'capture_id', 'idea_id', 'term_id']);

/** The fields naming the record an operation acts on: `addresses`, else its required top-level id fields. */
export function addressedFields(op: AnyOperation): ReadonlySet<string> {
  if (op.addresses) return new Set(op.addresses);
  const shape = op.input.shape as Record<string, z.ZodType>;
  return new Set(Object.keys(shape).filter((key) => ID_FIELDS.has(key) && !(shape[key] as z.ZodType).safeParse(undefined).success));
}

export function defineOperation<I extends z.ZodObject, O>(
  op: Omit<Operation<I, O>, 'presentation'> & { presentation?: Presentation<O> },
): Operation<I, O> {
  return { presentation: { kind: 'json' }, ...op };
}
