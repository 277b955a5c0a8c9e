import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import { QA_STATUSES, TASK_STATUSES } from './item-types.js';
import {
  CAPTURE_EVENTS,
  CAPTURE_STATES,
  CAPTURE_TABLE,
  type CaptureState,
  captureMoveEvent,
  captureTransition,
  draftDecision,
  GLOSSARY_ENTRY_EVENTS,
  GLOSSARY_ENTRY_STATES,
  GLOSSARY_ENTRY_TABLE,
  glossaryEntryTransition,
  checkNewTaskContext,
  checkQaContext,
  GLOSSARY_TERM_EVENTS,
  GLOSSARY_TERM_STATUSES,
  GLOSSARY_TERM_TABLE,
  glossaryTermTransition,
  IDEA_EVENTS,
  IDEA_STATES,
  IDEA_TABLE,
  ideaTransition,
  ITEM_LIFECYCLE_EVENTS,
  ITEM_LIFECYCLE_STATES,
  ITEM_LIFECYCLE_TABLE,
  itemLifecycleTransition,
  QA_TABLE,
  QA_TRIGGERS,
  qaStatusOf,
  qaTransition,
  refuseCloseWhileRunning,
  refuseSecondInProgress,
  TASK_TABLE,
  TASK_TRIGGERS,
  taskTransition,
  taskStatusOf,
  WORK_UNIT_STATUSES,
  WORK_UNIT_TABLE,
  WORK_UNIT_TRIGGERS,
  workUnitTransition,
} from './states.js';

function outcome(fn: () => string): string {
  try {
    return fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).code).toBe('refused_transition');
    return `refused(${String((error as SvcError).details.state)})`;
  }
}

describe('task state machine', () => {
  const expected: Record<string, Record<string, string>> = {
    proposed: { start: 'in_progress', done: 'refused(proposed)', block: 'refused(proposed)', edit: 'proposed' },
    in_progress: { start: 'refused(in_progress)', done: 'done', block: 'blocked', edit: 'in_progress' },
    blocked: { start: 'in_progress', done: 'refused(blocked)', block: 'refused(blocked)', edit: 'blocked' },
    done: { start: 'refused(done)', done: 'refused(done)', block: 'refused(done)', edit: 'done' },
  };
  for (const state of TASK_STATUSES) {
    for (const trigger of TASK_TRIGGERS) {
      it(`${trigger} from ${state} → ${expected[state]?.[trigger]}`, () => {
        expect(outcome(() => taskTransition(state, trigger))).toBe(expected[state]?.[trigger]);
      });
    }
  }
  it('names the current state in the refusal message', () => {
    expect(() => taskTransition('done', 'start')).toThrow(/that is done/);
  });
});

describe('QA check state machine', () => {
  const expected: Record<string, Record<string, string>> = {
    pending: { pass: 'passed', fail: 'failed', edit: 'pending' },
    passed: { pass: 'refused(passed)', fail: 'refused(passed)', edit: 'passed' },
    failed: { pass: 'refused(failed)', fail: 'refused(failed)', edit: 'failed' },
  };
  for (const state of QA_STATUSES) {
    for (const trigger of QA_TRIGGERS) {
      it(`${trigger} from ${state} → ${expected[state]?.[trigger]}`, () => {
        expect(outcome(() => qaTransition(state, trigger))).toBe(expected[state]?.[trigger]);
      });
    }
  }
});

describe('work unit state machine', () => {
  const expected: Record<string, Record<string, string>> = {
    open: { close: 'closed', reopen: 'refused(open)', add_task: 'open', start_task: 'open' },
    closed: { close: 'refused(closed)', reopen: 'open', add_task: 'refused(closed)', start_task: 'refused(closed)' },
  };
  for (const state of WORK_UNIT_STATUSES) {
    for (const trigger of WORK_UNIT_TRIGGERS) {
      it(`${trigger} from ${state} → ${expected[state]?.[trigger]}`, () => {
        expect(outcome(() => workUnitTransition(state, trigger))).toBe(expected[state]?.[trigger]);
      });
    }
  }
});

describe('the tables are total: exactly their states, each with exactly their events', () => {
  const tables: [string, object, readonly string[], readonly string[]][] = [
    ['task', TASK_TABLE, TASK_STATUSES, TASK_TRIGGERS],
    ['QA check', QA_TABLE, QA_STATUSES, QA_TRIGGERS],
    ['work unit', WORK_UNIT_TABLE, WORK_UNIT_STATUSES, WORK_UNIT_TRIGGERS],
    ['capture', CAPTURE_TABLE, CAPTURE_STATES, CAPTURE_EVENTS],
    ['glossary term', GLOSSARY_TERM_TABLE, GLOSSARY_TERM_STATUSES, GLOSSARY_TERM_EVENTS],
    ['glossary entry', GLOSSARY_ENTRY_TABLE, GLOSSARY_ENTRY_STATES, GLOSSARY_ENTRY_EVENTS],
    ['item lifecycle', ITEM_LIFECYCLE_TABLE, ITEM_LIFECYCLE_STATES, ITEM_LIFECYCLE_EVENTS],
    ['idea', IDEA_TABLE, IDEA_STATES, IDEA_EVENTS],
  ];
  for (const [name, table, states, events] of tables) {
    it(name, () => {
      expect(Object.keys(table).sort()).toEqual([...states].sort());
      for (const row of Object.values(table)) expect(Object.keys(row).sort()).toEqual([...events].sort());
    });
  }
});

