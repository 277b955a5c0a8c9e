import { SvcError } from './errors.js';
import { shortId } from './ids.js';
import { QA_STATUSES, type QaStatus, TASK_STATUSES, type TaskStatus } from './item-types.js';

/**
 * Every state machine of svc, each as a table a reader can check against SPEC.md ("States and transitions"):
 * for every state and every event, the next state or a refusal (its reason in words). The tables are typed
 * as total maps, so a new state or event breaks the build until every cell is filled; states.test.ts walks
 * every cell. The transition functions only look a cell up and word the refusal; conditions that depend on
 * other records (one task in progress per work unit, closing with a task in progress) are the guards below
 * the tables. Store row types carry these unions, so no caller casts a status (decision 0034).
 */

/** A cell that refuses its event; `refused` is the reason, shown to the caller. */
interface Refused<R = string> {
  readonly refused: R;
}

/** A state machine as a table: states × events → next state or refusal. */
export type StateTable<S extends string, E extends string, R = string, N extends string = S> = {
  readonly [state in S]: { readonly [event in E]: N | Refused<R> };
};

const no = <R>(reason: R): Refused<R> => ({ refused: reason });

function isRefused<N extends string, R>(cell: N | Refused<R>): cell is Refused<R> {
  return typeof cell !== 'string';
}

/** The cell of a table, or undefined for a state the table does not know (a row written outside svc). */
function cell<S extends string, E extends string, R, N extends string>(table: StateTable<S, E, R, N>, state: S, event: E): N | Refused<R> | undefined {
  return Object.hasOwn(table, state) ? table[state][event] : undefined;
}

function refuse(kind: string, state: string, trigger: string, hint: string): SvcError {
  return new SvcError('refused_transition', `cannot ${trigger} a ${kind} that is ${state}${hint ? `: ${hint}` : ''}`, {
    state,
    trigger,
  });
}

/** How a record is named in a refusal: its short id, in backticks. */
const ref = (id: string): string => `\`${shortId(id)}\``;

// ---------------------------------------------------------------------------------------------------------
// Task (SPEC: Task). States proposed, in_progress, blocked, done; a new task is proposed (svc_task_add).
// svc's own choice where SPEC is silent ("Transitions out of blocked: not shown"): a blocked task resumes with
// svc_task_start (under the same one-in-progress rule), and nothing else leaves blocked.

export type TaskTrigger = 'start' | 'done' | 'block' | 'edit';
export const TASK_TRIGGERS: readonly TaskTrigger[] = ['start', 'done', 'block', 'edit'];

const FINISHED = 'a done task is finished (it can still be edited)';

export const TASK_TABLE: StateTable<TaskStatus, TaskTrigger> = {
  //             svc_task_start                          svc_task_done                                    svc_task_block                                       svc_task_edit
  proposed:    { start: 'in_progress',                   done: no('start it first with svc_task_start'),  block: no('only a task in progress can be blocked'), edit: 'proposed' },
  in_progress: { start: no('it is already in progress'), done: 'done',                                    block: 'blocked',                                    edit: 'in_progress' },
  blocked:     { start: 'in_progress',                   done: no('resume it with svc_task_start first'), block: no('it is already blocked'),                  edit: 'blocked' },
  done:        { start: no(FINISHED),                    done: no(FINISHED),                              block: no(FINISHED),                                 edit: 'done' },
};

/** The state a task moves to, or a refusal naming its current state. */
export function taskTransition(state: TaskStatus, trigger: TaskTrigger): TaskStatus {
  const next = cell(TASK_TABLE, state, trigger);
  // Unreachable for well-typed input; guards data written outside the service.
  if (next === undefined) throw refuse('task', String(state), trigger, 'unknown state');
  if (isRefused(next)) throw refuse('task', state, trigger, next.refused);
  return next;
}

