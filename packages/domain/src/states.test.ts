import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import { QA_STATUSES, TASK_STATUSES } from './item-types.js';
import {
  draftDecision,
  QA_TRIGGERS,
  qaTransition,
  TASK_TRIGGERS,
  taskTransition,
  WORK_UNIT_STATUSES,
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
    open: { close: 'closed', reopen: 'refused(open)', add_task: 'open' },
    closed: { close: 'refused(closed)', reopen: 'open', add_task: 'refused(closed)' },
  };
  for (const state of WORK_UNIT_STATUSES) {
    for (const trigger of WORK_UNIT_TRIGGERS) {
      it(`${trigger} from ${state} → ${expected[state]?.[trigger]}`, () => {
        expect(outcome(() => workUnitTransition(state, trigger))).toBe(expected[state]?.[trigger]);
      });
    }
  }
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
