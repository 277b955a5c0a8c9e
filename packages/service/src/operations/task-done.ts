import { draftDecision, taskStatusOf, taskTransition } from '@svc/domain';
import { touchWorkUnit } from '@svc/store';
import { z } from 'zod';
import { ITEM_ANSWER, writeAnswer } from '../answers.js';
import { MAX_NOTE } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { changeStatus } from '../work/shared.js';
import { lockTaskAndUnit, scopeField, taskRef } from './task-shared.js';

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
    summary: z.string().max(MAX_NOTE).optional().describe('Outcome of the task'),
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
