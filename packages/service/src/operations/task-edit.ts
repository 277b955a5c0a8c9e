import { parseIdRef } from '@svc/domain';
import { resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, type WriteAnswer, writeAnswer } from '../answers.js';
import { body, title } from '../inputs.js';
import { lockHeadForEdit, prepareItemValues, supersede } from '../items/write.js';
import { defineOperation } from '../operation.js';
import { scope } from '../work/shared.js';
import { scopeField, sortOrder, taskRef } from './task-shared.js';

export const taskEdit = defineOperation({
  name: 'svc_task_edit',
  surface: 'tool',
  title: 'Edit a task',
  description:
    'Edit a task\'s title, body or sort_order: a new version supersedes the current one, status kept (done tasks ' +
    'too). body null clears the body ("" or omitted keeps it). task_id must be the current version, else `conflict` ' +
    `names it. No fields: no change. ${ITEM_ANSWER}.`,
  input: z.object({
    task_id: taskRef,
    title: title.optional(),
    body: body.nullable().optional().describe('New body text (markdown allowed); null clears it'),
    sort_order: sortOrder.optional().describe('New position in the work unit'),
    project_id: scopeField,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input): Promise<WriteAnswer> {
    const project = await scope(ctx.tx, input.project_id);
    const { matched_id, head } = await resolveItem(ctx.tx, parseIdRef(input.task_id, 'task_id'), {
      projectId: project?.id,
      itemType: 'task',
      kind: 'task',
    });
    if (input.title === undefined && input.body === undefined && input.sort_order === undefined) return writeAnswer(head);
    const locked = await lockHeadForEdit(ctx, head.chain_id, matched_id);
    const owner = project ?? (await resolveProject(ctx.tx, locked.project_id));
    const values = await prepareItemValues(ctx, owner, {
      item_type: 'task',
      title: input.title ?? locked.title,
      body: input.body === null ? '' : (input.body ?? locked.body),
      context: input.sort_order !== undefined ? { sort_order: input.sort_order } : {},
      work_unit_id: locked.work_unit_id ?? undefined,
      system_id: locked.system_id ?? undefined,
    }, '', locked);
    const { item } = await supersede(ctx, owner, locked, values);
    ctx.audit({ project_id: owner.id, target_kind: 'task', target_id: item.id, details: { supersedes_id: locked.id } });
    return writeAnswer(item);
  },
});
