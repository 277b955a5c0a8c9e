import { type Item, type ItemStatus, parseIdRef, type Project } from '@svc/domain';
import {
  type Database,
  lockHead,
  lockWorkUnit,
  recordHistory,
  resolveItem,
  resolveProject,
  resolveWorkUnit,
  type Kysely,
  updateHeadState,
  type WorkUnit,
} from '@svc/store';
import type { WriteContext } from '../operation.js';

/** Resolve the optional project scope of a mutator (prefixes then resolve only inside it). */
export async function scope(db: Kysely<Database>, projectRef: string | undefined): Promise<Project | undefined> {
  return projectRef ? resolveProject(db, projectRef) : undefined;
}

export async function findWorkUnit(db: Kysely<Database>, ref: string, project: Project | undefined, field = 'work_unit_id'): Promise<WorkUnit> {
  return resolveWorkUnit(db, parseIdRef(ref, field), project?.id);
}

/** Resolve a work-unit reference, within the optional project scope, and lock the unit for the rest of the transaction. */
export async function lockScopedWorkUnit(ctx: WriteContext, ref: string, projectRef: string | undefined): Promise<WorkUnit> {
  const found = await findWorkUnit(ctx.tx, ref, await scope(ctx.tx, projectRef));
  return lockWorkUnit(ctx.tx, found.id);
}

/** Resolve a task or QA check reference to its head and lock it for the rest of the transaction. */
export async function lockItemOfType(
  ctx: WriteContext,
  ref: string,
  itemType: 'task' | 'qa_check',
  project: Project | undefined,
  field: string,
): Promise<Item> {
  const kind = itemType === 'task' ? 'task' : 'QA check';
  const { head } = await resolveItem(ctx.tx, parseIdRef(ref, field), { projectId: project?.id, itemType, kind });
  const locked = await lockHead(ctx.tx, head.chain_id);
  return locked ?? head;
}

/** Move a head to a new status in place (status carries no content to lose) and record it in history. */
export async function changeStatus(
  ctx: WriteContext,
  head: Item,
  status: ItemStatus,
  context?: Record<string, unknown>,
): Promise<Item> {
  const next = await updateHeadState(ctx.tx, head.id, { status, ...(context ? { context } : {}) });
  await recordHistory(ctx.tx, {
    project_id: head.project_id,
    chain_id: head.chain_id,
    item_id: head.id,
    version: head.version,
    change_kind: 'status_changed',
    semantic_impacts: ['status_change'],
    details: { from: head.status, to: status },
    actor_id: ctx.actor?.id ?? null,
    source: ctx.source,
  });
  return next;
}
