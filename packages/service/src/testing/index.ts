import type { Store } from '@svc/store';
import { type TestBackend, type TestStore, testBackends } from '@svc/store/testing';
import { findOperation, ops } from '../catalog.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AnyOperation, InputOf, OutputOf } from '../operation.js';
import { createService, openServiceAndStore, type Service } from '../service.js';

declare const unchecked_: unique symbol;
/** Input a test gives deliberately outside an operation's schema (a wrong type, a missing field), for the runner to refuse. */
export interface Unchecked {
  readonly [unchecked_]: true;
}
/** Mark input as deliberately outside the operation's schema; it reaches the runner as it is. */
export const unchecked = (input: Record<string, unknown>): Unchecked => input as unknown as Unchecked;

/** The operation of a name a table of a test holds (state × event); fails the test on an unknown name. */
export function operation(name: string): AnyOperation {
  const op = findOperation(name);
  if (!op) throw new Error(`no operation '${name}'`);
  return op;
}

/** A typed call of one operation (`call(ops.svc_task_start, { task_id })`), by an actor the caller fixed. */
export type Call = <Op extends AnyOperation>(op: Op, input: InputOf<Op> | Unchecked) => Promise<OutputOf<Op>>;

export { type TestBackend, testBackends };
export {
  canStartPrivateCluster,
  createEmptyPostgresDatabase,
  freePort,
  type PrivateCluster,
  skipWithoutPostgres,
  startPrivateCluster,
} from '@svc/store/testing';

export interface TestService extends Service {
  /** The store beneath, for a test's own assertions on rows (a Service keeps its store to itself). */
  readonly store: TestStore;
  /**
   * Another service over the same store, with its own default actor or logger, whose close() leaves the store
   * open (a server closes its service when it stops; the test's store outlives it).
   */
  sibling(options?: { defaultActorId?: string | undefined; logger?: Logger }): Service;
  /** Register an actor and a project for a test; returns their ids. */
  seed(slug?: string): Promise<{ actorId: string; projectId: string; slug: string }>;
  /** Call as a tool over a surface that carries the actor (the seeded one by default). */
  as(actorId: string): Call;
  /**
   * Set a row's updated_at `ms` milliseconds into the past (aging research, stale work, recency order); an item's
   * refreshed_at too, as if it had been written then.
   */
  backdate(table: 'items' | 'work_units', id: string, ms: number): Promise<void>;
}

export const DAY = 86_400_000;

let counter = 0;

export async function openTestService(backend: TestBackend): Promise<TestService> {
  const store = await backend.open();
  const service = createService(store);
  return {
    ...service,
    store,
    sibling: (options = {}) => ({ ...createService(store, options), close: async () => {} }),
    async seed(slug = `p${++counter}`) {
      const actor = await service.call(ops.actor_add, { email: `${slug}-${counter}@example.test`, name: 'Tester' }, { source: 'cli' });
      const project = await service.call(ops.project_create, { slug }, { source: 'cli' });
      return { actorId: actor.id, projectId: project.id, slug };
    },
    as(actorId) {
      return (op, input) => service.call(op, input as InputOf<typeof op>, { source: 'test', actorId });
    },
    async backdate(table, id, ms) {
      const then = new Date(Date.now() - ms);
      if (table === 'items') await store.db.updateTable('items').set({ updated_at: then, refreshed_at: then }).where('id', '=', id).execute();
      else await store.db.updateTable(table).set({ updated_at: then }).where('id', '=', id).execute();
    },
  };
}

/** openService for a test that also reads the rows beneath it: the service, with its store. */
export async function openServiceForTest(config: Config): Promise<Service & { readonly store: Store }> {
  const { service, store } = await openServiceAndStore(config);
  return { ...service, store };
}

/** A service whose PostgreSQL does not answer (nothing listens on the port): for readiness and fault tests. */
export async function openUnreachableService(): Promise<Service> {
  const { openStore } = await import('@svc/store');
  const store = await openStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/svc_unreachable', poolSize: 1 });
  return createService(store);
}

/** The error a call was refused with; fails the test when the call succeeds. */
export async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error('expected the call to be refused');
}

/** A small deterministic generator (mulberry32), so a failing corpus can be replayed. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
