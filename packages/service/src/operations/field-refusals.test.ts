import { describe, expect, it } from 'vitest';
import { type Call, refusal, testBackends, type TestService } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';

// Decision 0017: every refusal names its field; a write's argument that names nothing is invalid_input, only
// the record the write acts on (its REST path) is not_found.
describe.each(testBackends())('refusals name their field on $name', (backend) => {
  let call: Call;
  let svc: TestService;

  useTestService(backend, 'fields', (t) => {
    ({ call, svc } = t);
  });

  const expectField = async (promise: Promise<unknown>, code: string, field: string) => {
    const error = await refusal(promise);
    expect(error.code).toBe(code);
    expect(error.details.field).toBe(field);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
    return error;
  };

  it('svc_save_decisions names decisions[i].system_id for an unknown system and writes nothing', async () => {
    const decisions = [{ title: 'A' }, { title: 'B', system_id: 'no-such-system' }];
    const error = await expectField(call(ops.svc_save_decisions, { project_id: 'fields', decisions }), 'invalid_input', 'decisions[1].system_id');
    expect(error.message).toContain('no-such-system');
    const rows = await svc.store.db.selectFrom('items').select('id').execute();
    expect(rows).toHaveLength(0);
  });

  it('refuses unknown references in a write as invalid_input naming the field', async () => {
    await expectField(call(ops.svc_item_upsert, { project_id: 'fields', title: 'x', system_id: 'nope' }), 'invalid_input', 'system_id');
    await expectField(call(ops.svc_item_upsert, { project_id: 'fields', title: 'x', work_unit_id: 'ffffffff' }), 'invalid_input', 'work_unit_id');
    await expectField(call(ops.svc_item_upsert, { project_id: 'fields', item_id: 'ffffffff', title: 'x' }), 'invalid_input', 'item_id');
    await expectField(call(ops.svc_work_open, { project_id: 'fields', title: 'x', system_id: 'nope' }), 'invalid_input', 'system_id');
    await expectField(call(ops.svc_qa_add, { project_id: 'fields', title: 'x', work_unit_id: 'ffffffff' }), 'invalid_input', 'work_unit_id');
    const capture = (await call(ops.svc_capture_add, { text: 'raw' })) as { id: string };
    await expectField(
      call(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'no-such-project', title: 'x' }),
      'invalid_input',
      'project_id',
    );
  });

  it('keeps not_found for the record a write acts on, naming its field', async () => {
    await expectField(call(ops.svc_item_upsert, { project_id: 'no-such-project', title: 'x' }), 'not_found', 'project_id');
    await expectField(call(ops.svc_task_add, { work_unit_id: 'ffffffff', title: 'x' }), 'not_found', 'work_unit_id');
    await expectField(call(ops.svc_task_start, { task_id: 'ffffffff' }), 'not_found', 'task_id');
    await expectField(call(ops.svc_capture_promote, { capture_id: 'ffffffff', project_id: 'fields', title: 'x' }), 'not_found', 'capture_id');
  });

  it('names the field of an unknown reference in a read (still not_found there)', async () => {
    await call(ops.system_add, { project_id: 'fields', name: 'billing' });
    await expectField(call(ops.svc_item_search, { project_id: 'fields', query: 'x', system_ids: ['billing', 'nope'] }), 'not_found', 'system_ids[1]');
    await expectField(call(ops.svc_brief, { project_id: 'fields', system_id: 'nope' }), 'not_found', 'system_id');
    // The refusal lists the project's systems, so a misspelling is seen at once (a newcomer, 2026-11-27).
    const unknown = await refusal(call(ops.svc_item_search, { project_id: 'fields', query: 'x', system_ids: ['biling'] }));
    expect(unknown.message).toBe(`system_ids[0]: system 'biling' not found; the project's systems: "billing" (an operator adds one: svc system add PROJECT NAME)`);
    expect(unknown.details).toMatchObject({ field: 'system_ids[0]', known: ['billing'] });
    await expectField(call(ops.svc_qa_list_pending, { project_id: 'fields', task_id: 'ffffffff' }), 'not_found', 'task_id');
  });

  it('lists the projects there are when a project reference names none (a newcomer misspelt default)', async () => {
    for (const [op, input] of [
      [ops.svc_brief, { project_id: 'feilds' }],
      [ops.svc_item_search, { project_id: 'feilds', query: 'x' }],
      [ops.svc_brief, { project_id: 'ffffffff' }],
    ] as const) {
      const unknown = await refusal(call(op, input));
      expect(unknown).toMatchObject({ code: 'not_found', details: { field: 'project_id', known: ['fields'] } });
      expect(unknown.message).toBe(
        `project_id: project '${input.project_id}' not found; projects: "fields" (give a slug, id or id prefix; an operator adds one: svc project create SLUG)`,
      );
    }
  });
});
