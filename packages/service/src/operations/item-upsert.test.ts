import type { Item } from '@svc/domain';
import { describe, expect, it } from 'vitest';
import { refusal, testBackends } from '../testing/index.js';
import { type Call, useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';

/** svc_item_upsert carrying tasks and QA checks: the same state machines and defaults as their own tools. */
describe.each(testBackends())('item upsert of tasks and QA checks on $name', (backend) => {
  let call: Call;

  useTestService(backend, 'ups', (t) => {
    ({ call } = t);
  });

  const show = async (id: string) => ((await call(ops.item_show, { item_id: id })) as { item: Item }).item;
  /** Upsert, then read the written row (the answer carries only its ids and state). */
  const upsert = async (input: Record<string, unknown>) => show(((await call(ops.svc_item_upsert, { project_id: 'ups', ...input })) as { id: string }).id);
  const open = async (title = 'Unit') => ((await call(ops.svc_work_open, { project_id: 'ups', title })) as { id: string }).id;

  it('refuses to change a done task into a decision and back, naming item_type; the task stays done', async () => {
    const unit = await open();
    const task = (await call(ops.svc_task_add, { work_unit_id: unit, title: 'Ship it' })) as Item;
    await call(ops.svc_task_start, { task_id: task.id });
    await call(ops.svc_task_done, { task_id: task.id });
    const head = await show(task.id);

    const error = await refusal(upsert({ item_id: head.id, item_type: 'decision' }));
    expect(error.code).toBe('invalid_input');
    expect(error.details.field).toBe('item_type');
    expect(error.message).toMatch(/^item_type: /);
    expect(error.message).toContain("'task'");

    const after = await show(task.id);
    expect(after.id).toBe(head.id);
    expect(after.item_type).toBe('task');
    expect(after.status).toBe('done');
  });

  it('keeps a done task done when upsert edits it, and refuses status smuggled in through context', async () => {
    const unit = await open();
    const task = (await call(ops.svc_task_add, { work_unit_id: unit, title: 'Ship it' })) as Item;
    await call(ops.svc_task_start, { task_id: task.id });
    await call(ops.svc_task_done, { task_id: task.id });
    const edited = await upsert({ item_id: (await show(task.id)).id, title: 'Shipped it' });
    expect(edited.title).toBe('Shipped it');
    expect(edited.status).toBe('done');
    const smuggled = await refusal(upsert({ item_id: edited.id, context: { status: 'proposed' } }));
    expect(smuggled.code).toBe('invalid_input');
    expect(smuggled.details.field).toBe('context.status');
    expect((await show(task.id)).status).toBe('done');
  });

  it('keeps a failed QA check failed: no type round trip resets it to pending, and an edit keeps the status', async () => {
    const check = (await call(ops.svc_qa_add, { project_id: 'ups', title: 'Verify backups' })) as Item;
    await call(ops.svc_qa_fail, { qa_id: check.id });
    const failed = await show(check.id);

    const error = await refusal(upsert({ item_id: failed.id, item_type: 'decision' }));
    expect(error.details.field).toBe('item_type');

    const edited = await upsert({ item_id: (await show(check.id)).id, body: 'Restore last night\'s backup' });
    expect(edited.status).toBe('failed');
    expect((await show(check.id)).status).toBe('failed');
  });

  it('refuses a task created through upsert in a closed work unit, pointing at svc work reopen', async () => {
    const unit = await open();
    await call(ops.svc_work_close, { work_unit_id: unit });
    const error = await refusal(upsert({ item_type: 'task', title: 'Late task', work_unit_id: unit }));
    expect(error.code).toBe('refused_transition');
    expect(error.details.field).toBe('work_unit_id');
    expect(error.message).toContain('svc work reopen');
    const listed = (await call(ops.svc_task_list, { work_unit_id: unit })) as { tasks: Item[] };
    expect(listed.tasks).toEqual([]);
  });

  it('refuses a task created through upsert without a work unit, naming work_unit_id', async () => {
    const error = await refusal(upsert({ item_type: 'task', title: 'Orphan' }));
    expect(error.code).toBe('invalid_input');
    expect(error.details.field).toBe('work_unit_id');
  });

  it('creates a task through upsert in proposed, after the last task, in its unit\'s system', async () => {
    const unit = await open();
    await call(ops.svc_task_add, { work_unit_id: unit, title: 'First', sort_order: 7 });
    const task = await upsert({ item_type: 'task', title: 'Second', work_unit_id: unit.slice(0, 8) });
    expect(task.status).toBe('proposed');
    expect(task.work_unit_id).toBe(unit);
    expect(task.context).toEqual({ sort_order: 8 });
    const third = await upsert({ item_type: 'task', title: 'Third', work_unit_id: unit });
    expect(third.context.sort_order).toBe(9);
    const listed = (await call(ops.svc_task_list, { work_unit_id: unit })) as { tasks: Item[] };
    expect(listed.tasks.map((t) => t.title)).toEqual(['First', 'Second', 'Third']);
  });

  it('keeps a task\'s sort_order when an upsert edit gives a context without it', async () => {
    const unit = await open();
    const task = (await call(ops.svc_task_add, { work_unit_id: unit, title: 'First', sort_order: 3 })) as Item;
    const edited = await upsert({ item_id: task.id, context: { summary: 'notes' } });
    expect(edited.context).toEqual({ sort_order: 3, summary: 'notes' });
  });

  it('refuses moving a task to another work unit through upsert, naming work_unit_id', async () => {
    const task = (await call(ops.svc_task_add, { work_unit_id: await open('A'), title: 'Stay' })) as Item;
    const error = await refusal(upsert({ item_id: task.id, work_unit_id: await open('B') }));
    expect(error.code).toBe('invalid_input');
    expect(error.details.field).toBe('work_unit_id');
  });

  it('creates a QA check through upsert as pending with human_only coverage and empty targets', async () => {
    const check = await upsert({ item_type: 'qa_check', title: 'Verify login' });
    expect(check.status).toBe('pending');
    expect(check.context).toEqual({ coverage: 'human_only', target_task_ids: [], target_item_ids: [] });
    const pending = (await call(ops.svc_qa_list_pending, { project_id: 'ups' })) as { qa_checks: Item[] };
    expect(pending.qa_checks.map((c) => c.id)).toEqual([check.id]);
  });

  it('stores QA targets given to upsert as chain ids, from a non-head row id and from a prefix', async () => {
    const unit = await open();
    const task = (await call(ops.svc_task_add, { work_unit_id: unit, title: 'Build' })) as Item;
    const taskV2 = await upsert({ item_id: task.id, title: 'Build it' });
    const decision = await upsert({ title: 'Use TLS' });
    const decisionV2 = await upsert({ item_id: decision.id, body: 'Everywhere' });
    const decisionV3 = await upsert({ item_id: decisionV2.id, body: 'Everywhere, always' });
    // A non-head row id (version 2 of the decision) and a prefix of the task's current row.
    const check = await upsert({
      item_type: 'qa_check',
      title: 'Build verified',
      context: { coverage: 'mixed', target_task_ids: [taskV2.id.slice(0, 8)], target_item_ids: [decisionV2.id] },
    });
    expect(check.context).toEqual({ coverage: 'mixed', target_task_ids: [task.chain_id], target_item_ids: [decision.chain_id] });
    expect(decisionV3.chain_id).toBe(decision.chain_id);
    const byTask = (await call(ops.svc_qa_list_pending, { project_id: 'ups', task_id: task.id })) as { qa_checks: Item[] };
    expect(byTask.qa_checks.map((c) => c.id)).toEqual([check.id]);

    const edited = await upsert({ item_id: check.id, context: { target_item_ids: [decisionV3.id.slice(0, 10)] } });
    expect(edited.context).toEqual({ coverage: 'mixed', target_task_ids: [task.chain_id], target_item_ids: [decision.chain_id] });
  });

  it('refuses an unknown QA target given to upsert, naming the field', async () => {
    const decision = await upsert({ title: 'Use TLS' });
    const unknown = await refusal(
      upsert({ item_type: 'qa_check', title: 'x', context: { target_item_ids: [decision.id, 'ffffffff-ffff-4fff-8fff-ffffffffffff'] } }),
    );
    expect(unknown.code).toBe('invalid_input');
    expect(unknown.details.field).toBe('context.target_item_ids[1]');
    const notATask = await refusal(upsert({ item_type: 'qa_check', title: 'x', context: { target_task_ids: [decision.id] } }));
    expect(notATask.details.field).toBe('context.target_task_ids[0]');
  });

  it('lets an edit correct a decided check\'s wording but refuses changing its targets, coverage or note, naming the field', async () => {
    const unit = await open();
    const task = (await call(ops.svc_task_add, { work_unit_id: unit, title: 'Ship it' })) as Item;
    const other = await upsert({ item_type: 'decision', title: 'Other' });
    const check = (await call(ops.svc_qa_add, { project_id: 'ups', title: 'Verify backups', target_task_ids: [task.id] })) as Item;
    await call(ops.svc_qa_pass, { qa_id: check.id, note: 'restored fine' });
    const passed = await show(check.id);
    for (const [context, field] of [
      [{ target_task_ids: [] }, 'context.target_task_ids'],
      [{ target_item_ids: [other.id] }, 'context.target_item_ids'],
      [{ coverage: 'automated' }, 'context.coverage'],
      [{ note: 'rewritten' }, 'context.note'],
    ] as const) {
      const error = await refusal(upsert({ item_id: passed.id, context }));
      expect(error, field).toMatchObject({ code: 'refused_transition', details: { field } });
      expect(error.message).toMatch(new RegExp(`^${field}: the check is passed`));
    }
    expect((await show(check.id)).id).toBe(passed.id);
    // The same targets (as a prefix of the task) and coverage repeated are no change; the wording is corrected.
    const edited = await upsert({ item_id: passed.id, title: 'Verify nightly backups', context: { target_task_ids: [task.id.slice(0, 8)], coverage: 'human_only' } });
    expect(edited).toMatchObject({ status: 'passed', title: 'Verify nightly backups', context: passed.context });
  });

  it('refuses a task created through upsert with summary or blocked_reason, and a QA check created with a note, naming the field', async () => {
    const unit = await open();
    for (const key of ['summary', 'blocked_reason']) {
      const error = await refusal(upsert({ item_type: 'task', work_unit_id: unit, title: 'x', context: { [key]: 'already' } }));
      expect(error, key).toMatchObject({ code: 'refused_transition', details: { field: `context.${key}` } });
    }
    const note = await refusal(upsert({ item_type: 'qa_check', title: 'x', context: { note: 'verified' } }));
    expect(note).toMatchObject({ code: 'refused_transition', details: { field: 'context.note' } });
    const tasks = (await call(ops.svc_task_list, { work_unit_id: unit })) as { tasks: unknown[] };
    expect(tasks.tasks).toEqual([]);
  });
});
