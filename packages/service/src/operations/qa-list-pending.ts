import { parseIdRef } from '@svc/domain';
import { listQaChecks, resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit, projectRef, } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { findWorkUnit } from '../work/shared.js';

export const qaListPending = defineOperation({
  name: 'svc_qa_list_pending',
  surface: 'tool',
  title: 'List pending QA checks',
  description:
    'List pending QA checks of a project, optionally only those verifying a task or an item, or of a work unit ' +
    '(or verifying its tasks). Returns {qa_checks, truncated}.',
  input: z.object({
    project_id: projectRef,
    task_id: z.string().max(100).optional().describe('Only checks targeting this task'),
    item_id: z.string().max(100).optional().describe('Only checks targeting this item'),
    work_unit_id: z.string().max(100).optional().describe('Only checks of this work unit or its tasks'),
    limit,
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    const task = input.task_id
      ? (await resolveItem(ctx.db, parseIdRef(input.task_id, 'task_id'), { projectId: project.id, itemType: 'task', kind: 'task' })).head
      : undefined;
    const item = input.item_id
      ? (await resolveItem(ctx.db, parseIdRef(input.item_id, 'item_id'), { projectId: project.id })).head
      : undefined;
    const unit = input.work_unit_id ? await findWorkUnit(ctx.db, input.work_unit_id, project) : undefined;
    const max = boundedLimit(input.limit);
    const checks = await listQaChecks(
      ctx.db,
      { project_id: project.id, status: 'pending', task_chain_id: task?.chain_id, item_chain_id: item?.chain_id, work_unit_id: unit?.id },
      max,
    );
    return { qa_checks: checks.slice(0, max), truncated: checks.length > max };
  },
});
