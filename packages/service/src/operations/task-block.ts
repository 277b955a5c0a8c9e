import { shortId, taskStatusOf, taskTransition } from '@svc/domain';
import { resolveProject, touchWorkUnit } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, writeAnswer } from '../answers.js';
import { createItem, prepareItemValues } from '../items/write.js';
import { MAX_NOTE } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { changeStatus } from '../work/shared.js';
import { lockTaskAndUnit, scopeField, taskRef } from './task-shared.js';

export const taskBlock = defineOperation({
  name: 'svc_task_block',
  surface: 'tool',
  title: 'Block a task',
  description:
    'Block a task in progress, giving the reason: a decision documenting it is created, linked (decision blocks ' +
    `task). Resume with svc_task_start. ${ITEM_ANSWER} and decision_id.`,
  input: z.object({
    task_id: taskRef,
    reason: z.string().trim().min(1).max(MAX_NOTE).describe('Why the task is blocked'),
    project_id: scopeField,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const { task, unit } = await lockTaskAndUnit(ctx, input.task_id, input.project_id);
    const next = taskTransition(taskStatusOf(task), 'block');
    const blocked = await changeStatus(ctx, task, next, { ...task.context, blocked_reason: input.reason });
    const project = await resolveProject(ctx.tx, task.project_id);
    const values = await prepareItemValues(ctx, project, {
      item_type: 'decision',
      // Named by the task's short id, never its title: a copy of the title would outlive the redaction of a
      // capture promoted as this task (redaction follows promotions, not links).
      title: `Blocked: task ${shortId(task.chain_id)}`,
      body: input.reason,
      context: { blocked_task_id: task.chain_id },
      work_unit_id: unit.id,
      system_id: task.system_id ?? undefined,
    });
    const decision = await createItem(ctx, project, values, [{ type: 'blocks', to_chain_id: task.chain_id }]);
    await touchWorkUnit(ctx.tx, unit.id);
    ctx.audit({ project_id: task.project_id, target_kind: 'task', target_id: task.id, details: { from: task.status, to: next, decision_id: decision.id } });
    return writeAnswer(blocked, { decision_id: decision.id });
  },
});
