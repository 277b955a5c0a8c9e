import { resolveProject } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, writeAnswer } from '../answers.js';
import { body, idRef, title } from '../inputs.js';
import { createItem, prepareItemValues } from '../items/write.js';
import { defineOperation } from '../operation.js';
import { findWorkUnit, scope } from '../work/shared.js';
import { scopeField, sortOrder } from './task-shared.js';

export const taskAdd = defineOperation({
  name: 'svc_task_add',
  surface: 'tool',
  title: 'Add a task',
  description: `Add a proposed task to an open work unit, after the last task unless sort_order is given. ${ITEM_ANSWER}.`,
  input: z.object({
    work_unit_id: idRef('Work unit'),
    title,
    body: body.optional(),
    sort_order: sortOrder.optional().describe('Position in the work unit (default: after the last task)'),
    project_id: scopeField,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const scoped = await scope(ctx.tx, input.project_id);
    const unit = await findWorkUnit(ctx.tx, input.work_unit_id, scoped);
    const project = scoped ?? (await resolveProject(ctx.tx, unit.project_id));
    const values = await prepareItemValues(ctx, project, {
      item_type: 'task',
      title: input.title,
      body: input.body ?? '',
      context: input.sort_order !== undefined ? { sort_order: input.sort_order } : {},
      work_unit_id: unit.id,
    });
    const task = await createItem(ctx, project, values);
    ctx.audit({ project_id: project.id, target_kind: 'task', target_id: task.id });
    return writeAnswer(task);
  },
});
