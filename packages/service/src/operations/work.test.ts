import type { Item } from '@svc/domain';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, openTestService, operation, refusal, skipWithoutPostgres, testBackends, type TestService, unchecked } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { RESUME_TASKS, RESUME_UNITS } from './work-shared.js';
import { ops } from '../catalog.js';



describe.each(testBackends())('work units, tasks and QA checks on $name', (backend) => {
  let svc: TestService;
  let call: Call;
  let seeded: { actorId: string; projectId: string };
  let show: (id: string) => Promise<Item>;

  useTestService(backend, 'work', (t) => {
    ({ svc, call, seeded, show } = t);
  });

  const open = async (title = 'Unit') => ((await call(ops.svc_work_open, { project_id: 'work', title })) as { id: string }).id;
  const addTask = async (unit: string, title = 'Task', extra: Record<string, unknown> = {}) =>
    (await call(ops.svc_task_add, { work_unit_id: unit, title, ...extra })) as Item;

  const reach: Record<string, string[]> = {
    proposed: [],
    in_progress: ['svc_task_start'],
    blocked: ['svc_task_start', 'svc_task_block'],
    done: ['svc_task_start', 'svc_task_done'],
  };
  const triggers: Record<string, Record<string, unknown>> = {
    svc_task_start: {},
    svc_task_done: {},
    svc_task_block: { reason: 'waiting for access' },
    svc_task_edit: { title: 'Renamed' },
  };
  const expected: Record<string, Record<string, string>> = {
    proposed: { svc_task_start: 'in_progress', svc_task_done: 'refused', svc_task_block: 'refused', svc_task_edit: 'proposed' },
    in_progress: { svc_task_start: 'refused', svc_task_done: 'done', svc_task_block: 'blocked', svc_task_edit: 'in_progress' },
    blocked: { svc_task_start: 'in_progress', svc_task_done: 'refused', svc_task_block: 'refused', svc_task_edit: 'blocked' },
    done: { svc_task_start: 'refused', svc_task_done: 'refused', svc_task_block: 'refused', svc_task_edit: 'done' },
  };
  for (const [state, path] of Object.entries(reach)) {
    for (const [trigger, args] of Object.entries(triggers)) {
      const want = expected[state]?.[trigger];
      it(`task ${state} + ${trigger} → ${want}`, async () => {
        const task = await addTask(await open());
        for (const step of path) await call(operation(step), unchecked({ task_id: task.id, ...triggers[step] }));
        const head = ((await call(ops.item_show, { item_id: task.id })) as { item: Item }).item;
        const result = call(operation(trigger), unchecked({ task_id: head.id, ...args }));
        if (want === 'refused') {
          const error = await refusal(result);
          expect(error.code).toBe('refused_transition');
          expect(error.details.state).toBe(state);
          expect(error.message).toContain(state);
        } else {
          await result;
          const after = ((await call(ops.item_show, { item_id: task.id })) as { item: Item }).item;
          expect(after.status).toBe(want);
        }
      });
    }
  }

  for (const [state, step] of [
    ['pending', undefined],
    ['passed', 'svc_qa_pass'],
    ['failed', 'svc_qa_fail'],
  ] as const) {
    for (const trigger of ['svc_qa_pass', 'svc_qa_fail'] as const) {
      const want = state === 'pending' ? (trigger === 'svc_qa_pass' ? 'passed' : 'failed') : 'refused';
      it(`QA check ${state} + ${trigger} → ${want}`, async () => {
        const check = (await call(ops.svc_qa_add, { project_id: 'work', title: 'Verify' })) as Item;
        expect(check.status).toBe('pending');
        expect((await show(check.id)).context.coverage).toBe('human_only');
        if (step) await call(operation(step), { qa_id: check.id });
        const result = call(operation(trigger), { qa_id: check.id, note: 'checked' });
        if (want === 'refused') {
          const error = await refusal(result);
          expect(error.code).toBe('refused_transition');
          expect(error.details.state).toBe(state);
        } else {
          expect(((await result) as Item).status).toBe(want);
        }
      });
    }
  }

  it('refuses a second in-progress task in one work unit', async () => {
    const unit = await open();
    const a = await addTask(unit, 'A');
    const b = await addTask(unit, 'B');
    await call(ops.svc_task_start, { task_id: a.id });
    const error = await refusal(call(ops.svc_task_start, { task_id: b.id }));
    expect(error.code).toBe('refused_transition');
    expect(error.message).toContain('A');
    await call(ops.svc_task_block, { task_id: a.id, reason: 'waiting' });
    await call(ops.svc_task_start, { task_id: b.id });
  });

  // On PGlite (one connection) the twenty starts run one after another: the rule, not the lock, is under test;
  // the race itself runs on PostgreSQL below, over separate connections.
  const twentyStarts =
    backend.name === 'pglite'
      ? 'serialises twenty starts in one work unit, one succeeding (pglite has one connection: no race)'
      : 'lets exactly one of twenty concurrent starts in one work unit succeed';
  it(twentyStarts, async () => {
    const unit = await open();
    const tasks = await Promise.all(Array.from({ length: 20 }, (_, i) => addTask(unit, `T${i}`)));
    const results = await Promise.allSettled(tasks.map((t) => call(ops.svc_task_start, { task_id: t.id })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.every((r) => (r.reason as { code: string }).code === 'refused_transition')).toBe(true);
    const running = await svc.store.db
      .selectFrom('items')
      .select('id')
      .where('work_unit_id', '=', unit)
      .where('status', '=', 'in_progress')
      .where('is_head', '=', true)
      .execute();
    expect(running).toHaveLength(1);
  });

  it('blocking creates a decision documenting the reason, linked to the task', async () => {
    const task = await addTask(await open());
    await call(ops.svc_task_start, { task_id: task.id });
    const blocked = (await call(ops.svc_task_block, { task_id: task.id, reason: 'no staging access' })) as Item & { decision_id: string };
    expect(blocked.status).toBe('blocked');
    expect((await show(blocked.id)).context.blocked_reason).toBe('no staging access');
    expect(await show(blocked.decision_id)).toMatchObject({ item_type: 'decision', body: 'no staging access' });
    const links = ((await call(ops.item_show, { item_id: blocked.decision_id })) as { links: { link_type: string; to_chain_id: string }[] }).links;
    expect(links).toEqual([expect.objectContaining({ link_type: 'blocks', to_chain_id: task.chain_id })]);
  });

  it('done stores the summary and returns a draft decision only on request, never stored', async () => {
    const unit = await open();
    const bare = await addTask(unit, 'Bare');
    await call(ops.svc_task_start, { task_id: bare.id });
    const none = (await call(ops.svc_task_done, { task_id: bare.id, propose_decision: true })) as { draft_decision: unknown };
    expect(none.draft_decision).toBeNull();

    const rich = await addTask(unit, 'Pick a queue', { body: 'Compare SQS and NATS' });
    await call(ops.svc_task_start, { task_id: rich.id });
    const before = await svc.store.db.selectFrom('items').select('id').execute();
    const done = (await call(ops.svc_task_done, { task_id: rich.id, summary: 'NATS', propose_decision: true })) as Item & {
      draft_decision: { item_type: string; body: string } | null;
    };
    expect(done.status).toBe('done');
    expect((await show(done.id)).context.summary).toBe('NATS');
    expect(done.draft_decision).toMatchObject({ item_type: 'decision', body: expect.stringContaining('NATS') });
    const after = await svc.store.db.selectFrom('items').select('id').execute();
    expect(after).toHaveLength(before.length);
    const plain = await addTask(unit, 'Plain', { body: 'x' });
    await call(ops.svc_task_start, { task_id: plain.id });
    expect(await call(ops.svc_task_done, { task_id: plain.id })).not.toHaveProperty('draft_decision');
  });

  it('edit supersedes with the status kept; no fields returns the head; a stale version is a conflict', async () => {
    const task = await addTask(await open());
    await call(ops.svc_task_start, { task_id: task.id });
    await call(ops.svc_task_done, { task_id: task.id });
    const edited = (await call(ops.svc_task_edit, { task_id: task.id, title: 'Renamed', sort_order: 7 })) as Item;
    expect(edited).toMatchObject({ status: 'done', version: 2, chain_id: task.id });
    expect(await show(edited.id)).toMatchObject({ title: 'Renamed', context: { sort_order: 7 } });
    const same = (await call(ops.svc_task_edit, { task_id: task.id })) as Item;
    expect(same.id).toBe(edited.id);
    const stale = await refusal(call(ops.svc_task_edit, { task_id: task.id, title: 'Lost' }));
    expect(stale.code).toBe('conflict');
    expect(stale.details.current_head_id).toBe(edited.id);
  });

  it('lists head tasks by sort_order with a status filter', async () => {
    const unit = await open();
    const c = await addTask(unit, 'C', { sort_order: 30 });
    await addTask(unit, 'A', { sort_order: 10 });
    await addTask(unit, 'B', { sort_order: 20 });
    const d = await addTask(unit, 'D');
    expect((await show(d.id)).context.sort_order).toBe(31);
    await call(ops.svc_task_edit, { task_id: c.id, title: 'C2' });
    await call(ops.svc_task_start, { task_id: d.id });
    const all = (await call(ops.svc_task_list, { work_unit_id: unit })) as { tasks: Item[] };
    expect(all.tasks.map((t) => t.title)).toEqual(['A', 'B', 'C2', 'D']);
    const running = (await call(ops.svc_task_list, { work_unit_id: unit, status: 'in_progress' })) as { tasks: Item[] };
    expect(running.tasks.map((t) => t.title)).toEqual(['D']);
    expect(((await call(ops.svc_task_list, unchecked({ work_unit_id: unit, status: '' }))) as { tasks: Item[] }).tasks).toHaveLength(4);
  });

  it('close is refused while a task is in progress unless forced; closed units take no tasks until reopened', async () => {
    const unit = await open();
    const task = await addTask(unit);
    await call(ops.svc_task_start, { task_id: task.id });
    const error = await refusal(call(ops.svc_work_close, { work_unit_id: unit }));
    expect(error.code).toBe('refused_transition');
    const closed = (await call(ops.svc_work_close, { work_unit_id: unit, force: true })) as { status: string };
    expect(closed.status).toBe('closed');
    expect((await refusal(call(ops.svc_work_close, { work_unit_id: unit }))).details.state).toBe('closed');
    expect((await refusal(addTask(unit))).code).toBe('refused_transition');
    await call(ops.work_reopen, { work_unit_id: unit });
    await addTask(unit, 'After reopen');
  });

  it('resume answers exactly work_units, tasks and qa_checks for units matching the keyword', async () => {
    const unit = await open('Checkout rewrite');
    await open('Search tuning');
    const task = await addTask(unit, 'Draft API');
    await call(ops.svc_qa_add, { project_id: 'work', title: 'API reviewed', target_task_ids: [task.id] });
    const resumed = (await call(ops.svc_work_resume, { project_id: 'work', keyword: 'checkout' })) as Record<string, { title: string }[]>;
    expect(Object.keys(resumed).sort()).toEqual(['qa_checks', 'tasks', 'work_units']);
    expect(resumed.work_units!.map((u) => u.title)).toEqual(['Checkout rewrite']);
    expect(resumed.tasks!.map((t) => t.title)).toEqual(['Draft API']);
    expect(resumed.qa_checks!.map((q) => q.title)).toEqual(['API reviewed']);
  });

  it('resume lists tasks unit by unit in the units\' order, and a check shared by two units once', async () => {
    const [x, y] = [await open('Payments alpha'), await open('Payments beta')];
    // Make the unit whose id sorts last the most recently touched, so that it comes first.
    const [first, second] = x > y ? [x, y] : [y, x];
    await svc.backdate('work_units', second, 60_000);
    const a1 = await addTask(second, 'Second unit, task 1');
    await addTask(second, 'Second unit, task 2');
    const b1 = await addTask(first, 'First unit, task 1');
    await addTask(first, 'First unit, task 2');
    await svc.backdate('work_units', second, 60_000);
    await call(ops.svc_qa_add, { project_id: 'work', title: 'Both verified', target_task_ids: [a1.id, b1.id] });

    const resumed = (await call(ops.svc_work_resume, { project_id: 'work', keyword: 'payments' })) as Record<string, { id: string; title: string }[]>;
    expect(resumed.work_units!.map((u) => u.id)).toEqual([first, second]);
    expect(resumed.tasks!.map((t) => t.title)).toEqual(['First unit, task 1', 'First unit, task 2', 'Second unit, task 1', 'Second unit, task 2']);
    expect(resumed.qa_checks!.map((q) => q.title)).toEqual(['Both verified']);
  });

  it('resume keeps its three keys and tells on each work unit whether its tasks or checks were cut', async () => {
    const big = await open('Bulk big');
    const small = await open('Bulk small');
    await addTask(small, 'Small task');
    await call(ops.svc_qa_add, { project_id: 'work', title: 'Small verified', work_unit_id: small });
    // RESUME_TASKS + 1 tasks in the unit that comes first, written in one statement to keep the test quick.
    await sql`insert into items (id, chain_id, project_id, item_type, title, body, context, work_unit_id, status)
      select g.id, g.id, ${seeded.projectId}::uuid, 'task', 'Bulk ' || g.n, '', jsonb_build_object('sort_order', g.n), ${big}::uuid, 'proposed'
      from (select gen_random_uuid() as id, n from generate_series(1, ${RESUME_TASKS + 1}) as n) g`.execute(svc.store.db);
    await sql`update work_units set updated_at = now() + interval '1 hour' where id = ${big}::uuid`.execute(svc.store.db);

    const resumed = (await call(ops.svc_work_resume, { project_id: 'work', keyword: 'bulk' })) as {
      work_units: { id: string; truncated: { tasks: boolean; qa_checks: boolean } }[];
      tasks: Item[];
      qa_checks: Item[];
    };
    expect(Object.keys(resumed).sort()).toEqual(['qa_checks', 'tasks', 'work_units']);
    expect(resumed.work_units.map((u) => [u.id, u.truncated])).toEqual([
      [big, { tasks: true, qa_checks: false, work_units: false }],
      [small, { tasks: true, qa_checks: false, work_units: false }],
    ]);
    expect(resumed.tasks).toHaveLength(RESUME_TASKS);
    expect(resumed.qa_checks.map((q) => q.title)).toEqual(['Small verified']);

    const alone = (await call(ops.svc_work_resume, { project_id: 'work', keyword: 'bulk small' })) as typeof resumed;
    expect(alone.work_units.map((u) => u.truncated)).toEqual([{ tasks: false, qa_checks: false, work_units: false }]);
  });

  it('resume lists RESUME_UNITS of 7 matching units and says on the last one that more matched, keeping its three keys', async () => {
    for (let i = 1; i <= 7; i++) await open(`Sprint ${i}`);
    type Resumed = { work_units: { title: string; truncated: { work_units: boolean } }[] };
    const resumed = (await call(ops.svc_work_resume, { project_id: 'work', keyword: 'sprint' })) as Resumed;
    expect(Object.keys(resumed).sort()).toEqual(['qa_checks', 'tasks', 'work_units']);
    expect(resumed.work_units).toHaveLength(RESUME_UNITS);
    expect(resumed.work_units.map((u) => u.truncated.work_units)).toEqual([false, false, false, false, true]);
    // All matching units listed: nothing more to say.
    const exact = (await call(ops.svc_work_resume, { project_id: 'work', keyword: 'sprint 1' })) as Resumed;
    expect(exact.work_units.map((u) => [u.title, u.truncated.work_units])).toEqual([['Sprint 1', false]]);
  });

  it('finds pending checks by task, by item and by work unit; a passed check cannot pass again', async () => {
    const unit = await open();
    const task = await addTask(unit, 'Build');
    const other = await addTask(await open('Other'), 'Elsewhere');
    const decision = (await call(ops.svc_item_upsert, { project_id: 'work', title: 'Use TLS' })) as Item;
    const byTask = (await call(ops.svc_qa_add, { project_id: 'work', title: 'Build verified', target_task_ids: [task.id.slice(0, 8)] })) as Item;
    const byItem = (await call(ops.svc_qa_add, { project_id: 'work', title: 'TLS verified', target_item_ids: [decision.id] })) as Item;
    const inUnit = (await call(ops.svc_qa_add, { project_id: 'work', title: 'Unit demo', work_unit_id: unit, coverage: 'mixed' })) as Item;
    await call(ops.svc_qa_add, { project_id: 'work', title: 'Other verified', target_task_ids: [other.id] });
    const titles = async (filter: Record<string, unknown>) =>
      ((await call(ops.svc_qa_list_pending, { project_id: 'work', ...filter })) as { qa_checks: Item[] }).qa_checks.map((c) => c.title).sort();
    expect(await titles({ task_id: task.id })).toEqual(['Build verified']);
    expect(await titles({ item_id: decision.id })).toEqual(['TLS verified']);
    expect(await titles({ work_unit_id: unit })).toEqual(['Build verified', 'Unit demo']);
    expect(await titles({})).toHaveLength(4);
    await call(ops.svc_qa_pass, { qa_id: byTask.id });
    expect(await titles({ task_id: task.id })).toEqual([]);
    expect((await refusal(call(ops.svc_qa_pass, { qa_id: byTask.id }))).code).toBe('refused_transition');
    expect((await show(inUnit.id)).context.coverage).toBe('mixed');
    expect((await show(byItem.id)).context.target_item_ids).toEqual([decision.chain_id]);
    const bad = await refusal(call(ops.svc_qa_add, { project_id: 'work', title: 'x', target_task_ids: [decision.id] }));
    expect(bad.message).toMatch(/^target_task_ids\[0\]/);
  });

  it('a mutator given project_id never touches a task of another project that shares the prefix', async () => {
    const other = await svc.seed('elsewhere');
    const insertTask = async (id: string, projectId: string) => {
      const unit = await svc.store.db.insertInto('work_units').values({ project_id: projectId, title: 'u' }).returning('id').executeTakeFirstOrThrow();
      await svc.store.db
        .insertInto('items')
        .values({ id, chain_id: id, project_id: projectId, item_type: 'task', title: 't', status: 'proposed', work_unit_id: unit.id, context: '{"sort_order":0}' })
        .execute();
    };
    await insertTask('cafe0001-0000-4000-8000-000000000001', seeded.projectId);
    await insertTask('cafe0002-0000-4000-8000-000000000002', other.projectId);
    expect((await refusal(call(ops.svc_task_start, { task_id: 'cafe' }))).code).toBe('ambiguous_id');
    const started = (await call(ops.svc_task_start, { task_id: 'cafe', project_id: 'elsewhere' })) as Item;
    expect(started.id).toBe('cafe0002-0000-4000-8000-000000000002');
    const mine = ((await call(ops.item_show, { item_id: 'cafe0001' })) as { item: Item }).item;
    expect(mine.status).toBe('proposed');
    expect((await refusal(call(ops.svc_task_done, { task_id: 'cafe0002', project_id: 'work' }))).code).toBe('not_found');
  });
});

describe.skipIf(skipWithoutPostgres())('one in-progress task under races on PostgreSQL', () => {
  const [postgres] = testBackends().filter((b) => b.name === 'postgres');
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(postgres!);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('50 rounds of 20 concurrent starts over separate connections: exactly one wins each round', async () => {
    const { actorId } = await svc.seed('race');
    const call = svc.as(actorId);
    for (let round = 0; round < 50; round++) {
      const unit = ((await call(ops.svc_work_open, { project_id: 'race', title: `Round ${round}` })) as { id: string }).id;
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(((await call(ops.svc_task_add, { work_unit_id: unit, title: `T${i}` })) as Item).id);
      const results = await Promise.allSettled(ids.map((id) => call(ops.svc_task_start, { task_id: id })));
      const won = results.filter((r) => r.status === 'fulfilled').length;
      const refused = results.filter((r) => r.status === 'rejected' && (r.reason as { code: string }).code === 'refused_transition').length;
      expect([won, refused]).toEqual([1, 19]);
      const running = await svc.store.db
        .selectFrom('items')
        .select('id')
        .where('work_unit_id', '=', unit)
        .where('status', '=', 'in_progress')
        .where('is_head', '=', true)
        .execute();
      expect(running).toHaveLength(1);
    }
  }, 180_000);
});