/** A new task is proposed: its outcome and block reason are attached by svc_task_done and svc_task_block, never given. */
export function checkNewTaskContext(context: Record<string, unknown>, prefix = ''): void {
  for (const [key, tool] of [
    ['summary', 'svc_task_done'],
    ['blocked_reason', 'svc_task_block'],
  ] as const) {
    if (context[key] === undefined) continue;
    throw new SvcError('refused_transition', `${prefix}context.${key}: a new task is proposed; ${key} is attached by ${tool}`, {
      field: `${prefix}context.${key}`,
      state: 'proposed',
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// QA check (SPEC: QA check). A new check is pending (svc_qa_add); passed and failed are terminal.

export type QaTrigger = 'pass' | 'fail' | 'edit';
export const QA_TRIGGERS: readonly QaTrigger[] = ['pass', 'fail', 'edit'];

const DECIDED = 'a decided check is final; add a new check to verify again';

export const QA_TABLE: StateTable<QaStatus, QaTrigger> = {
  //         svc_qa_pass        svc_qa_fail        svc_item_upsert (wording can be corrected; the verdict stays)
  pending: { pass: 'passed',    fail: 'failed',    edit: 'pending' },
  passed:  { pass: no(DECIDED), fail: no(DECIDED), edit: 'passed' },
  failed:  { pass: no(DECIDED), fail: no(DECIDED), edit: 'failed' },
};

export function qaTransition(state: QaStatus, trigger: QaTrigger): QaStatus {
  const next = cell(QA_TABLE, state, trigger);
  if (next === undefined) throw refuse('QA check', String(state), trigger, 'unknown state');
  if (isRefused(next)) throw refuse('QA check', state, trigger, next.refused);
  return next;
}

/**
 * What a QA check's context may say in `status` (the status an edit or creation leaves it in): a pending check
 * has no verdict, so no note; a decided one keeps its verdict (decision 0016): what it verified (targets,
 * coverage) and its note stay as `before` has them, and changing any is refused naming the field.
 */
export function checkQaContext(status: QaStatus, context: Record<string, unknown>, before: Record<string, unknown> | undefined, prefix = ''): void {
  if (status === 'pending') {
    if (context.note === undefined) return;
    throw new SvcError('refused_transition', `${prefix}context.note: a pending check has no verdict; the note is attached by svc_qa_pass or svc_qa_fail`, {
      field: `${prefix}context.note`,
      state: status,
    });
  }
  if (!before) return;
  const canonical = (value: unknown) => JSON.stringify(Array.isArray(value) ? [...value].sort() : (value ?? null));
  for (const key of new Set([...Object.keys(before), ...Object.keys(context)])) {
    const was = key === 'target_task_ids' || key === 'target_item_ids' ? (before[key] ?? []) : before[key];
    if (canonical(was) === canonical(context[key])) continue;
    throw new SvcError(
      'refused_transition',
      `${prefix}context.${key}: the check is ${status}, and a verdict stays; only its title and body can be corrected (add a new check to verify something else)`,
      { field: `${prefix}context.${key}`, state: status },
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// Work unit (SPEC: Work unit). A new unit is open (svc_work_open). The states are svc's own (SPEC leaves
// them unnamed): open and closed. add_task is a task created in the unit, start_task a task of it started.

export const WORK_UNIT_STATUSES = ['open', 'closed'] as const;
export type WorkUnitStatus = (typeof WORK_UNIT_STATUSES)[number];
export type WorkUnitTrigger = 'close' | 'reopen' | 'add_task' | 'start_task';
export const WORK_UNIT_TRIGGERS: readonly WorkUnitTrigger[] = ['close', 'reopen', 'add_task', 'start_task'];

export const WORK_UNIT_TABLE: StateTable<WorkUnitStatus, WorkUnitTrigger> = {
  //        svc_work_close                     work_reopen                       svc_task_add / upsert                                   svc_task_start
  open:   { close: 'closed',                   reopen: no('it is already open'), add_task: 'open',                                       start_task: 'open' },
  closed: { close: no('it is already closed'), reopen: 'open',                   add_task: no('reopen it first with `svc work reopen`'), start_task: no('reopen it with `svc work reopen` first') },
};

/** The words a refusal uses for each trigger: "cannot add a task to a work unit that is closed". */
const WORK_UNIT_VERB: Record<WorkUnitTrigger, string> = {
  close: 'close',
  reopen: 'reopen',
  add_task: 'add a task to',
  start_task: 'start a task in',
};

/**
 * The state a work unit moves to. `unit` names it in a refusal: its id in the words of a task start, and with
 * the input field that named it (a task's work_unit_id) in the details of a task added to it.
 */
export function workUnitTransition(state: WorkUnitStatus, trigger: WorkUnitTrigger, unit?: { id: string; field?: string }): WorkUnitStatus {
  const next = cell(WORK_UNIT_TABLE, state, trigger);
  if (next === undefined) throw refuse('work unit', String(state), WORK_UNIT_VERB[trigger], 'unknown state');
  if (!isRefused(next)) return next;
  if (trigger === 'start_task') {
    throw new SvcError('refused_transition', `work unit ${unit === undefined ? '' : `${ref(unit.id)} `}is ${state}; ${next.refused}`, { state });
  }
  const refusal = refuse('work unit', state, WORK_UNIT_VERB[trigger], next.refused);
  if (unit?.field === undefined) throw refusal;
  throw new SvcError(refusal.code, refusal.message, { ...refusal.details, field: unit.field, work_unit_id: unit.id });
}

/** A task as the guards name it. */
interface RunningTask {
  id: string;
  chain_id: string;
  title: string;
}

/**
 * The condition of svc_task_start (SPEC: "no other task of the work unit is in_progress"), given the unit's
 * tasks in progress, read under the unit's row lock.
 */
export function refuseSecondInProgress(taskChainId: string, running: readonly RunningTask[]): void {
  const other = running.find((t) => t.chain_id !== taskChainId);
  if (!other) return;
  throw new SvcError('refused_transition', `another task of this work unit is in progress: ${other.title} (${ref(other.id)}); finish or block it first`, {
    state: 'in_progress',
    other_task_id: other.id,
  });
}

/** The condition of svc_work_close (SPEC: "refused when a task is in_progress, unless force is true"). */
export function refuseCloseWhileRunning(unitId: string, running: readonly RunningTask[], force: boolean): void {
  const first = running[0];
  if (!first || force) return;
  throw new SvcError(
    'refused_transition',
    `work unit ${ref(unitId)} has a task in progress: ${first.title} (${ref(first.id)}); finish or block it, or pass force: true`,
    { state: 'in_progress_task', task_id: first.id },
  );
}

// ---------------------------------------------------------------------------------------------------------
// Capture review_state (SPEC: Capture review_state). A new capture is in inbox (svc_capture_add). SPEC
// names review, discarded and redacted; inbox and promoted are svc's own. set_state moves between inbox,
// review and discarded only; redacted and promoted are reached by their own tools, and are refused as a
// set_state target before any state is looked at (captureMoveEvent).

export const CAPTURE_STATES = ['inbox', 'review', 'promoted', 'discarded', 'redacted'] as const;
export type CaptureState = (typeof CAPTURE_STATES)[number];
/** The states svc_capture_set_state may move a capture to. */
export const CAPTURE_MOVABLE_STATES = ['inbox', 'review', 'discarded'] as const;
type CaptureMovableState = (typeof CAPTURE_MOVABLE_STATES)[number];
export type CaptureEvent = 'annotate' | `move_to_${CaptureMovableState}` | 'discard' | 'redact' | 'promote';
export const CAPTURE_EVENTS: readonly CaptureEvent[] = ['annotate', 'move_to_inbox', 'move_to_review', 'move_to_discarded', 'discard', 'redact', 'promote'];
/** Why a capture refuses an event: it is redacted, it was promoted, or (redact) it is redacted already. */
export type CaptureRefusal = 'redacted' | 'promoted' | 'already_redacted';

const R = no<CaptureRefusal>('redacted');
const P = no<CaptureRefusal>('promoted');

export const CAPTURE_TABLE: StateTable<CaptureState, CaptureEvent, CaptureRefusal> = {
  //           annotate               set_state inbox         set_state review          set_state discarded             discard               redact                          promote
  inbox:     { annotate: 'inbox',     move_to_inbox: 'inbox', move_to_review: 'review', move_to_discarded: 'discarded', discard: 'discarded', redact: 'redacted',             promote: 'promoted' },
  review:    { annotate: 'review',    move_to_inbox: 'inbox', move_to_review: 'review', move_to_discarded: 'discarded', discard: 'discarded', redact: 'redacted',             promote: 'promoted' },
  discarded: { annotate: 'discarded', move_to_inbox: 'inbox', move_to_review: 'review', move_to_discarded: 'discarded', discard: 'discarded', redact: 'redacted',             promote: 'promoted' },
  promoted:  { annotate: 'promoted',  move_to_inbox: P,       move_to_review: P,        move_to_discarded: P,           discard: P,           redact: 'redacted',             promote: P },
  redacted:  { annotate: R,           move_to_inbox: R,       move_to_review: R,        move_to_discarded: R,           discard: R,           redact: no('already_redacted'), promote: R },
};

/** What a refusal says the capture cannot be. */
const CAPTURE_ACTION: Record<CaptureEvent, string> = {
  annotate: 'annotated',
  move_to_inbox: 'moved to inbox',
  move_to_review: 'moved to review',
  move_to_discarded: 'moved to discarded',
  discard: 'discarded',
  redact: 'redacted',
  promote: 'promoted',
};

export interface CaptureSubject {
  id: string;
  review_state: CaptureState;
  promoted_item_id: string | null;
}

/** The review state a capture moves to, or a refusal naming the capture (and the item it was promoted to). */
export function captureTransition(capture: CaptureSubject, event: CaptureEvent): CaptureState {
  const next = cell(CAPTURE_TABLE, capture.review_state, event);
  if (next === undefined) throw refuse('capture', String(capture.review_state), event, 'unknown state');
  if (!isRefused(next)) return next;
  const id = shortId(capture.id);
  switch (next.refused) {
    case 'redacted':
      throw new SvcError('refused_transition', `capture ${id} is redacted; a redacted capture cannot be ${CAPTURE_ACTION[event]}`, { state: 'redacted' });
    case 'promoted':
      throw new SvcError(
        'refused_transition',
        `capture ${id} was already promoted to item ${shortId(capture.promoted_item_id ?? '')}; it cannot be ${CAPTURE_ACTION[event]}`,
        { state: 'promoted', item_id: capture.promoted_item_id },
      );
    case 'already_redacted':
      throw new SvcError('refused_transition', `capture ${id} is already redacted`, { state: 'redacted' });
  }
}

/**
 * svc_capture_set_state's review_state as an event, refused (invalid_input, whatever the capture's state)
 * when it is no state or one that has its own tool (SPEC: "the redacted state must not be set this way").
 */
export function captureMoveEvent(target: string): CaptureEvent {
  switch (target) {
    case 'inbox':
    case 'review':
    case 'discarded':
      return `move_to_${target}`;
    case 'redacted':
      throw new SvcError('invalid_input', 'review_state: redacted is not set this way; use svc_capture_redact, which also removes the text', { field: 'review_state' });
    case 'promoted':
      throw new SvcError('invalid_input', 'review_state: promoted is not set this way; use svc_capture_promote, which creates the item', { field: 'review_state' });
    default:
      throw new SvcError('invalid_input', `review_state: '${target}' is not a state; use inbox, review or discarded`, { field: 'review_state' });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Glossary term (SPEC: "a glossary review queue exists"). A proposed term joins the queue; accept makes it
// expand searches; reject removes it and remembers it as rejected (its row goes, a rejection row stays).

export const GLOSSARY_TERM_STATUSES = ['proposed', 'accepted'] as const;
export type GlossaryTermStatus = (typeof GLOSSARY_TERM_STATUSES)[number];
export type GlossaryTermEvent = 'accept' | 'reject';
export const GLOSSARY_TERM_EVENTS: readonly GlossaryTermEvent[] = ['accept', 'reject'];

export const GLOSSARY_TERM_TABLE: StateTable<GlossaryTermStatus, GlossaryTermEvent, string, GlossaryTermStatus | 'rejected'> = {
  //          glossary_term_accept        glossary_term_reject
  proposed: { accept: 'accepted',         reject: 'rejected' },
  accepted: { accept: no('not proposed'), reject: no('not proposed') },
};

export function glossaryTermTransition(term: { term: string; status: GlossaryTermStatus }, event: GlossaryTermEvent): GlossaryTermStatus | 'rejected' {
  const next = cell(GLOSSARY_TERM_TABLE, term.status, event);
  if (next === undefined || isRefused(next)) {
    throw new SvcError('refused_transition', `term '${term.term}' is ${term.status}, not proposed`, { state: term.status });
  }
  return next;
}

// How a term enters a group (glossary_term_propose, glossary_term_add): from nothing, or after the group
// rejected the same normalized term. An assistant's proposal of a rejected term is refused; an operator's add
// overrides the rejection (the rejection row goes).

export const GLOSSARY_ENTRY_STATES = ['absent', 'rejected'] as const;
export type GlossaryEntryState = (typeof GLOSSARY_ENTRY_STATES)[number];
export type GlossaryEntryEvent = 'propose' | 'add';
export const GLOSSARY_ENTRY_EVENTS: readonly GlossaryEntryEvent[] = ['propose', 'add'];

export const GLOSSARY_ENTRY_TABLE: StateTable<GlossaryEntryState, GlossaryEntryEvent, string, GlossaryTermStatus> = {
  //          glossary_term_propose   glossary_term_add
  absent:   { propose: 'proposed',    add: 'accepted' },
  rejected: { propose: no('rejected'), add: 'accepted' },
};

export function glossaryEntryTransition(term: string, group: string, state: GlossaryEntryState, event: GlossaryEntryEvent): GlossaryTermStatus {
  const next = cell(GLOSSARY_ENTRY_TABLE, state, event);
  if (next === undefined || isRefused(next)) {
    throw new SvcError('refused_transition', `term '${term}' was rejected for group '${group}'; an operator may still add it with \`glossary term add\``, {
      state: 'rejected',
    });
  }
  return next;
}

// ---------------------------------------------------------------------------------------------------------
// Item deletion (item_delete, item_restore: operator commands) and idea redaction (svc_idea_redact). Both
// are flags on the row (deleted_at, redacted), named here as states.

export const ITEM_LIFECYCLE_STATES = ['active', 'deleted'] as const;
export type ItemLifecycleState = (typeof ITEM_LIFECYCLE_STATES)[number];
export type ItemLifecycleEvent = 'delete' | 'restore';
export const ITEM_LIFECYCLE_EVENTS: readonly ItemLifecycleEvent[] = ['delete', 'restore'];

export const ITEM_LIFECYCLE_TABLE: StateTable<ItemLifecycleState, ItemLifecycleEvent> = {
  //         item_delete            item_restore
  active:  { delete: 'deleted',     restore: no('not deleted') },
  deleted: { delete: no('deleted'), restore: 'active' },
};

export function itemLifecycleTransition(item: { id: string; deleted_at: string | null }, event: ItemLifecycleEvent): ItemLifecycleState {
  const state: ItemLifecycleState = item.deleted_at === null ? 'active' : 'deleted';
  const next = cell(ITEM_LIFECYCLE_TABLE, state, event);
  if (next === undefined) throw refuse('item', state, event, 'unknown state');
  if (isRefused(next)) throw new SvcError('refused_transition', `item ${shortId(item.id)} is already ${next.refused}`, { item_id: item.id, state });
  return next;
}

export const IDEA_STATES = ['active', 'redacted'] as const;
export type IdeaState = (typeof IDEA_STATES)[number];
export type IdeaEvent = 'redact';
export const IDEA_EVENTS: readonly IdeaEvent[] = ['redact'];

export const IDEA_TABLE: StateTable<IdeaState, IdeaEvent> = {
  //          svc_idea_redact
  active:   { redact: 'redacted' },
  redacted: { redact: no('already redacted') },
};

export function ideaTransition(idea: { id: string; redacted: boolean }, event: IdeaEvent): IdeaState {
  const state: IdeaState = idea.redacted ? 'redacted' : 'active';
  const next = cell(IDEA_TABLE, state, event);
  if (next === undefined) throw refuse('idea', state, event, 'unknown state');
  if (isRefused(next)) throw new SvcError('refused_transition', `idea ${shortId(idea.id)} is ${next.refused}`, { state });
  return next;
}

// ---------------------------------------------------------------------------------------------------------
// Reading a status. An item's status is TaskStatus | QaStatus | null by its type (the items_status_fits_type
// constraint); these narrow it where a transition needs one machine's states. A status that fits neither
// is a broken invariant, not a refusal: a plain error, which the runner reports as internal_error.

function isTaskStatus(value: unknown): value is TaskStatus {
  return TASK_STATUSES.some((s) => s === value);
}

function isQaStatus(value: unknown): value is QaStatus {
  return QA_STATUSES.some((s) => s === value);
}

export function taskStatusOf(item: { id: string; status: string | null }): TaskStatus {
  if (isTaskStatus(item.status)) return item.status;
  throw new Error(`task ${item.id} has status ${String(item.status)}, which is not a task status`);
}

export function qaStatusOf(item: { id: string; status: string | null }): QaStatus {
  if (isQaStatus(item.status)) return item.status;
  throw new Error(`QA check ${item.id} has status ${String(item.status)}, which is not a QA status`);
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
