import { parseIdRef, SvcError, shortId } from '@svc/domain';
import { lockHead, lockWorkUnit, resolveItem } from '@svc/store';
import { z } from 'zod';
import { idRef, projectRef } from '../inputs.js';
import type { WriteContext } from '../operation.js';
import { scope } from '../work/shared.js';

export const taskRef = idRef('Task');

export const scopeField = projectRef.optional().describe('Scope ids to this project');

export const sortOrder = z.number().int().min(-1_000_000_000).max(1_000_000_000);

/** Lock the task's work unit first (it serialises starts in one unit), then the task itself. */
export async function lockTaskAndUnit(ctx: WriteContext, taskId: string, projectRef: string | undefined) {
  const project = await scope(ctx.tx, projectRef);
  const { head } = await resolveItem(ctx.tx, parseIdRef(taskId, 'task_id'), { projectId: project?.id, itemType: 'task', kind: 'task' });
  // The database requires a task's work unit (items_task_has_work_unit); a row without one is corrupt, not a refusal.
  if (head.work_unit_id === null) throw new SvcError('internal_error', `task ${shortId(head.id)} has no work unit`);
  const unit = await lockWorkUnit(ctx.tx, head.work_unit_id);
  const task = (await lockHead(ctx.tx, head.chain_id)) ?? head;
  return { task, unit };
}
