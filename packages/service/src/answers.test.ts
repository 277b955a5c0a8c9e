import type { Item } from '@svc/domain';
import { describe, expect, it } from 'vitest';
import { writeAnswer } from './answers.js';
import { ops, toolOperations } from './catalog.js';
import type { AnyOperation } from './operation.js';
import { type Call, testBackends, unchecked } from './testing/index.js';
import { useTestService } from './testing/suite.js';

const row: Item = {
  id: '11111111-1111-4111-8111-111111111111',
  chain_id: '00000000-0000-4000-8000-000000000000',
  project_id: '22222222-2222-4222-8222-222222222222',
  system_id: null,
  item_type: 'task',
  title: 'A title the caller just sent',
  body: 'A body the caller just sent',
  context: { sort_order: 1 },
  source_url: null,
  work_unit_id: '33333333-3333-4333-8333-333333333333',
  status: 'in_progress',
  version: 2,
  supersedes_id: '00000000-0000-4000-8000-000000000000',
  is_head: true,
  created_by: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  refreshed_at: '2026-01-01T00:00:00.000Z',
  deleted_at: null,
};

describe('writeAnswer', () => {
  it('keeps the ids and the state of the row, in a fixed order, and none of its text or null fields', () => {
    expect(JSON.stringify(writeAnswer(row))).toBe(
      JSON.stringify({
        id: row.id,
        chain_id: row.chain_id,
        item_type: 'task',
        status: 'in_progress',
        version: 2,
        supersedes_id: row.supersedes_id,
        work_unit_id: row.work_unit_id,
      }),
    );
    const decision = writeAnswer({ ...row, item_type: 'decision', status: null, version: 1, supersedes_id: null, work_unit_id: null });
    expect(decision).toEqual({ id: row.id, chain_id: row.chain_id, item_type: 'decision', version: 1 });
  });

  it('puts what only one write says beside the fields, never wrapping them, and keeps a null the extra means', () => {
    expect(writeAnswer(row, { draft_decision: null })).toEqual({ ...writeAnswer(row), draft_decision: null });
    expect(writeAnswer(row, { decision_id: 'd' })).toMatchObject({ id: row.id, status: 'in_progress', decision_id: 'd' });
  });
});

/** Every tool write and what it answers beyond the fields of writeAnswer. */
const WRITE_TOOLS: Record<string, string[]> = {
  svc_item_upsert: [],
  svc_work_open: [],
  svc_work_close: [],
  svc_task_add: [],
  svc_task_start: [],
  svc_task_done: ['draft_decision'],
  svc_task_block: ['decision_id'],
  svc_task_edit: [],
  svc_qa_add: [],
  svc_qa_pass: [],
  svc_qa_fail: [],
  svc_capture_add: [],
  svc_capture_annotate: [],
  svc_capture_set_state: [],
  svc_capture_discard: [],
  svc_capture_redact: [],
  svc_capture_promote: [],
  svc_idea_add: [],
  svc_idea_redact: [],
};
const FIELDS = ['id', 'chain_id', 'item_type', 'status', 'state', 'version', 'supersedes_id', 'work_unit_id', 'item_id', 'deleted_at'];

