import { TASK_STATUSES } from '@svc/domain';
import { listTasks } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, idRef, limit, } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { findWorkUnit, scope } from '../work/shared.js';
import { scopeField } from './task-shared.js';

export const taskList = defineOperation({
  name: 'svc_task_list',
  surface: 'tool',
  title: 'List tasks',
  description: 'List the current tasks of a work unit ordered by sort_order, optionally only one status. Returns {tasks, truncated}.',
  input: z.object({
    work_unit_id: idRef('Work unit'),
    status: z.enum(TASK_STATUSES).optional().describe('Only tasks in this state'),
    project_id: scopeField,
    limit,
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const unit = await findWorkUnit(ctx.db, input.work_unit_id, await scope(ctx.db, input.project_id));
    const max = boundedLimit(input.limit);
    const tasks = await listTasks(ctx.db, [unit.id], input.status, max);
    return { tasks: tasks.slice(0, max), truncated: tasks.length > max };
  },
});
