import { QA_COVERAGES } from '@svc/domain';
import { resolveProject } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, writeAnswer } from '../answers.js';
import { body, projectRef, title } from '../inputs.js';
import { createItem, prepareItemValues, resolveTargetChains } from '../items/write.js';
import { defineOperation } from '../operation.js';

export const qaAdd = defineOperation({
  name: 'svc_qa_add',
  surface: 'tool',
  title: 'Add a QA check',
  description:
    'Add a pending QA check: what must be verified, and the tasks and items it verifies (findable later from ' +
    `either side). ${ITEM_ANSWER}.`,
  input: z.object({
    project_id: projectRef,
    title,
    body: body.optional(),
    coverage: z.enum(QA_COVERAGES).optional().describe('Who verifies (default human_only)'),
    target_task_ids: z.array(z.string().max(100)).max(100).optional().describe('Tasks this check verifies (ids or prefixes)'),
    target_item_ids: z.array(z.string().max(100)).max(100).optional().describe('Items this check verifies (ids or prefixes)'),
    work_unit_id: z.string().max(100).optional().describe('Work unit the check belongs to (id or prefix)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const values = await prepareItemValues(ctx, project, {
      item_type: 'qa_check',
      title: input.title,
      body: input.body ?? '',
      context: {
        ...(input.coverage ? { coverage: input.coverage } : {}),
        // Resolved here so that an unknown target is named by this tool's own parameter.
        target_task_ids: await resolveTargetChains(ctx, project, input.target_task_ids ?? [], 'target_task_ids', 'task'),
        target_item_ids: await resolveTargetChains(ctx, project, input.target_item_ids ?? [], 'target_item_ids'),
      },
      work_unit_id: input.work_unit_id,
    });
    const check = await createItem(ctx, project, values);
    ctx.audit({ project_id: project.id, target_kind: 'qa_check', target_id: check.id });
    return writeAnswer(check);
  },
});
