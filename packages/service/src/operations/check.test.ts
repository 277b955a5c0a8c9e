import type { Item } from '@svc/domain';
import { RULES } from '@svc/domain';
import { describe, expect, it } from 'vitest';
import { ops } from '../catalog.js';
import { type Call, DAY, testBackends, type TestService, unchecked } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';

interface CheckResult {
  counts: Record<string, number>;
  hidden_below_threshold: number;
  ran: string[];
  disabled: string[];
  results: { rule: string; total: number; findings: { items: { id: string; title: string }[]; note: string }[] }[];
}

describe.each(testBackends())('svc_check on $name', (backend) => {
  let svc: TestService;
  let call: Call;

  useTestService(backend, 'chk', (t) => {
    ({ svc, call } = t);
  });

  const run = async (rule: string) => {
    const result = (await call(ops.svc_check, { project_id: 'chk', rule })) as CheckResult;
    return result.results.find((r) => r.rule === rule)?.findings ?? [];
  };
  const item = async (title: string, extra: Record<string, unknown> = {}) =>
    (await call(ops.svc_item_upsert, { project_id: 'chk', title, body: 'why', ...extra })) as Item;
  const age = (table: 'items' | 'work_units', id: string, days: number) => svc.backdate(table, id, days * DAY);
  /** Move a task's svc_task_start (its status change to in_progress in history, and the row) `days` back. */
  const ageStart = async (t: Item, days: number) => {
    const then = new Date(Date.now() - days * DAY);
    await svc.store.db
      .updateTable('items_history')
      .set({ changed_at: then })
      .where('chain_id', '=', t.chain_id)
      .where('change_kind', '=', 'status_changed')
      .execute();
    await age('items', t.id, days);
  };
  const unit = async (title = 'Unit') => ((await call(ops.svc_work_open, { project_id: 'chk', title })) as { id: string }).id;
  const task = async (workUnit: string, title = 'Task') => (await call(ops.svc_task_add, { work_unit_id: workUnit, title })) as Item;

  const cases: Record<string, { fire: () => Promise<void>; quiet: () => Promise<void> }> = {
    'conflicting-decisions': {
      fire: async () => {
        const a = await item('Use REST');
        await item('Use gRPC', { links: [{ type: 'conflicts', target_id: a.id }] });
      },
      quiet: async () => {
        const a = await item('Use REST');
        const b = await item('Use gRPC', { links: [{ type: 'conflicts', target_id: a.id }] });
        await call(ops.item_delete, { item_id: b.id });
      },
    },
    'dependency-cycle': {
      // A waits on B (A depends on B) and B waits on A (A blocks B): a deadlock.
      fire: async () => {
        const b = await item('B');
        const a = await item('A', { links: [{ type: 'depends', target_id: b.id }] });
        await call(ops.link_add, { project_id: 'chk', from_id: a.id, type: 'blocks', to_id: b.id });
      },
      // "B depends on A" and "A blocks B" both say B waits on A: one fact twice, no cycle.
      quiet: async () => {
        const a = await item('A');
        const b = await item('B', { links: [{ type: 'depends', target_id: a.id }] });
        await call(ops.link_add, { project_id: 'chk', from_id: a.id, type: 'blocks', to_id: b.id });
        await call(ops.link_add, { project_id: 'chk', from_id: a.id, type: 'supersedes', to_id: b.id });
        await call(ops.link_add, { project_id: 'chk', from_id: b.id, type: 'conflicts', to_id: a.id });
      },
    },
    'chain-integrity': {
      fire: async () => {
        const a = await item('Headless');
        await svc.store.db.updateTable('items').set({ is_head: false }).where('id', '=', a.id).execute();
      },
      quiet: async () => {
        const a = await item('Fine');
        await item('Fine v2', { item_id: a.id });
      },
    },
    'qa-failed-on-done-task': {
      fire: async () => {
        const t = await task(await unit());
        await call(ops.svc_task_start, { task_id: t.id });
        await call(ops.svc_task_done, { task_id: t.id });
        const q = (await call(ops.svc_qa_add, { project_id: 'chk', title: 'Verify', target_task_ids: [t.id] })) as Item;
        await call(ops.svc_qa_fail, { qa_id: q.id });
      },
      quiet: async () => {
        const t = await task(await unit());
        await call(ops.svc_task_start, { task_id: t.id });
        const q = (await call(ops.svc_qa_add, { project_id: 'chk', title: 'Verify', target_task_ids: [t.id] })) as Item;
        await call(ops.svc_qa_fail, { qa_id: q.id });
      },
    },
    'dangling-link': {
      fire: async () => {
        const a = await item('A');
        await item('B', { links: [{ type: 'depends', target_id: a.id }] });
        await call(ops.item_delete, { item_id: a.id });
      },
      quiet: async () => {
        const a = await item('A');
        await item('B', { links: [{ type: 'depends', target_id: a.id }] });
      },
    },
    'research-expired': {
      fire: async () => {
        const r = await item('Old study', { item_type: 'research', source_url: 'https://example.test' });
        await age('items', r.id, 91);
      },
      quiet: async () => {
        const r = await item('Fresh study', { item_type: 'research', source_url: 'https://example.test' });
        await age('items', r.id, 30);
      },
    },
    'closed-unit-unfinished-tasks': {
      fire: async () => {
        const u = await unit();
        await task(u);
        await call(ops.svc_work_close, { work_unit_id: u });
      },
      quiet: async () => {
        const u = await unit();
        const t = await task(u);
        await call(ops.svc_task_start, { task_id: t.id });
        await call(ops.svc_task_done, { task_id: t.id });
        await call(ops.svc_work_close, { work_unit_id: u });
      },
    },
    'stale-in-progress': {
      fire: async () => {
        const t = await task(await unit());
        await call(ops.svc_task_start, { task_id: t.id });
        await ageStart(t, 15);
      },
      quiet: async () => {
        const t = await task(await unit());
        await call(ops.svc_task_start, { task_id: t.id });
        await ageStart(t, 13);
      },
    },
    'qa-passed-on-superseded-target': {
      fire: async () => {
        const d = await item('Rate limit 100');
        const q = (await call(ops.svc_qa_add, { project_id: 'chk', title: 'Verified', target_item_ids: [d.id] })) as Item;
        await call(ops.svc_qa_pass, { qa_id: q.id });
        await new Promise((r) => setTimeout(r, 5));
        await item('Rate limit 200', { item_id: d.id });
      },
      quiet: async () => {
        const d = await item('Rate limit 100');
        const v2 = await item('Rate limit 200', { item_id: d.id });
        await new Promise((r) => setTimeout(r, 5));
        const q = (await call(ops.svc_qa_add, { project_id: 'chk', title: 'Verified', target_item_ids: [v2.id] })) as Item;
        await call(ops.svc_qa_pass, { qa_id: q.id });
      },
    },
    'glossary-term-in-two-groups': {
      fire: async () => {
        await call(ops.glossary_group_add, { project_id: 'chk', name: 'g1' });
        await call(ops.glossary_group_add, { project_id: 'chk', name: 'g2' });
        await call(ops.glossary_term_add, { project_id: 'chk', group: 'g1', term: 'pod' });
        await call(ops.glossary_term_add, { project_id: 'chk', group: 'g2', term: 'Pod' });
      },
      quiet: async () => {
        await call(ops.glossary_group_add, { project_id: 'chk', name: 'g1' });
        await call(ops.glossary_group_add, { project_id: 'chk', name: 'g2' });
        await call(ops.glossary_term_add, { project_id: 'chk', group: 'g1', term: 'pod' });
        await call(ops.glossary_term_propose, { project_id: 'chk', group: 'g2', term: 'pod' });
      },
    },
    'research-expiring': {
      fire: async () => {
        const r = await item('Study', { item_type: 'research', source_url: 'https://example.test' });
        await age('items', r.id, 85);
      },
      quiet: async () => {
        const r = await item('Study', { item_type: 'research', source_url: 'https://example.test' });
        await age('items', r.id, 60);
      },
    },
    'done-task-without-qa': {
      fire: async () => {
        const t = await task(await unit());
        await call(ops.svc_task_start, { task_id: t.id });
        await call(ops.svc_task_done, { task_id: t.id });
      },
      quiet: async () => {
        const t = await task(await unit());
        await call(ops.svc_task_start, { task_id: t.id });
        await call(ops.svc_task_done, { task_id: t.id });
        await call(ops.svc_qa_add, { project_id: 'chk', title: 'Verify', target_task_ids: [t.id] });
      },
    },
    'empty-decision': {
      fire: async () => {
        await item('No reasons', { body: '  ' });
      },
      quiet: async () => {
        await item('With reasons', { body: 'because' });
        await item('Knowledge without body', { item_type: 'knowledge', body: '' });
      },
    },
    'stale-work-unit': {
      fire: async () => {
        await age('work_units', await unit('Forgotten'), 31);
      },
      quiet: async () => {
        await age('work_units', await unit('Recent'), 29);
        const closed = await unit('Closed');
        await call(ops.svc_work_close, { work_unit_id: closed });
        await age('work_units', closed, 40);
      },
    },
  };

  it('covers every rule of the pack', () => {
    expect(Object.keys(cases).sort()).toEqual(RULES.map((r) => r.id).sort());
  });

  for (const [rule, { fire, quiet }] of Object.entries(cases)) {
    it(`${rule} fires on its case`, async () => {
      await fire();
      const findings = await run(rule);
      expect(findings.length).toBeGreaterThan(0);
      expect(findings[0]!.items.length + findings[0]!.note.length).toBeGreaterThan(0);
    });
    it(`${rule} stays quiet otherwise`, async () => {
      await quiet();
      expect(await run(rule)).toEqual([]);
    });
  }

  it('treats severity as a display threshold only, and names rule, severity and items in markdown', async () => {
    await cases['conflicting-decisions']!.fire();
    await cases['empty-decision']!.fire();
    const all = await call(ops.svc_check, { project_id: 'chk' });
    const errorsOnly = (await call(ops.svc_check, { project_id: 'chk', severity: 'error' })) as CheckResult;
    expect(errorsOnly.counts).toEqual(all.counts);
    expect(errorsOnly.results.map((r) => r.rule)).not.toContain('empty-decision');
    expect(errorsOnly.hidden_below_threshold).toBeGreaterThan(0);
    const op = ops.svc_check;
    if (op.presentation.kind !== 'markdown') throw new Error('markdown expected');
    const text = op.presentation.render(all);
    expect(text).toMatch(/## error `conflicting-decisions`/);
    expect(text).toMatch(/Use gRPC \(`[0-9a-f]{8}`\) ↔ Use REST \(`[0-9a-f]{8}`\)/);
    expect(text).toMatch(/## info `empty-decision`/);
  });

  it('skips rules disabled in the project configuration, and refuses an unknown rule listing the rules', async () => {
    await cases['empty-decision']!.fire();
    await call(ops.project_config_import, { project_id: 'chk', config: '[checks]\ndisabled_rules = ["empty-decision"]\n' });
    const result = (await call(ops.svc_check, { project_id: 'chk' })) as CheckResult;
    expect(result.ran).not.toContain('empty-decision');
    expect(result.disabled).toEqual(['empty-decision']);
    expect(result.counts.info).toBe(0);
    const error = (await call(ops.svc_check, { project_id: 'chk', rule: 'no-such-rule' }).catch((e) => e)) as { code: string; message: string };
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('conflicting-decisions');
    const bad = (await call(ops.project_config_import, { project_id: 'chk', config: '[checks]\ndisabled_rules = ["nope"]' }).catch((e) => e)) as {
      message: string;
    };
    expect(bad.message).toMatch(/^checks\.disabled_rules\[0\]: unknown rule/);
    const typo = (await call(ops.project_config_import, { project_id: 'chk', config: '[research]\nttl_dayz = 3' }).catch((e) => e)) as {
      message: string;
    };
    expect(typo.message).toContain('ttl_dayz');
  });

  it('stale-in-progress measures from when the task entered in_progress, not from its last edit, and prints that time', async () => {
    const stale = await task(await unit('Old'), 'Started long ago');
    await call(ops.svc_task_start, { task_id: stale.id });
    await ageStart(stale, 20);
    // An edit yesterday, and a delete and restore, rewrite updated_at but not when the work started.
    const edited = (await call(ops.svc_task_edit, { task_id: stale.id, title: 'Started long ago, renamed' })) as Item;
    await age('items', edited.id, 1);
    await call(ops.item_delete, { project_id: 'chk', item_id: edited.id });
    await call(ops.item_restore, { project_id: 'chk', item_id: edited.id });
    const recent = await task(await unit('New'), 'Started lately');
    await call(ops.svc_task_start, { task_id: recent.id });
    await ageStart(recent, 3);
    const findings = await run('stale-in-progress');
    expect(findings.map((f) => f.items[0]!.title)).toEqual(['Started long ago, renamed']);
    const printed = /^in progress since (\d{4}-\d{2}-\d{2} \d{2}:\d{2})$/.exec(findings[0]!.note)?.[1];
    // The start, 20 days back (the database's time zone may shift the printed clock by a day at most).
    expect(Math.abs(Date.parse(`${printed?.replace(' ', 'T')}Z`) - (Date.now() - 20 * DAY))).toBeLessThan(DAY);
  });

  it('runs a disabled rule asked for by name and says so in the JSON and the markdown', async () => {
    await cases['empty-decision']!.fire();
    await call(ops.project_config_import, { project_id: 'chk', config: '[checks]\ndisabled_rules = ["empty-decision"]\n' });
    const asked = await call(ops.svc_check, { project_id: 'chk', rule: 'empty-decision' });
    expect(asked.ran).toEqual(['empty-decision']);
    expect(asked.results[0]!.total).toBeGreaterThan(0);
    expect(asked.disabled_but_requested).toEqual(['empty-decision']);
    const op = ops.svc_check;
    const markdown = op.presentation.kind === 'markdown' ? op.presentation.render(asked) : '';
    expect(markdown).toContain("Rule `empty-decision` is disabled in the project's settings; it ran because it was asked for.");
    const enabled = (await call(ops.svc_check, { project_id: 'chk', rule: 'conflicting-decisions' })) as typeof asked;
    expect(enabled.disabled_but_requested).toEqual([]);
    const all = (await call(ops.svc_check, { project_id: 'chk' })) as typeof asked;
    expect(all.disabled_but_requested).toEqual([]);
    expect(op.presentation.kind === 'markdown' && op.presentation.render(all)).not.toContain('it ran because');
  });

  it('reads a blocks link as the target waiting on its source: depends plus blocks the same way round is no cycle', async () => {
    // A depends on B: A waits on B. B blocks A: A waits on B. The same fact twice.
    const b = await item('B');
    const a = await item('A', { links: [{ type: 'depends', target_id: b.id }] });
    await call(ops.link_add, { project_id: 'chk', from_id: b.id, type: 'blocks', to_id: a.id });
    expect(await run('dependency-cycle')).toEqual([]);
    // Blocks alone, both ways round: A blocks B and B blocks A is a deadlock.
    const c = await item('C');
    const d = await item('D', { links: [{ type: 'blocks', target_id: c.id }] });
    await call(ops.link_add, { project_id: 'chk', from_id: c.id, type: 'blocks', to_id: d.id });
    expect((await run('dependency-cycle')).map((f) => f.items.map((i) => i.title).sort())).toEqual([['C', 'D']]);
  });

  it('reports A depends on B plus A blocks B as a deadlock naming both items', async () => {
    const b = await item('Schema migration');
    const a = await item('Cache layer', { links: [{ type: 'depends', target_id: b.id }] });
    await call(ops.link_add, { project_id: 'chk', from_id: a.id, type: 'blocks', to_id: b.id });
    const findings = await run('dependency-cycle');
    expect(findings).toHaveLength(1);
    expect(findings[0]?.items.map((i) => [i.id, i.title]).sort()).toEqual(
      [
        [a.id, 'Cache layer'],
        [b.id, 'Schema migration'],
      ].sort(),
    );
  });

  it('reports a dependency cycle among current versions only, across edits, not through a deleted item', async () => {
    const b = await item('B');
    const a = await item('A', { links: [{ type: 'depends', target_id: b.id }] });
    await call(ops.link_add, { project_id: 'chk', from_id: a.id, type: 'blocks', to_id: b.id });
    const a2 = await item('A edited', { item_id: a.id });
    const [cycle] = await run('dependency-cycle');
    expect(cycle?.items.map((i) => i.title).sort()).toEqual(['A edited', 'B']);
    expect(cycle?.items.map((i) => i.id)).toContain(a2.id);
    // B waits on D (depends), D on C (C blocks D), C on B (depends).
    const c = await item('C', { links: [{ type: 'depends', target_id: b.id }] });
    const d = await item('D');
    await call(ops.link_add, { project_id: 'chk', from_id: c.id, type: 'blocks', to_id: d.id });
    await call(ops.link_add, { project_id: 'chk', from_id: b.id, type: 'depends', to_id: d.id });
    // One strongly connected group: A ↔ B and B → D → C → B.
    expect((await run('dependency-cycle')).map((f) => f.items.map((i) => i.title).sort())).toEqual([['A edited', 'B', 'C', 'D']]);
    await call(ops.item_delete, { item_id: d.id });
    expect((await run('dependency-cycle')).map((f) => f.items.map((i) => i.title).sort())).toEqual([['A edited', 'B']]);
  });

  it('lists at most 10 items in one finding and counts the rest in its note', async () => {
    // A closed unit with 12 proposed tasks (closing refuses only while one is in progress).
    const u = await unit('Big unit');
    for (let i = 0; i < 12; i++) await task(u, `Task ${String(i).padStart(2, '0')}`);
    await call(ops.svc_work_close, { work_unit_id: u });
    const [closed] = await run('closed-unit-unfinished-tasks');
    expect(closed?.items.map((i) => i.title)).toEqual(Array.from({ length: 10 }, (_, i) => `Task ${String(i).padStart(2, '0')}`));
    expect(closed?.note).toBe('work unit Big unit is closed with 12 unfinished task(s), first 10 listed');

    // A ring of 12 items: one cycle of 12.
    const ring: Item[] = [];
    for (let i = 0; i < 12; i++) ring.push(await item(`Ring ${i}`, i === 0 ? {} : { links: [{ type: 'depends', target_id: ring[i - 1]?.id }] }));
    await call(ops.link_add, unchecked({ project_id: 'chk', from_id: ring[0]?.id, type: 'depends', to_id: ring[11]?.id }));
    const [cycle] = await run('dependency-cycle');
    expect(cycle?.items).toHaveLength(10);
    expect(new Set(cycle?.items.map((i) => i.title)).size).toBe(10);
    expect(cycle?.note).toBe('cycle of 12, first 10 listed');
  });

  it('reports a chain whose versions lost their head once, naming its latest version', async () => {
    const a = await item('First');
    const a2 = await item('Second', { item_id: a.id });
    const a3 = await item('Third', { item_id: a2.id });
    await svc.store.db.updateTable('items').set({ is_head: false }).where('id', '=', a3.id).execute();
    const findings = await run('chain-integrity');
    expect(findings).toEqual([{ items: [expect.objectContaining({ id: a3.id, title: 'Third' })], note: 'no current version' }]);
  });

  it('reports each link touching a deleted item once, in either direction', async () => {
    const a = await item('A');
    const b = await item('B', { links: [{ type: 'depends', target_id: a.id }] });
    const c = await item('C', { links: [{ type: 'blocks', target_id: b.id }] });
    await item('Unrelated', { links: [{ type: 'depends', target_id: c.id }] });
    await call(ops.item_delete, { item_id: b.id });
    const findings = await run('dangling-link');
    expect(findings.map((f) => [f.items.map((i) => i.title), f.note])).toEqual([
      [['B', 'A'], 'depends from a deleted item'],
      [['C', 'B'], 'blocks to a deleted item'],
    ]);
    await call(ops.item_delete, { item_id: a.id });
    expect((await run('dangling-link')).map((f) => f.note)).toEqual(['depends from a deleted item', 'blocks to a deleted item']);
  });

  it('uses the project research.ttl_days from its configuration', async () => {
    const r = await item('Study', { item_type: 'research', source_url: 'https://example.test' });
    await age('items', r.id, 10);
    expect(await run('research-expired')).toEqual([]);
    await call(ops.project_config_import, { project_id: 'chk', config: '[research]\nttl_days = 7\n' });
    expect(await run('research-expired')).toHaveLength(1);
    const hits = (await call(ops.svc_item_search, { project_id: 'chk', query: 'study' })) as { items: unknown[] };
    expect(hits.items).toEqual([]);
  });
});
