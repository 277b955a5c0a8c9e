import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestService, refusal, type TestService, testBackends } from '../testing/index.js';


describe.each(testBackends())('export and import on $name', (backend) => {
  let svc: TestService;
  let file: string;

  const count = async (table: 'items' | 'projects' | 'links') =>
    Number((await svc.store.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
  const exportOf = async (project: string) => `${((await svc.call('project_export', { project_id: project }, { source: 'cli' })) as { lines: string[] }).lines.join('\n')}\n`;

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    const { actorId, projectId } = await svc.seed('memory');
    const call = svc.as(actorId);
    // The bulk: 10,000 decisions, seeded in SQL.
    await sql`
      insert into items (id, chain_id, project_id, item_type, title, body, context, created_by)
      select g.id, g.id, ${projectId}::uuid, 'decision', 'Decision ' || g.n, 'Body of decision ' || g.n || ' about caching', '{"n": 1}'::jsonb, ${actorId}::uuid
      from (select gen_random_uuid() as id, n from generate_series(1, 10000) n) g`.execute(svc.store.db);
    // And a little of everything through the service.
    await call('system_add', { project_id: 'memory', name: 'billing' });
    const a = (await call('svc_item_upsert', { project_id: 'memory', title: 'Timeout 30s', body: 'Use timeout 30s.', system_id: 'billing' })) as { id: string };
    const a2 = (await call('svc_item_upsert', { project_id: 'memory', item_id: a.id, body: 'Use timeout 45s. All writes must be audited.' })) as { id: string };
    await call('svc_item_upsert', { project_id: 'memory', item_type: 'research', title: 'Study', source_url: 'https://example.test', links: [{ type: 'depends', target_id: a2.id }] });
    const unit = (await call('svc_work_open', { project_id: 'memory', title: 'Unit' })) as { id: string };
    const task = (await call('svc_task_add', { work_unit_id: unit.id, title: 'Task' })) as { id: string };
    await call('svc_task_start', { task_id: task.id });
    await call('svc_task_block', { task_id: task.id, reason: 'waiting' });
    await call('svc_qa_add', { project_id: 'memory', title: 'Check', target_task_ids: [task.id], target_item_ids: [a.id] });
    await call('svc_idea_add', { work_unit_id: unit.id, text: 'an idea' });
    const capture = (await call('svc_capture_add', { text: 'captured text' })) as { id: string };
    await call('svc_capture_promote', { capture_id: capture.id, project_id: 'memory', title: 'Promoted' });
    await call('glossary_group_add', { project_id: 'memory', name: 'db' });
    await call('glossary_term_add', { project_id: 'memory', group: 'db', term: 'postgres' });
    await call('glossary_term_propose', { project_id: 'memory', group: 'db', term: 'pg' });
    await call('svc_page_sync', { project_id: 'memory' });
    await call('project_config_import', { project_id: 'memory', config: '[research]\nttl_days = 30\n' });
    file = await exportOf('memory');
  }, 300_000);
  afterAll(async () => {
    await svc.close();
  });

  it('writes a header naming format and schema, every row, and an end record', () => {
    const lines = file.trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'svc-export', format_version: 1, schema: expect.stringMatching(/^\d{4}$/), project: 'memory' });
    expect(JSON.parse(lines.at(-1)!)).toEqual({ type: 'end', records: lines.length - 2 });
    const types = new Set(lines.slice(1, -1).map((l) => (JSON.parse(l) as { type: string }).type));
    for (const kind of ['project', 'actor', 'system', 'work_unit', 'item', 'link', 'history', 'glossary_group', 'glossary_term', 'capture', 'capture_promotion', 'idea', 'sync_job', 'audit']) {
      expect(types, kind).toContain(kind);
    }
    expect(lines.filter((l) => l.startsWith('{"type":"item"'))).toHaveLength(10_000 + 7);
  });

  it('round-trips byte for byte: export, import into an empty database, export again', async () => {
    await svc.store.reset();
    const result = (await svc.call('project_import', { jsonl: file }, { source: 'cli' })) as { counts: Record<string, number> };
    expect(result.counts.item).toBe(10_007);
    expect(await exportOf('memory')).toBe(file);
    // The restored memory works: search, history and the settings came back.
    const hits = (await svc.call('svc_item_search', { project_id: 'memory', query: 'audited' }, { source: 'cli' })) as { items: unknown[] };
    expect(hits.items).toHaveLength(1);
  }, 300_000);

  it('imports under a new slug with fresh ids, beside the original', async () => {
    const result = (await svc.call('project_import', { jsonl: file, as_slug: 'memory-copy' }, { source: 'cli' })) as { project_id: string };
    const copy = await exportOf('memory-copy');
    expect(copy.split('\n').length).toBe(file.split('\n').length);
    const original = JSON.parse(file.split('\n')[1]!) as { id: string };
    expect(result.project_id).not.toBe(original.id);
    const hits = (await svc.call('svc_item_search', { project_id: 'memory-copy', query: 'audited' }, { source: 'cli' })) as { items: unknown[] };
    expect(hits.items).toHaveLength(1);
    const again = await refusal(svc.call('project_import', { jsonl: file }, { source: 'cli' }));
    expect(again.code).toBe('conflict');
  }, 300_000);

  it('refuses a truncated or hand-corrupted file with its line number and writes nothing', async () => {
    await svc.store.reset();
    const lines = file.trimEnd().split('\n');
    const truncated = `${lines.slice(0, 5000).join('\n')}\n`;
    expect((await refusal(svc.call('project_import', { jsonl: truncated }, { source: 'cli' }))).message).toMatch(/^line 5001: .*truncated/);
    const cut = `${lines.slice(0, 5000).join('\n')}\n${lines[5000]!.slice(0, 20)}\n`;
    expect((await refusal(svc.call('project_import', { jsonl: cut }, { source: 'cli' }))).message).toMatch(/^line 5001: not valid JSON/);
    const itemLine = lines.findIndex((l) => l.startsWith('{"type":"item"'));
    const corrupted = [...lines];
    corrupted[itemLine + 100] = corrupted[itemLine + 100]!.replace('"item_type":"decision"', '"item_type":"no_such_type"');
    const refused = await refusal(svc.call('project_import', { jsonl: `${corrupted.join('\n')}\n` }, { source: 'cli' }));
    expect(refused.message).toMatch(new RegExp(`^line ${itemLine + 101}: the database refuses this item`));
    const extra = [...lines];
    extra[3] = extra[3]!.replace('{"type":', '{"colour":"red","type":');
    expect((await refusal(svc.call('project_import', { jsonl: `${extra.join('\n')}\n` }, { source: 'cli' }))).message).toMatch(/^line 4: unknown field 'colour'/);
    expect(await count('projects')).toBe(0);
    expect(await count('items')).toBe(0);
    expect(await count('links')).toBe(0);
  }, 300_000);
});
