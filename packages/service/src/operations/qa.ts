import { parseIdRef, QA_COVERAGES, qaStatusOf, qaTransition } from '@svc/domain';
import { listQaChecks, resolveItem, resolveProject, } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, writeAnswer } from '../answers.js';
import { body, boundedLimit, idRef, limit, projectRef, title } from '../inputs.js';
import { createItem, prepareItemValues, resolveTargetChains } from '../items/write.js';
import { defineOperation, } from '../operation.js';
import { changeStatus, findWorkUnit, lockItemOfType, scope } from '../work/shared.js';

const qaRef = idRef('QA check');
const scopeField = projectRef.optional().describe('Scope ids to this project');

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

function decide<const N extends 'svc_qa_pass' | 'svc_qa_fail'>(name: N, trigger: 'pass' | 'fail') {
  return defineOperation({
    name,
    surface: 'tool',
    title: trigger === 'pass' ? 'Pass a QA check' : 'Fail a QA check',
    description: `Mark a pending QA check ${trigger === 'pass' ? 'passed' : 'failed'} (final), with an optional note. ${ITEM_ANSWER}.`,
    input: z.object({
      qa_id: qaRef,
      note: z.string().max(100_000).optional().describe('What was verified or what went wrong'),
      project_id: scopeField,
    }),
    kind: 'write',
    annotations: { destructiveHint: false, idempotentHint: false },
    async run(ctx, input) {
      const check = await lockItemOfType(ctx, input.qa_id, 'qa_check', await scope(ctx.tx, input.project_id), 'qa_id');
      const next = qaTransition(qaStatusOf(check), trigger);
      const note = input.note?.trim() || undefined;
      const decided = await changeStatus(ctx, check, next, note ? { ...check.context, note } : undefined);
      ctx.audit({ project_id: check.project_id, target_kind: 'qa_check', target_id: check.id, details: { to: next } });
      return writeAnswer(decided);
    },
  });
}

export const qaPass = decide('svc_qa_pass', 'pass');
export const qaFail = decide('svc_qa_fail', 'fail');
