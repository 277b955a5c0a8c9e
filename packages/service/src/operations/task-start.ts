import { refuseSecondInProgress, taskStatusOf, taskTransition, workUnitTransition } from '@svc/domain';
import { inProgressTasks, touchWorkUnit } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, writeAnswer } from '../answers.js';
import { defineOperation } from '../operation.js';
import { changeStatus } from '../work/shared.js';
import { lockTaskAndUnit, scopeField, taskRef } from './task-shared.js';

export const taskStart = defineOperation({
  name: 'svc_task_start',
  surface: 'tool',
  title: 'Start a task',
  description:
    `Start a proposed (or resume a blocked) task. Refused while another task of its work unit is in progress. ${ITEM_ANSWER}.`,
  input: z.object({ task_id: taskRef, project_id: scopeField }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const { task, unit } = await lockTaskAndUnit(ctx, input.task_id, input.project_id);
    const next = taskTransition(taskStatusOf(task), 'start');
    workUnitTransition(unit.status, 'start_task', unit);
    refuseSecondInProgress(task.chain_id, await inProgressTasks(ctx.tx, unit.id));
    const started = await changeStatus(ctx, task, next);
    await touchWorkUnit(ctx.tx, unit.id);
    ctx.audit({ project_id: task.project_id, target_kind: 'task', target_id: task.id, details: { from: task.status, to: next } });
    return writeAnswer(started);
  },
});
