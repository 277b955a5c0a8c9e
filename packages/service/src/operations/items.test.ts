import type { Item } from '@svc/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Call, refusal, testBackends, type TestService, unchecked } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';


describe.each(testBackends())('item core on $name', (backend) => {
  let svc: TestService;
  let call: Call;
  let project: { actorId: string; projectId: string; slug: string };
  let show: (id: string) => Promise<Item>;

  useTestService(backend, 'core', (t) => {
    ({ svc, call, seeded: project, show } = t);
  });

  /** Upsert, then read the written row (the answer carries only its ids and state). */
  const upsert = async (input: Record<string, unknown>) => show(((await call(ops.svc_item_upsert, { project_id: 'core', ...input })) as Item).id);

  it('treats a custom type keyed like an Object.prototype member as any other custom type', async () => {
    await call(ops.type_add, { key: 'constructor', schema: { type: 'object' } });
    const item = await upsert({ item_type: 'constructor', title: 'Prototype-named type', context: { constructor: 'x', toString: 1 } });
    expect(item).toMatchObject({ item_type: 'constructor', status: null });
    const edited = await upsert({ item_id: item.id, context: { constructor: 'y' } });
    expect(edited.context).toEqual({ constructor: 'y' });
  });

  it('supersedes on edit: a new head, the old id resolves to it, history keeps both versions', async () => {
    const v1 = await upsert({ title: 'Request timeout', body: 'Requests time out after timeout 30s.' });
    const v2 = await upsert({ item_id: v1.id, body: 'Requests time out after timeout 45s.' });
    expect(v2.id).not.toBe(v1.id);
    expect(v2.chain_id).toBe(v1.id);
    expect(v2.version).toBe(2);
    expect(v2.supersedes_id).toBe(v1.id);

    const shown = (await call(ops.item_show, { item_id: v1.id })) as { item: Item };
    expect(shown.item.id).toBe(v2.id);

    const heads = await svc.store.db
      .selectFrom('items')
      .select('id')
      .where('chain_id', '=', v1.id)
      .where('is_head', '=', true)
      .execute();
    expect(heads.map((h) => h.id)).toEqual([v2.id]);

    const history = (await call(ops.item_history, { item_id: v2.id })) as { versions: Item[] };
    expect(history.versions.map((v) => v.body)).toEqual([
      'Requests time out after timeout 30s.',
      'Requests time out after timeout 45s.',
    ]);
  });

  it('item_history answers the latest 200 versions, oldest first, and says when older ones were left out', async () => {
    let head = await upsert({ title: 'Often edited', body: 'v1' });
    const chain = head.chain_id;
    for (let v = 2; v <= 200; v++) head = await upsert({ item_id: head.id, body: `v${v}` });
    type History = { chain_id: string; head_id: string; versions: Item[]; truncated: boolean };
    const all = (await call(ops.item_history, { item_id: chain })) as History;
    expect(all.versions.map((v) => v.version)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(all.truncated).toBe(false);

    head = await upsert({ item_id: head.id, body: 'v201' });
    const cut = (await call(ops.item_history, { item_id: chain })) as History;
    expect(cut.versions.map((v) => v.version)).toEqual(Array.from({ length: 200 }, (_, i) => i + 2));
    expect(cut.versions.at(-1)?.id).toBe(head.id);
    expect(cut.head_id).toBe(head.id);
    expect(cut.truncated).toBe(true);
  });

  it("labels 'timeout 30s' → 'timeout 45s' numeric_change and an added 'must' sentence rule_addition", async () => {
    const v1 = await upsert({ title: 'Timeouts', body: 'Use timeout 30s for upstream calls.' });
    const v2 = await upsert({ item_id: v1.id, body: 'Use timeout 45s for upstream calls.' });
    await upsert({ item_id: v2.id, body: 'Use timeout 45s for upstream calls. All writes must be audited.' });

    const numeric = (await call(ops.svc_history_query, {
      project_id: 'core',
      item_id: v1.id,
      semantic_impacts: ['numeric_change'],
    })) as { entries: { version: number; semantic_impacts: string[] }[] };
    expect(numeric.entries.map((e) => [e.version, e.semantic_impacts])).toEqual([[2, ['numeric_change']]]);

    const rules = (await call(ops.svc_history_query, {
      project_id: 'core',
      semantic_impacts: ['rule_addition'],
    })) as { entries: { version: number; semantic_impacts: string[] }[] };
    expect(rules.entries.map((e) => [e.version, e.semantic_impacts])).toEqual([[3, ['rule_addition']]]);

    const all = (await call(ops.svc_history_query, { project_id: 'core', item_id: v2.id })) as {
      entries: { change_kind: string }[];
    };
    expect(all.entries.map((e) => e.change_kind)).toEqual(['superseded', 'superseded', 'created']);
  });

  it('refuses the second of two edits of the same head with conflict naming the new head', async () => {
    const v1 = await upsert({ title: 'Cache policy', body: 'Cache for 5 minutes.' });
    const first = await upsert({ item_id: v1.id, body: 'Cache for 10 minutes.' });
    const second = await refusal(upsert({ item_id: v1.id, body: 'Cache for 1 minute.' }));
    expect(second.code).toBe('conflict');
    expect(second.message).toContain(first.id.slice(0, 8));
    expect(second.details.current_head_id).toBe(first.id);
    const shown = (await call(ops.item_show, { item_id: v1.id })) as { item: Item };
    expect(shown.item.body).toBe('Cache for 10 minutes.');
  });

  // On PGlite (one connection) the two edits run one after another; only PostgreSQL makes them race.
  const twoEdits =
    backend.name === 'pglite'
      ? 'serialises two edits of one head, the second a conflict, over 20 rounds (pglite has one connection: no race)'
      : 'lets exactly one of two concurrent edits of one head win, the other a conflict, over 20 rounds';
  it(twoEdits, async () => {
    for (let round = 0; round < 20; round++) {
      const v1 = await upsert({ title: `Retry policy ${round}`, body: 'Retry 3 times.' });
      const results = await Promise.allSettled([
        upsert({ item_id: v1.id, body: 'Retry 4 times.' }),
        upsert({ item_id: v1.id, body: 'Retry 5 times.' }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect((lost[0]!.reason as { code: string }).code).toBe('conflict');
      const versions = await svc.store.db.selectFrom('items').select(['version', 'is_head']).where('chain_id', '=', v1.id).execute();
      expect(versions).toHaveLength(2);
      expect(versions.filter((v) => v.is_head)).toHaveLength(1);
    }
  });

  it('returns the current head and writes nothing for an edit that changes nothing', async () => {
    const v1 = await upsert({ title: 'Same', body: 'Unchanged.' });
    const again = await upsert({ item_id: v1.id, body: 'Unchanged.' });
    expect(again.id).toBe(v1.id);
    const rows = await svc.store.db.selectFrom('items').select('id').where('chain_id', '=', v1.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('svc_save_decisions with one invalid entry among ten writes nothing and names its index and field', async () => {
    const decisions = Array.from({ length: 10 }, (_, i) => ({ title: `Decision ${i}`, body: `Body ${i}` }));
    const shapeBad = decisions.map((d, i) => (i === 6 ? { ...d, title: '' } : d));
    const shape = await refusal(call(ops.svc_save_decisions, { project_id: 'core', decisions: shapeBad }));
    expect(shape.code).toBe('invalid_input');
    expect(shape.message).toMatch(/^decisions\[6\]\.title/);
    expect(shape.details.field).toBe('decisions[6].title');

    const refBad = decisions.map((d, i) => (i === 8 ? { ...d, system_id: 'no-such-system' } : d));
    const ref = await refusal(call(ops.svc_save_decisions, { project_id: 'core', decisions: refBad }));
    expect(ref.message).toContain('no-such-system');
    expect(ref.details.field).toBe('decisions[8].system_id');

    const linkBad = decisions.map((d, i) => (i === 3 ? { ...d, links: [{ type: 'depends', target_id: 'ffffffff' }] } : d));
    const link = await refusal(call(ops.svc_save_decisions, unchecked({ project_id: 'core', decisions: linkBad })));
    expect(link.message).toMatch(/^decisions\[3\]\.links\[0\]\.target_id/);
    expect(link.details.field).toBe('decisions[3].links[0].target_id');

    const count = await svc.store.db.selectFrom('items').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);

    const ok = (await call(ops.svc_save_decisions, { project_id: 'core', decisions })) as { created: string[] };
    expect(ok.created).toHaveLength(10);
    const titles = await svc.store.db.selectFrom('items').select('title').where('id', 'in', ok.created).execute();
    expect(titles.map((t) => t.title).sort()).toEqual(decisions.map((d) => d.title).sort());
  });

  it('refuses research without source_url, with a message naming the field', async () => {
    const error = await refusal(upsert({ item_type: 'research', title: 'Benchmarks of X' }));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^source_url: /);
    expect(error.details.field).toBe('source_url');
    const ok = await upsert({ item_type: 'research', title: 'Benchmarks of X', source_url: 'https://example.test/x' });
    expect(ok.source_url).toBe('https://example.test/x');
  });

  it('the database itself refuses a research row without source_url', async () => {
    await expect(
      sql`insert into items (id, chain_id, project_id, item_type, title) values (gen_random_uuid(), gen_random_uuid(), ${project.projectId}, 'research', 'x')`.execute(
        svc.store.db,
      ),
    ).rejects.toThrow();
  });

  it('refuses a task context with an unknown property and accepts arbitrary decision context', async () => {
    const unit = (await svc.store.db
      .insertInto('work_units')
      .values({ project_id: project.projectId, title: 'Unit' })
      .returning('id')
      .executeTakeFirstOrThrow()) as { id: string };
    const error = await refusal(
      upsert({ item_type: 'task', title: 'Do it', work_unit_id: unit.id, context: { sort_order: 1, colour: 'red' } }),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('colour');
    const task = await upsert({ item_type: 'task', title: 'Do it', work_unit_id: unit.id, context: { sort_order: 1 } });
    expect(task.status).toBe('proposed');
    const decision = await upsert({ title: 'Free form', context: { anything: [1, { nested: true }], colour: 'red' } });
    expect(decision.context).toEqual({ anything: [1, { nested: true }], colour: 'red' });
  });

  it('resolves unique prefixes, reports ambiguous ones with candidates, and scopes prefixes to project_id', async () => {
    const other = await svc.seed('other');
    const insert = (id: string, projectId: string, title: string) =>
      svc.store.db
        .insertInto('items')
        .values({ id, chain_id: id, project_id: projectId, item_type: 'decision', title, context: '{}' })
        .execute();
    await insert('abcd1111-0000-4000-8000-000000000001', project.projectId, 'Ours');
    await insert('abcd2222-0000-4000-8000-000000000002', other.projectId, 'Theirs');
    await insert('beef3333-0000-4000-8000-000000000003', other.projectId, 'Only theirs');

    const unique = (await call(ops.item_show, { item_id: 'abcd1' })) as { item: Item };
    expect(unique.item.title).toBe('Ours');

    const ambiguous = await refusal(call(ops.item_show, { item_id: 'abcd' }));
    expect(ambiguous.code).toBe('ambiguous_id');
    expect(ambiguous.message).toContain('abcd1111');
    expect(ambiguous.message).toContain('abcd2222');

    const scoped = (await call(ops.item_show, { item_id: 'abcd', project_id: 'core' })) as { item: Item };
    expect(scoped.item.title).toBe('Ours');
    // item_id is an argument of the write, not the record it addresses (the project is): a bad argument.
    const elsewhere = await refusal(call(ops.svc_item_upsert, { project_id: 'core', item_id: 'beef', body: 'x' }));
    expect(elsewhere).toMatchObject({ code: 'invalid_input', details: { field: 'item_id' } });
    expect(elsewhere.message).toMatch(/^item_id: /);
    const tooShort = await refusal(call(ops.item_show, { item_id: 'abc' }));
    expect(tooShort.code).toBe('invalid_input');
  });

  it('links join chains, so editing either end keeps the edge', async () => {
    const a = await upsert({ title: 'A' });
    const b = await upsert({ title: 'B', links: [{ type: 'depends', target_id: a.id.slice(0, 8) }] });
    const a2 = await upsert({ item_id: a.id, title: 'A2' });
    const shown = (await call(ops.item_show, { item_id: a2.id })) as { links: { from_chain_id: string; to_chain_id: string }[] };
    expect(shown.links).toEqual([expect.objectContaining({ from_chain_id: b.chain_id, to_chain_id: a.chain_id })]);
  });

  it('soft delete hides the item from prefix resolution for edits and restore brings it back', async () => {
    const a = await upsert({ title: 'Delete me' });
    await call(ops.item_delete, { item_id: a.id });
    const edit = await refusal(upsert({ item_id: a.id, title: 'x' }));
    expect(edit).toMatchObject({ code: 'invalid_input', details: { field: 'item_id' } });
    const again = await refusal(call(ops.item_delete, { item_id: a.id }));
    expect(again.code).toBe('refused_transition');
    const restored = (await call(ops.item_restore, { item_id: a.id })) as Item;
    expect(restored).not.toHaveProperty('deleted_at');
    expect((await show(restored.id)).deleted_at).toBeNull();
    expect((await upsert({ item_id: a.id, title: 'Kept' })).title).toBe('Kept');
  });

  it('needs an actor for tool writes, refuses unknown actors, and audits each write with its actor', async () => {
    const none = await refusal(svc.call(ops.svc_item_upsert, { project_id: 'core', title: 'x' }, { source: 'http' }));
    expect(none.code).toBe('actor_required');
    const unknown = await refusal(
      svc.call(ops.svc_item_upsert, { project_id: 'core', title: 'x' }, { source: 'http', actorId: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(unknown.code).toBe('unknown_actor');
    expect(unknown.message).toContain('svc actor add');

    const item = await upsert({ title: 'Audited' });
    const rows = await svc.store.db.selectFrom('audit_log').selectAll().where('operation', '=', 'svc_item_upsert').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_id: project.actorId, source: 'test', target_id: item.id, project_id: project.projectId });
    // Reads need no actor.
    await expect(svc.call(ops.item_show, { item_id: item.id }, { source: 'http' })).resolves.toBeDefined();
  });

  it('refuses unknown parameters and treats "" as an omitted optional parameter', async () => {
    const typo = await refusal(call(ops.svc_item_upsert, unchecked({ project_id: 'core', title: 'x', titel: 'y' })));
    expect(typo.code).toBe('invalid_input');
    expect(typo.message).toMatch(/^titel: unknown parameter/);
    const item = await upsert({ title: 'Blank filters', system_id: '', work_unit_id: '' });
    expect(item.system_id).toBeNull();
    // Nested too: a batch entry's or a link's misspelt field is refused, not silently dropped; nothing is written.
    const before = (await svc.store.db.selectFrom('items').select('id').execute()).length;
    const nested = await refusal(
      call(ops.svc_save_decisions, unchecked({ project_id: 'core', decisions: [{ title: 'ok' }, { title: 'x', source_url: 'javascript:alert(1)' }] })),
    );
    expect([nested.code, nested.message]).toEqual(['invalid_input', 'decisions[1].source_url: unknown parameter']);
    const link = await refusal(call(ops.svc_item_upsert, unchecked({ project_id: 'core', title: 'x', links: [{ type: 'depends', target_id: item.id, note: 'y' }] })));
    expect(link.message).toBe('links[0].note: unknown parameter');
    expect((await svc.store.db.selectFrom('items').select('id').execute()).length).toBe(before);
    // Free-form objects keep their keys.
    await expect(upsert({ title: 'Context keys', context: { any: { nested: 'key' } } })).resolves.toBeDefined();
  });

  it('refuses an unknown project and a malformed history time with the field named', async () => {
    const missing = await refusal(call(ops.svc_item_upsert, { project_id: 'nope', title: 'x' }));
    expect(missing.code).toBe('not_found');
    const when = await refusal(call(ops.svc_history_query, { project_id: 'core', since: 'yesterday' }));
    expect(when.code).toBe('invalid_input');
    expect(when.message).toMatch(/^since: /);
  });

  it('creates nothing when a later step of an operation fails (one transaction)', async () => {
    const a = await upsert({ title: 'Target' });
    const before = await svc.store.db.selectFrom('items').select('id').execute();
    const error = await refusal(upsert({ title: 'Self link', links: [{ type: 'depends', target_id: a.id }, { type: 'blocks', target_id: 'ffff' }] }));
    expect(error.code).toBe('invalid_input');
    const after = await svc.store.db.selectFrom('items').select('id').execute();
    expect(after).toHaveLength(before.length);
  });
});