describe('work unit refusals', () => {
  it('names the unit when a task of a closed unit is started', () => {
    expect(() => workUnitTransition('closed', 'start_task', { id: '0123456789abcdef' })).toThrow(
      'work unit `01234567` is closed; reopen it with `svc work reopen` first',
    );
  });
  it('names the field and the unit when a task is added to a closed unit', () => {
    try {
      workUnitTransition('closed', 'add_task', { id: 'u1', field: 'work_unit_id' });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'refused_transition', details: { state: 'closed', field: 'work_unit_id', work_unit_id: 'u1' } });
      expect((error as Error).message).toBe('cannot add a task to a work unit that is closed: reopen it first with `svc work reopen`');
    }
  });
  it('refuses a second task in progress, and a close while one runs unless forced', () => {
    const running = [{ id: 'aaaaaaaa-1', chain_id: 'c1', title: 'Running' }];
    expect(() => refuseSecondInProgress('c1', running)).not.toThrow();
    expect(() => refuseSecondInProgress('c2', running)).toThrow(/another task of this work unit is in progress: Running/);
    expect(() => refuseCloseWhileRunning('u1', running, true)).not.toThrow();
    expect(() => refuseCloseWhileRunning('u1', [], false)).not.toThrow();
    const close = () => {
      refuseCloseWhileRunning('u1', running, false);
      return 'closed';
    };
    expect(outcome(close)).toBe('refused(in_progress_task)');
  });
});

describe('capture review-state machine', () => {
  const open = { annotate: 'same', move_to_inbox: 'inbox', move_to_review: 'review', move_to_discarded: 'discarded', discard: 'discarded', redact: 'redacted', promote: 'promoted' };
  const expected: Record<CaptureState, Record<string, string>> = {
    inbox: { ...open, annotate: 'inbox' },
    review: { ...open, annotate: 'review' },
    discarded: { ...open, annotate: 'discarded' },
    promoted: {
      annotate: 'promoted',
      move_to_inbox: 'refused(promoted)',
      move_to_review: 'refused(promoted)',
      move_to_discarded: 'refused(promoted)',
      discard: 'refused(promoted)',
      redact: 'redacted',
      promote: 'refused(promoted)',
    },
    redacted: Object.fromEntries(CAPTURE_EVENTS.map((e) => [e, 'refused(redacted)'])),
  };
  for (const state of CAPTURE_STATES) {
    for (const event of CAPTURE_EVENTS) {
      it(`${event} from ${state} → ${expected[state][event]}`, () => {
        const capture = { id: '0123456789', review_state: state, promoted_item_id: state === 'promoted' ? 'abcdef0123' : null };
        expect(outcome(() => captureTransition(capture, event))).toBe(expected[state][event]);
      });
    }
  }
  it('words each refusal as before', () => {
    const capture = { id: '0123456789', review_state: 'promoted' as const, promoted_item_id: 'abcdef0123' };
    expect(() => captureTransition(capture, 'move_to_review')).toThrow('capture 01234567 was already promoted to item abcdef01; it cannot be moved to review');
    const redacted = { ...capture, review_state: 'redacted' as const };
    expect(() => captureTransition(redacted, 'annotate')).toThrow('capture 01234567 is redacted; a redacted capture cannot be annotated');
    expect(() => captureTransition(redacted, 'redact')).toThrow('capture 01234567 is already redacted');
  });
  it('turns set_state targets into events, refusing redacted, promoted and unknown ones as invalid_input', () => {
    expect(captureMoveEvent('inbox')).toBe('move_to_inbox');
    expect(captureMoveEvent('review')).toBe('move_to_review');
    expect(captureMoveEvent('discarded')).toBe('move_to_discarded');
    for (const target of ['redacted', 'promoted', 'someday']) {
      expect(() => captureMoveEvent(target)).toThrow(expect.objectContaining({ code: 'invalid_input', details: { field: 'review_state' } }));
    }
  });
});

