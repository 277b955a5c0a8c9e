import type { Item } from '@svc/domain';
import { describe, expect, it } from 'vitest';
import { type Call, refusal, testBackends, type TestService, unchecked } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';

// Decision 0017: null clears a clearable field; "" and omission mean "not given"; null elsewhere is refused.
describe.each(testBackends())('clearing fields with null on $name', (backend) => {
  let svc: TestService;
  let call: Call;
  let show: (id: string) => Promise<Item>;

  useTestService(backend, 'clear', (t) => {
    ({ svc, call, show } = t);
  });

  const versions = async (chainId: string) =>
    (await svc.store.db.selectFrom('items').select('id').where('chain_id', '=', chainId).execute()).length;
  const task = async (body: string) => {
    const unit = (await call(ops.svc_work_open, { project_id: 'clear', title: 'Unit' })) as { id: string };
    return (await call(ops.svc_task_add, { work_unit_id: unit.id, title: 'Task', body })) as Item;
  };

  it('svc_task_edit clears a body with null, while "" leaves it as it is', async () => {
    const t = await task('Steps to follow');
    const blank = (await call(ops.svc_task_edit, { task_id: t.id, body: '' })) as Item;
    expect(blank.id).toBe(t.id);
    expect((await show(blank.id)).body).toBe('Steps to follow');

    const cleared = (await call(ops.svc_task_edit, { task_id: t.id, body: null })) as Item;
    expect(cleared.id).not.toBe(t.id);
    expect((await show(cleared.id)).body).toBe('');
    expect(cleared.status).toBe('proposed');
    expect(await versions(t.chain_id)).toBe(2);
  });

  it('treats a null-only task edit as an edit: a stale row is a conflict, an empty body stays one version', async () => {
    const t = await task('Old body');
    const v2 = (await call(ops.svc_task_edit, { task_id: t.id, title: 'Renamed' })) as Item;
    const stale = await refusal(call(ops.svc_task_edit, { task_id: t.id, body: null }));
    expect(stale).toMatchObject({ code: 'conflict', details: { current_head_id: v2.id } });

    const v3 = (await call(ops.svc_task_edit, { task_id: v2.id, body: null })) as Item;
    expect((await show(v3.id)).body).toBe('');
    const again = (await call(ops.svc_task_edit, { task_id: v3.id, body: null })) as Item;
    expect(again.id).toBe(v3.id);
    expect(await versions(t.chain_id)).toBe(3);
  });

  it('refuses null for fields that cannot be cleared, naming the field', async () => {
    const t = await task('x');
    for (const field of ['title', 'sort_order']) {
      const error = await refusal(call(ops.svc_task_edit, { task_id: t.id, [field]: null }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { field } });
      expect(error.message).toMatch(new RegExp(`^${field}: cannot be cleared`));
    }
    const required = await refusal(call(ops.svc_task_edit, unchecked({ task_id: null })));
    expect(required).toMatchObject({ code: 'invalid_input', details: { field: 'task_id' } });
    expect(required.message).toBe('task_id: is required and cannot be null');
    expect(await versions(t.chain_id)).toBe(1);
    // A read clears nothing: its message says to leave the parameter out (an attacker found "unchanged" odd there).
    const read = await refusal(call(ops.svc_task_list, unchecked({ work_unit_id: t.work_unit_id, limit: null })));
    expect(read.message).toBe('limit: cannot be null; omit it (or give "") for the default');
  });

  it('svc_item_upsert clears body, context, system_id and work_unit_id with null and keeps them for ""', async () => {
    await call(ops.system_add, { project_id: 'clear', name: 'billing' });
    const unit = (await call(ops.svc_work_open, { project_id: 'clear', title: 'Unit' })) as { id: string };
    const { id: v1Id } = (await call(ops.svc_item_upsert, {
      project_id: 'clear',
      title: 'Retry policy',
      body: 'Three retries.',
      context: { owner: 'ops' },
      system_id: 'billing',
      work_unit_id: unit.id,
    })) as Item;
    const v1 = await show(v1Id);
    const kept = await show(((await call(ops.svc_item_upsert, { project_id: 'clear', item_id: v1.id, body: '', system_id: '', work_unit_id: '' })) as Item).id);
    expect(kept).toMatchObject({ id: v1.id, body: 'Three retries.', system_id: v1.system_id, work_unit_id: unit.id });

    const cleared = await show(
      ((await call(ops.svc_item_upsert, { project_id: 'clear', item_id: v1.id, body: null, context: null, system_id: null, work_unit_id: null })) as Item).id,
    );
    expect(cleared).toMatchObject({ title: 'Retry policy', body: '', context: {}, system_id: null, work_unit_id: null });
    expect(cleared.id).not.toBe(v1.id);

    const title = await refusal(call(ops.svc_item_upsert, unchecked({ project_id: 'clear', item_id: cleared.id, title: null })));
    expect(title).toMatchObject({ code: 'invalid_input', details: { field: 'title' } });
  });

  it('refuses to clear what a type requires: a task work unit, a research source', async () => {
    const t = await task('x');
    const unit = await refusal(call(ops.svc_item_upsert, { project_id: 'clear', item_id: t.id, work_unit_id: null }));
    expect(unit).toMatchObject({ code: 'invalid_input', details: { field: 'work_unit_id' } });
    const r = (await call(ops.svc_item_upsert, {
      project_id: 'clear',
      item_type: 'research',
      title: 'Paper',
      source_url: 'https://example.org/paper',
    })) as Item;
    const source = await refusal(call(ops.svc_item_upsert, { project_id: 'clear', item_id: r.id, source_url: null }));
    expect(source).toMatchObject({ code: 'invalid_input', details: { field: 'source_url' } });
  });

  it('svc_capture_annotate clears a summary with null', async () => {
    const ack = (await call(ops.svc_capture_add, { text: 'raw' })) as { id: string };
    await call(ops.svc_capture_annotate, { capture_id: ack.id, summary: 'short', sensitivity_hint: 'internal' });
    const capture = async () =>
      ((await call(ops.svc_capture_list, { include_discarded: true })) as { captures: { id: string; summary: string | null; sensitivity_hint: string | null }[] }).captures.find(
        (c) => c.id === ack.id,
      );
    await call(ops.svc_capture_annotate, { capture_id: ack.id, summary: '' });
    expect((await capture())?.summary).toBe('short');
    await call(ops.svc_capture_annotate, { capture_id: ack.id, summary: null });
    expect(await capture()).toMatchObject({ summary: null, sensitivity_hint: 'internal' });
  });
});
