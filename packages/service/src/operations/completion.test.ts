import { describe, expect, it } from 'vitest';
import { ops } from '../catalog.js';
import { type TestService, testBackends, unchecked } from '../testing/index.js';
import { type Call, useTestService } from '../testing/suite.js';

describe.each(testBackends())('completion and decision_list (MCP resources and completions) on $name', (backend) => {
  let svc: TestService;
  let call: Call;

  useTestService(backend, 'alpha', (t) => {
    ({ svc, call } = t);
  });

  it('completes project slugs by prefix, in order, and says when it cut the list', async () => {
    for (const slug of ['alpine', 'beta']) await call(ops.project_create, { slug });
    expect(await call(ops.completion, { kind: 'project', prefix: 'al' })).toEqual({ values: ['alpha', 'alpine'], truncated: false });
    expect(await call(ops.completion, { kind: 'project', prefix: 'AL', limit: 1 })).toEqual({ values: ['alpha'], truncated: true });
    // LIKE wildcards in what was typed match only themselves.
    expect(await call(ops.completion, { kind: 'project', prefix: '%' })).toEqual({ values: [], truncated: false });
    expect(((await call(ops.completion, { kind: 'project' })) as { values: string[] }).values).toEqual(['alpha', 'alpine', 'beta']);
  });

  it('completes item types and work-unit ids (open ones first, only of the given project)', async () => {
    expect(((await call(ops.completion, { kind: 'item_type', prefix: 'de' })) as { values: string[] }).values).toEqual(['decision']);
    const open = (await call(ops.svc_work_open, { project_id: 'alpha', title: 'Open unit' })) as { id: string };
    const closed = (await call(ops.svc_work_open, { project_id: 'alpha', title: 'Closed unit' })) as { id: string };
    await call(ops.svc_work_close, { work_unit_id: closed.id });
    await call(ops.project_create, { slug: 'other' });
    const foreign = (await call(ops.svc_work_open, { project_id: 'other', title: 'Elsewhere' })) as { id: string };
    const values = async (input: Record<string, unknown>) => ((await call(ops.completion, { kind: 'work_unit', ...input })) as { values: string[] }).values;
    expect(await values({ project_id: 'alpha' })).toEqual([open.id, closed.id]);
    expect(await values({ project_id: 'alpha', prefix: open.id.slice(0, 6) })).toEqual([open.id]);
    expect(await values({ prefix: foreign.id.slice(0, 8) })).toEqual([foreign.id]);
    expect(await values({ project_id: 'alpha', prefix: 'not hex' })).toEqual([]);
    await expect(call(ops.completion, unchecked({ kind: 'nope' }))).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'kind' } });
  });

  it('lists current decisions as markdown without writing a sync job, bounded by limit', async () => {
    await call(ops.svc_save_decisions, { project_id: 'alpha', decisions: [{ title: 'Use REST' }, { title: 'Retry twice' }, { title: 'Cache briefly' }] });
    await call(ops.svc_item_upsert, { project_id: 'alpha', item_type: 'knowledge', title: 'Not a decision' });
    const op = ops.decision_list;
    if (op.presentation.kind !== 'markdown') throw new Error('expected markdown');
    const all = await call(ops.decision_list, { project_id: 'alpha' });
    expect(all.decisions.map((d) => d.title).sort()).toEqual(['Cache briefly', 'Retry twice', 'Use REST']);
    const text = op.presentation.render(all);
    expect(text).toContain('# alpha (alpha): current decisions');
    expect(text).not.toContain('Not a decision');
    const one = await call(ops.decision_list, { project_id: 'alpha', limit: 1 });
    expect([one.decisions.length, one.truncated]).toEqual([1, true]);
    expect(op.presentation.render(one)).toContain('_Only the first 1 decisions are shown');
    const jobs = await svc.store.db.selectFrom('sync_jobs').select('id').execute();
    expect(jobs).toEqual([]);
    await expect(call(ops.decision_list, { project_id: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
