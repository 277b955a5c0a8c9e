import { draftDecision, parseIdRef, refuseSecondInProgress, shortId, TASK_STATUSES, taskStatusOf, taskTransition, workUnitTransition } from '@svc/domain';
import { inProgressTasks, listTasks, lockHead, lockWorkUnit, resolveItem, resolveProject, touchWorkUnit } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, type WriteAnswer, writeAnswer } from '../answers.js';
import { body, boundedLimit, idRef, limit, projectRef, title } from '../inputs.js';
import { createItem, lockHeadForEdit, prepareItemValues, supersede } from '../items/write.js';
import { defineOperation, type WriteContext } from '../operation.js';
import { changeStatus, findWorkUnit, scope } from '../work/shared.js';

const taskRef = idRef('Task');
const scopeField = projectRef.optional().describe('Scope ids to this project');
const sortOrder = z.number().int().min(-1_000_000_000).max(1_000_000_000);

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

/** Lock the task's work unit first (it serialises starts in one unit), then the task itself. */
async function lockTaskAndUnit(ctx: WriteContext, taskId: string, projectRef: string | undefined) {
  const project = await scope(ctx.tx, projectRef);
  const { head } = await resolveItem(ctx.tx, parseIdRef(taskId, 'task_id'), { projectId: project?.id, itemType: 'task', kind: 'task' });
  const unit = await lockWorkUnit(ctx.tx, head.work_unit_id as string);
  const task = (await lockHead(ctx.tx, head.chain_id)) ?? head;
  return { task, unit };
}

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

export const taskDone = defineOperation({
  name: 'svc_task_done',
  surface: 'tool',
  title: 'Finish a task',
  description:
    `Finish a task in progress, with an optional outcome summary. ${ITEM_ANSWER}; with propose_decision also ` +
    'draft_decision: a decision drawn from the task, NOT saved (save with svc_item_upsert only if the human wants ' +
    'it), null if the task has no body or summary.',
  input: z.object({
    task_id: taskRef,
    summary: z.string().max(100_000).optional().describe('Outcome of the task'),
    propose_decision: z.boolean().optional().describe('Also return a draft decision (never stored); default false'),
    project_id: scopeField,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const { task, unit } = await lockTaskAndUnit(ctx, input.task_id, input.project_id);
    const next = taskTransition(taskStatusOf(task), 'done');
    const summary = input.summary?.trim() || undefined;
    const done = await changeStatus(ctx, task, next, summary ? { ...task.context, summary } : undefined);
    await touchWorkUnit(ctx.tx, unit.id);
    ctx.audit({ project_id: task.project_id, target_kind: 'task', target_id: task.id, details: { from: task.status, to: next } });
    return writeAnswer(done, input.propose_decision ? { draft_decision: draftDecision(task, summary) } : {});
  },
});

export const taskBlock = defineOperation({
  name: 'svc_task_block',
  surface: 'tool',
  title: 'Block a task',
  description:
    'Block a task in progress, giving the reason: a decision documenting it is created, linked (decision blocks ' +
    `task). Resume with svc_task_start. ${ITEM_ANSWER} and decision_id.`,
  input: z.object({
    task_id: taskRef,
    reason: z.string().trim().min(1).max(100_000).describe('Why the task is blocked'),
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
