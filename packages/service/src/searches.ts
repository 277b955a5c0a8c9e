import { SvcError } from '@svc/domain';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/** SVC_SEARCH_TIMEOUT_MS's default. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;

/**
 * What bounds the searches of one process (docs/decisions/0065): each may take `timeoutMs`, waiting its turn
 * included; and on PostgreSQL at most `slots` run at once, so that the pool keeps connections for everything else.
 */
export interface SearchBounds {
  readonly timeoutMs: number;
  readonly gate: Gate | undefined;
}

/**
 * The searches one process runs at once on a pool of `connections`: all but two of them (at least one: a pool of one
 * or two keeps fewer free), so that a write or another read always finds a connection while searches wait on the
 * database (an attacker held a pool of ten with ten slow searches, 2026-11-28). undefined for the embedded database,
 * whose one session serves every call in turn: a gate would keep nothing for anyone.
 */
export function searchBounds(backend: 'postgres' | 'pglite', connections: number, timeoutMs: number): SearchBounds {
  return { timeoutMs, gate: backend === 'postgres' ? new Gate(Math.max(1, connections - 2)) : undefined };
}

/** What is left of a search's time-out (ReadContext.deadline), in milliseconds. */
export function timeLeft(ctx: { deadline?: number | undefined }): number {
  return ctx.deadline === undefined ? DEFAULT_SEARCH_TIMEOUT_MS : ctx.deadline - Date.now();
}

/** A refusal for a search stopped at its time-out (`waited`: it never had its turn). */
export function searchTimedOut(timeoutMs: number, waited = false): SvcError {
  const why = waited
    ? `other searches held every turn for the whole ${timeoutMs} ms a search may take (SVC_SEARCH_TIMEOUT_MS); try again shortly`
    : `the search took longer than the ${timeoutMs} ms a search may (SVC_SEARCH_TIMEOUT_MS) and was stopped; narrow it (a rarer word, a phrase, item_types) or ask the operator to raise SVC_SEARCH_TIMEOUT_MS`;
  const refused = new SvcError('unavailable', why, { timeout_ms: timeoutMs });
  timedOut.add(refused);
  return refused;
}

/** A refusal for a search whose statement was cancelled by someone else (an operator, another client), not timed out. */
export function searchCancelled(): SvcError {
  return new SvcError('unavailable', 'the search was cancelled in the database before its time-out (by an operator or another client); try again');
}

/** The refusals searchTimedOut made. */
const timedOut = new WeakSet<SvcError>();

/** Whether `error` is searchTimedOut's refusal. */
export function isSearchTimeout(error: unknown): error is SvcError {
  return error instanceof SvcError && timedOut.has(error);
}

/**
 * A FIFO semaphore of `slots` turns. A caller that has not had its turn by its deadline, or whose `signal` aborts while
 * it waits, leaves the queue and is refused; a turn is always given back, however its holder ends.
 */
export class Gate {
  private running = 0;
  private readonly waiting: { start: () => boolean }[] = [];

  constructor(readonly slots: number) {}

  async run<T>(deadline: number, timeoutMs: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw callerGone();
    if (this.running >= this.slots || this.waiting.length > 0) await this.turn(deadline, timeoutMs, signal);
    else this.running++;
    try {
      return await fn();
    } finally {
      this.handOver();
    }
  }

  /** Give a finished turn to the first in line still within its deadline (`running` unchanged), or back. */
  private handOver(): void {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) if (next.start()) return;
    this.running--;
  }

  /**
   * Wait for a turn handed over by a finishing holder, or refuse at the deadline. A caller whose deadline has passed
   * when its turn comes (its timer not run yet) declines it, and the turn goes on to the next (a reviewer, 2026-11-28).
   */
  private turn(deadline: number, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      /** Leave the line, refused with `why`. */
      const leave = (why: SvcError) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(why);
      };
      const gone = () => leave(callerGone());
      const entry = {
        start: (): boolean => {
          if (Date.now() >= deadline || signal?.aborted) {
            leave(signal?.aborted ? callerGone() : searchTimedOut(timeoutMs, true));
            return false;
          }
          clearTimeout(timer);
          signal?.removeEventListener('abort', gone);
          resolve();
          return true;
        },
      };
      const timer = setTimeout(() => leave(searchTimedOut(timeoutMs, true)), Math.max(0, deadline - Date.now()));
      signal?.addEventListener('abort', gone, { once: true });
      this.waiting.push(entry);
    });
  }
}

/**
 * Refuses a search once a statement of it ends past its deadline, or after its caller has gone (`signal`): each statement of a walk is bounded by the
 * transaction's statement time-out, set to what was left of the budget when it began, and their number by this. A
 * statement begun just before the deadline may run that long again: a search takes at most about twice its time-out.
 */
export function deadlinePlugin(deadline: number, timeoutMs: number, signal?: AbortSignal): KyselyPlugin {
  return {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (signal?.aborted) throw callerGone();
      if (Date.now() >= deadline) throw searchTimedOut(timeoutMs);
      return args.result;
    },
  };
}

/** What a search whose caller has gone is refused with (nobody reads it: the caller's connection is closed). */
function callerGone(): SvcError {
  return new SvcError('unavailable', 'the search was stopped: its caller went away');
}
