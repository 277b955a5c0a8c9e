import { itemLifecycleTransition, parseIdRef, SvcError } from '@svc/domain';
import { resolveItem, resolveProject, lockHead } from '@svc/store';
import type { z } from 'zod';
import { writeAnswer } from '../answers.js';
import { itemInProject } from '../inputs.js';
import { markChainDeleted } from '../items/write.js';
import type { WriteContext } from '../operation.js';

export const input = itemInProject;

/** Soft delete and restore: mark every row of the chain, and record it in history. */
export async function setDeleted(ctx: WriteContext, raw: z.output<typeof input>, deleted: boolean) {
  const projectId = raw.project_id ? (await resolveProject(ctx.tx, raw.project_id)).id : undefined;
  const { head: seen } = await resolveItem(ctx.tx, parseIdRef(raw.item_id, 'item_id'), { projectId, includeDeleted: true });
  const head = await lockHead(ctx.tx, seen.chain_id);
  if (!head) throw new SvcError('not_found', `item ${raw.item_id} not found`);
  itemLifecycleTransition(head, deleted ? 'delete' : 'restore');
  await markChainDeleted(ctx, head, deleted);
  ctx.audit({ project_id: head.project_id, target_kind: 'item', target_id: head.chain_id });
  const { head: after } = await resolveItem(ctx.tx, parseIdRef(head.id), { includeDeleted: true });
  return writeAnswer(after);
}