describe.each(testBackends())('write answers on $name', (backend) => {
  let call: Call;
  useTestService(backend, 'answers', (t) => {
    call = t.call;
  });

  it('covers every tool write but the batch save (ids) and page sync (a page)', () => {
    const writes = toolOperations()
      .filter((op) => op.kind === 'write')
      .map((op) => op.name)
      .filter((name) => name !== 'svc_save_decisions' && name !== 'svc_page_sync');
    expect(writes.sort()).toEqual(Object.keys(WRITE_TOOLS).sort());
  });

  it('answers every tool write with ids, state and what changed: no text, no null fields, the same shape for siblings', async () => {
    const answers: Record<string, Record<string, unknown>> = {};
    const write = async (op: AnyOperation, input: Record<string, unknown>) => {
      const answer = (await call(op, unchecked(input))) as Record<string, unknown>;
      answers[op.name] = answer;
      return answer;
    };
    const unit = await write(ops.svc_work_open, { project_id: 'answers', title: 'Unit', description: 'long description' });
    const task = await write(ops.svc_task_add, { work_unit_id: unit.id, title: 'Task', body: 'Steps' });
    await write(ops.svc_task_start, { task_id: task.id });
    const blocked = await write(ops.svc_task_block, { task_id: task.id, reason: 'waiting' });
    await call(ops.svc_task_start, unchecked({ task_id: task.id }));
    const done = await write(ops.svc_task_done, { task_id: task.id, summary: 'Shipped', propose_decision: true });
    const edited = await write(ops.svc_task_edit, { task_id: task.id, title: 'Task, renamed' });
    const item = await write(ops.svc_item_upsert, { project_id: 'answers', title: 'Decision', body: 'Because' });
    const revised = await write(ops.svc_item_upsert, { project_id: 'answers', item_id: item.id, body: 'Because, revised' });
    const check = await write(ops.svc_qa_add, { project_id: 'answers', title: 'Check', target_task_ids: [task.id] });
    await write(ops.svc_qa_pass, { qa_id: check.id });
    const other = await call(ops.svc_qa_add, { project_id: 'answers', title: 'Other check' });
    await write(ops.svc_qa_fail, { qa_id: (other as { id: string }).id, note: 'broke' });
    const idea = await write(ops.svc_idea_add, { work_unit_id: unit.id, text: 'an idea' });
    await write(ops.svc_idea_redact, { idea_id: idea.id });
    await write(ops.svc_work_close, { work_unit_id: unit.id });
    const capture = await write(ops.svc_capture_add, { text: 'raw text' });
    await write(ops.svc_capture_annotate, { capture_id: capture.id, summary: 'a summary', signals: { a: 1 } });
    await write(ops.svc_capture_set_state, { capture_id: capture.id, review_state: 'review' });
    const promoted = await write(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'answers', title: 'From a capture' });
    await write(ops.svc_capture_redact, { capture_id: capture.id });
    const dropped = await call(ops.svc_capture_add, { text: 'noise' });
    await write(ops.svc_capture_discard, { capture_id: (dropped as { id: string }).id });

    expect(Object.keys(answers).sort()).toEqual(Object.keys(WRITE_TOOLS).sort());
    for (const [name, answer] of Object.entries(answers)) {
      const allowed = new Set([...FIELDS, ...(WRITE_TOOLS[name] ?? [])]);
      expect(Object.keys(answer).filter((key) => !allowed.has(key)), name).toEqual([]);
      expect(Object.entries(answer).filter(([key, value]) => value === null && !WRITE_TOOLS[name]?.includes(key)), name).toEqual([]);
    }

    // The task transitions answer one shape; done and block add their extra beside it.
    const taskKeys = ['id', 'chain_id', 'item_type', 'status', 'version', 'work_unit_id'];
    expect(Object.keys(answers.svc_task_start!)).toEqual(taskKeys);
    expect(Object.keys(blocked)).toEqual([...taskKeys, 'decision_id']);
    expect(Object.keys(done)).toEqual([...taskKeys, 'draft_decision']);
    expect(done).toMatchObject({ id: task.id, status: 'done', draft_decision: { item_type: 'decision' } });
    expect(blocked).toMatchObject({ id: task.id, status: 'blocked' });
    const decision = (await call(ops.item_show, unchecked({ item_id: blocked.decision_id }))) as { item: { item_type: string; title: string } };
    expect(decision.item).toMatchObject({ item_type: 'decision', title: `Blocked: task ${String(task.chain_id).slice(0, 8)}` });
    expect(edited).toMatchObject({ chain_id: task.chain_id, status: 'done', version: 2, supersedes_id: task.id });
    expect(revised).toMatchObject({ chain_id: item.chain_id, version: 2, supersedes_id: item.id });
    expect(answers.svc_work_close).toEqual({ id: unit.id, status: 'closed' });
    expect(answers.svc_idea_redact).toEqual({ id: idea.id, state: 'redacted' });
    // capture_annotate acknowledges like its siblings.
    expect(answers.svc_capture_annotate).toEqual({ id: capture.id, state: 'inbox' });
    expect(answers.svc_capture_redact).toEqual({ id: capture.id, state: 'redacted', item_id: promoted.item_id });
    // Without propose_decision, done says nothing of a draft.
    const unit2 = (await call(ops.svc_work_open, { project_id: 'answers', title: 'U2' })) as { id: string };
    const second = (await call(ops.svc_task_add, { work_unit_id: unit2.id, title: 'T2' })) as { id: string };
    await call(ops.svc_task_start, { task_id: second.id });
    expect(await call(ops.svc_task_done, { task_id: second.id })).not.toHaveProperty('draft_decision');
  });
});
