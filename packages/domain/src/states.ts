import { SvcError } from './errors.js';
import type { QaStatus, TaskStatus } from './item-types.js';

/**
 * The state machines of tasks, QA checks and work units. Each transition function is an exhaustive switch
 * without a default: adding a state breaks the build until every trigger has decided what it does there.
 */
export type TaskTrigger = 'start' | 'done' | 'block' | 'edit';
export type QaTrigger = 'pass' | 'fail' | 'edit';
export type WorkUnitStatus = 'open' | 'closed';
export type WorkUnitTrigger = 'close' | 'reopen' | 'add_task';

export const TASK_TRIGGERS: readonly TaskTrigger[] = ['start', 'done', 'block', 'edit'];
export const QA_TRIGGERS: readonly QaTrigger[] = ['pass', 'fail', 'edit'];
export const WORK_UNIT_STATUSES: readonly WorkUnitStatus[] = ['open', 'closed'];
export const WORK_UNIT_TRIGGERS: readonly WorkUnitTrigger[] = ['close', 'reopen', 'add_task'];

const TASK_TOOL: Record<TaskTrigger, string> = {
  start: 'svc_task_start',
  done: 'svc_task_done',
  block: 'svc_task_block',
  edit: 'svc_task_edit',
};

function refuse(kind: string, state: string, trigger: string, hint: string): SvcError {
  return new SvcError('refused_transition', `cannot ${trigger} a ${kind} that is ${state}${hint ? `: ${hint}` : ''}`, {
    state,
    trigger,
  });
}

/** The state a task moves to, or a refusal naming its current state. */
export function taskTransition(state: TaskStatus, trigger: TaskTrigger): TaskStatus {
  switch (state) {
    case 'proposed':
      switch (trigger) {
        case 'start':
          return 'in_progress';
        case 'done':
          throw refuse('task', state, trigger, `start it first with ${TASK_TOOL.start}`);
        case 'block':
          throw refuse('task', state, trigger, 'only a task in progress can be blocked');
        case 'edit':
          return state;
      }
      break;
    case 'in_progress':
      switch (trigger) {
        case 'start':
          throw refuse('task', state, trigger, 'it is already in progress');
        case 'done':
          return 'done';
        case 'block':
          return 'blocked';
        case 'edit':
          return state;
      }
      break;
    case 'blocked':
      switch (trigger) {
        case 'start':
          return 'in_progress';
        case 'done':
          throw refuse('task', state, trigger, `resume it with ${TASK_TOOL.start} first`);
        case 'block':
          throw refuse('task', state, trigger, 'it is already blocked');
        case 'edit':
          return state;
      }
      break;
    case 'done':
      switch (trigger) {
        case 'start':
        case 'done':
        case 'block':
          throw refuse('task', state, trigger, 'a done task is finished (it can still be edited)');
        case 'edit':
          return state;
      }
      break;
  }
  // Unreachable for well-typed input; guards data written outside the service.
  throw refuse('task', String(state), trigger, 'unknown state');
}

export function qaTransition(state: QaStatus, trigger: QaTrigger): QaStatus {
  switch (state) {
    case 'pending':
      switch (trigger) {
        case 'pass':
          return 'passed';
        case 'fail':
          return 'failed';
        case 'edit':
          return state;
      }
      break;
    case 'passed':
    case 'failed':
      switch (trigger) {
        case 'pass':
        case 'fail':
          throw refuse('QA check', state, trigger, 'a decided check is final; add a new check to verify again');
        case 'edit':
          // Wording can be corrected; the verdict stays.
          return state;
      }
      break;
  }
  throw refuse('QA check', String(state), trigger, 'unknown state');
}

export function workUnitTransition(state: WorkUnitStatus, trigger: WorkUnitTrigger): WorkUnitStatus {
  switch (state) {
    case 'open':
      switch (trigger) {
        case 'close':
          return 'closed';
        case 'reopen':
          throw refuse('work unit', state, trigger, 'it is already open');
        case 'add_task':
          return state;
      }
      break;
    case 'closed':
      switch (trigger) {
        case 'close':
          throw refuse('work unit', state, trigger, 'it is already closed');
        case 'reopen':
          return 'open';
        case 'add_task':
          throw refuse('work unit', state, 'add a task to', 'reopen it first with `svc work reopen`');
      }
      break;
  }
  throw refuse('work unit', String(state), trigger, 'unknown state');
}

export interface DraftDecision {
  item_type: 'decision';
  title: string;
  body: string;
  context: { source_task_id: string };
  work_unit_id: string | null;
}

/**
 * The draft decision svc_task_done may propose: derived from the task's title, body and outcome summary,
 * never stored. No draft when the task has neither body nor summary (nothing to decide from).
 */
export function draftDecision(task: { id: string; title: string; body: string; work_unit_id: string | null }, summary: string | undefined): DraftDecision | null {
  const body = task.body.trim();
  const outcome = summary?.trim() ?? '';
  if (body === '' && outcome === '') return null;
  const parts = [outcome !== '' ? `Outcome: ${outcome}` : '', body !== '' ? `Context: ${body}` : ''].filter((p) => p !== '');
  return {
    item_type: 'decision',
    title: `Decision from task: ${task.title}`.slice(0, 1000),
    body: parts.join('\n\n'),
    context: { source_task_id: task.id },
    work_unit_id: task.work_unit_id,
  };
}
