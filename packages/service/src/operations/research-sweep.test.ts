import type { Item } from '@svc/domain';
import { describe, expect, it } from 'vitest';
import { type Call, DAY, testBackends, type TestService } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';

interface Sweep {
  ttl_days: number;
  expired: { id: string; title: string; refreshed_at: string }[];
  expired_count: number;
  soft_deleted: boolean;
  truncated: boolean;
  remaining: boolean;
}

describe.each(testBackends())('research_sweep on $name', (backend) => {
  let svc: TestService;
  let call: Call;

  useTestService(backend, 'sweep', (t) => {
    ({ svc, call } = t);
  });

  const item = async (title: string, ageDays: number, type = 'research') => {
    const made = (await call(ops.svc_item_upsert, {
      project_id: 'sweep',
      item_type: type,
      title,
      body: 'b',
      ...(type === 'research' ? { source_url: 'https://example.test/study' } : {}),
    })) as Item;
    await svc.backdate('items', made.id, ageDays * DAY);
    return { ...made, title };
  };
  const sweep = (softDelete?: boolean) => call(ops.research_sweep, { project_id: 'sweep', soft_delete: softDelete }) as Promise<Sweep>;
  const deletedAt = async (id: string) => ((await call(ops.item_show, { item_id: id })) as { item: Item }).item.deleted_at;

  it('lists research past the TTL oldest first and deletes nothing; soft_delete removes them, restorably, with history', async () => {
    const older = await item('Vendor benchmark 2024', 120);
    const old = await item('Library survey', 91);
    const fresh = await item('Recent study', 30);
    const decision = await item('Old decision', 400, 'decision');

    const listed = await sweep();
    expect(listed).toEqual({
      ttl_days: 90,
      expired: [
        { id: older.id, title: older.title, refreshed_at: expect.any(String) },
        { id: old.id, title: old.title, refreshed_at: expect.any(String) },
      ],
      expired_count: 2,
      soft_deleted: false,
      truncated: false,
      remaining: false,
    });
    expect(await deletedAt(older.id)).toBeNull();

    const swept = await sweep(true);
    expect(swept).toMatchObject({ expired: listed.expired, expired_count: 2, soft_deleted: true });
    expect(await deletedAt(older.id)).not.toBeNull();
    expect(await deletedAt(old.id)).not.toBeNull();
    expect(await deletedAt(fresh.id)).toBeNull();
    expect(await deletedAt(decision.id)).toBeNull();
    const history = await svc.store.db.selectFrom('items_history').selectAll().where('chain_id', '=', old.chain_id).where('change_kind', '=', 'deleted').execute();
    expect(history).toHaveLength(1);
    expect(history[0]?.details).toEqual({ reason: 'research expired' });
    expect((await sweep()).expired_count).toBe(0);

    await call(ops.item_restore, { item_id: old.id });
    expect(await deletedAt(old.id)).toBeNull();
  });

  it('counts expiry from the last write of the reference, not from a delete, restore or scope change', async () => {
    const survey = await item('Library survey', 91);
    const pricing = await item('Pricing page', 85);
    for (const id of [survey.id, pricing.id]) {
      await call(ops.item_delete, { item_id: id });
      await call(ops.item_restore, { item_id: id });
    }
    const rule = async (id: string) =>
      ((await call(ops.svc_check, { project_id: 'sweep', rule: id })) as { results: { findings: { items: { title: string }[] }[] }[] }).results[0]?.findings.map(
        (f) => f.items[0]?.title,
      );
    const searched = async (include_expired: boolean) =>
      ((await call(ops.svc_item_search, { project_id: 'sweep', query: 'survey OR pricing', include_expired })) as { items: { title: string }[] }).items
        .map((i) => i.title)
        .sort();
    const briefed = async () => ((await call(ops.svc_brief, { project_id: 'sweep' })) as { recent_items: { title: string }[] }).recent_items.map((i) => i.title);

    expect((await sweep()).expired.map((e) => e.id)).toEqual([survey.id]);
    expect(await rule('research-expired')).toEqual(['Library survey']);
    expect(await rule('research-expiring')).toEqual(['Pricing page']);
    expect(await searched(false)).toEqual(['Pricing page']);
    expect(await searched(true)).toEqual(['Library survey', 'Pricing page']);
    expect(await briefed()).toEqual(['Pricing page']);

    // Swept and restored: still as old as its reference.
    await sweep(true);
    await call(ops.item_restore, { item_id: survey.id });
    expect((await sweep()).expired.map((e) => e.title)).toEqual(['Library survey']);

    // Moving it to a system is not a new look at the source; editing what it says is.
    await call(ops.system_add, { project_id: 'sweep', name: 'billing' });
    const moved = (await call(ops.svc_item_upsert, { project_id: 'sweep', item_id: survey.id, system_id: 'billing' })) as Item;
    expect((await sweep()).expired.map((e) => e.id)).toEqual([moved.id]);
    const reread = (await call(ops.svc_item_upsert, { project_id: 'sweep', item_id: moved.id, body: 'Re-read in full; still current.' })) as Item;
    expect((await sweep()).expired_count).toBe(0);
    expect(await rule('research-expired')).toEqual([]);
    expect(await searched(false)).toEqual(['Library survey', 'Pricing page']);
    expect(reread.version).toBe(3);
  });

  it('names at most 200 expired items and counts them all', async () => {
    for (let i = 0; i < 203; i++) await item(`Study ${String(i).padStart(3, '0')}`, 200 - i * 0.1);
    const listed = await sweep();
    expect(listed.expired).toHaveLength(200);
    expect(listed.expired[0]?.title).toBe('Study 000');
    expect(listed).toMatchObject({ expired_count: 203, truncated: true, remaining: false });
    const swept = await sweep(true);
    expect(swept).toMatchObject({ expired_count: 203, truncated: true });
    expect((await sweep()).expired_count).toBe(0);
  });
});