describe('glossary term, item lifecycle and idea machines', () => {
  it('glossary term: only a proposed term is accepted or rejected', () => {
    expect(glossaryTermTransition({ term: 'db', status: 'proposed' }, 'accept')).toBe('accepted');
    expect(glossaryTermTransition({ term: 'db', status: 'proposed' }, 'reject')).toBe('rejected');
    for (const event of GLOSSARY_TERM_EVENTS) {
      expect(outcome(() => glossaryTermTransition({ term: 'db', status: 'accepted' }, event))).toBe('refused(accepted)');
    }
    expect(() => glossaryTermTransition({ term: 'db', status: 'accepted' }, 'accept')).toThrow("term 'db' is accepted, not proposed");
  });
  it('glossary entry: a new term is proposed or added; a rejected one only added, by an operator', () => {
    expect(glossaryEntryTransition('db', 'storage', 'absent', 'propose')).toBe('proposed');
    expect(glossaryEntryTransition('db', 'storage', 'absent', 'add')).toBe('accepted');
    expect(glossaryEntryTransition('db', 'storage', 'rejected', 'add')).toBe('accepted');
    expect(outcome(() => glossaryEntryTransition('db', 'storage', 'rejected', 'propose'))).toBe('refused(rejected)');
    expect(() => glossaryEntryTransition('db', 'storage', 'rejected', 'propose')).toThrow("term 'db' was rejected for group 'storage'");
  });
  it('item lifecycle: delete an active item, restore a deleted one', () => {
    const active = { id: '0123456789', deleted_at: null };
    const deleted = { id: '0123456789', deleted_at: '2026-01-01T00:00:00Z' };
    expect(itemLifecycleTransition(active, 'delete')).toBe('deleted');
    expect(itemLifecycleTransition(deleted, 'restore')).toBe('active');
    expect(outcome(() => itemLifecycleTransition(deleted, 'delete'))).toBe('refused(deleted)');
    expect(outcome(() => itemLifecycleTransition(active, 'restore'))).toBe('refused(active)');
    expect(() => itemLifecycleTransition(deleted, 'delete')).toThrow('item 01234567 is already deleted');
    expect(() => itemLifecycleTransition(active, 'restore')).toThrow('item 01234567 is already not deleted');
  });
  it('idea: redacted once', () => {
    expect(ideaTransition({ id: '0123456789', redacted: false }, 'redact')).toBe('redacted');
    expect(outcome(() => ideaTransition({ id: '0123456789', redacted: true }, 'redact'))).toBe('refused(redacted)');
    expect(() => ideaTransition({ id: '0123456789', redacted: true }, 'redact')).toThrow('idea 01234567 is already redacted');
  });
});

describe('reading a status', () => {
  it('narrows a task or QA status, and calls any other a broken invariant (a plain error, not a refusal)', () => {
    expect(taskStatusOf({ id: 't', status: 'blocked' })).toBe('blocked');
    expect(qaStatusOf({ id: 'q', status: 'passed' })).toBe('passed');
    for (const read of [() => taskStatusOf({ id: 't', status: 'passed' }), () => qaStatusOf({ id: 'q', status: null })]) {
      expect(read).toThrow(Error);
      expect(read).not.toThrow(SvcError);
    }
  });
});

describe('draftDecision', () => {
  const task = { id: 't1', title: 'Pick a queue', body: '', work_unit_id: 'w1' };
  it('is null when the task has neither body nor summary', () => {
    expect(draftDecision(task, undefined)).toBeNull();
    expect(draftDecision(task, '  ')).toBeNull();
  });
  it('derives a decision from the summary and the body', () => {
    const draft = draftDecision({ ...task, body: 'Compared SQS and NATS.' }, 'Chose NATS.');
    expect(draft).toEqual({
      item_type: 'decision',
      title: 'Decision from task: Pick a queue',
      body: 'Outcome: Chose NATS.\n\nContext: Compared SQS and NATS.',
      context: { source_task_id: 't1' },
      work_unit_id: 'w1',
    });
  });
});

describe('what a task or QA check context may say in its status', () => {
  const field = (fn: () => void) => {
    try {
      fn();
      return 'ok';
    } catch (error) {
      expect((error as SvcError).code).toBe('refused_transition');
      return String((error as SvcError).details.field);
    }
  };
  it('a new task carries neither summary nor blocked_reason', () => {
    expect(field(() => checkNewTaskContext({ sort_order: 1 }))).toBe('ok');
    expect(field(() => checkNewTaskContext({ summary: 'done' }, 'tasks[2].'))).toBe('tasks[2].context.summary');
    expect(field(() => checkNewTaskContext({ blocked_reason: 'x' }))).toBe('context.blocked_reason');
  });
  it('a pending check has no note; a decided one keeps targets, coverage and note, in any order', () => {
    expect(field(() => checkQaContext('pending', { coverage: 'human_only' }, undefined))).toBe('ok');
    expect(field(() => checkQaContext('pending', { note: 'early' }, undefined))).toBe('context.note');
    const before = { coverage: 'automated', note: 'ok', target_task_ids: ['a', 'b'] };
    expect(field(() => checkQaContext('passed', { ...before, target_task_ids: ['b', 'a'], target_item_ids: [] }, before))).toBe('ok');
    expect(field(() => checkQaContext('passed', { ...before, note: 'changed' }, before))).toBe('context.note');
    expect(field(() => checkQaContext('failed', { ...before, target_task_ids: ['a'] }, before))).toBe('context.target_task_ids');
    expect(field(() => checkQaContext('failed', { ...before, coverage: 'manual' }, before))).toBe('context.coverage');
  });
});
