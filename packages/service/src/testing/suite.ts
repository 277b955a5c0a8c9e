import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Item } from '@svc/domain';
import type { TestBackend } from '@svc/store/testing';
import { ops } from '../catalog.js';
import { type Call, openTestService, type TestService } from './index.js';

export type { Call };

export interface Suite {
  svc: TestService;
  seeded: { actorId: string; projectId: string; slug: string };
  /** Call as the seeded actor. */
  call: Call;
  /** The current row of an item (writes answer only its ids and state). */
  show(id: string): Promise<Item>;
}

/**
 * The hooks every service suite repeats: one service per file on `backend`, and before each test every table
 * reset and a project `slug` with an actor seeded; `ready` hands the fresh state to the file's variables.
 */
export function useTestService(backend: TestBackend, slug: string, ready: (suite: Suite) => void): void {
  let svc: TestService | undefined;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc?.close();
  });
  beforeEach(async () => {
    const open = svc as TestService;
    await open.store.reset();
    const seeded = await open.seed(slug);
    const call = open.as(seeded.actorId);
    const show = async (id: string): Promise<Item> => (await call(ops.item_show, { item_id: id })).item;
    ready({ svc: open, seeded, call, show });
  });
}
