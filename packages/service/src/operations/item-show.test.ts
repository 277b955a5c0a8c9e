import type { Item } from '@svc/domain';
import { describe, expect, it } from 'vitest';
import { type Call, refusal, testBackends, type TestService, unchecked } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';

interface Shown {
  item: Item;
  truncated: boolean;
  links: { id: string; project_id: string; from_chain_id: string; link_type: string; to_chain_id: string; created_by: string | null; created_at: string }[];
}

const LINK_KEYS = ['id', 'project_id', 'from_chain_id', 'link_type', 'to_chain_id', 'created_by', 'created_at'];

describe.each(testBackends())('item_show on $name', (backend) => {
  let svc: TestService;
  let call: Call;
  let project: { actorId: string; projectId: string; slug: string };

  useTestService(backend, 'show', (t) => {
    ({ svc, call, seeded: project } = t);
  });

  const upsert = (input: Record<string, unknown>) => call(ops.svc_item_upsert, unchecked({ project_id: 'show', ...input })) as Promise<Item>;
  const show = (input: Record<string, unknown>) => call(ops.item_show, unchecked(input)) as Promise<Shown>;

  it('answers the head and the links from and to its chain, oldest first, whichever id of the chain is given', async () => {
    const a = await upsert({ title: 'A', body: 'First body.' });
    const b = await upsert({ title: 'B', links: [{ type: 'depends', target_id: a.id }] });
    const c = await upsert({ title: 'C' });
    const added = (await call(ops.link_add, { project_id: 'show', from_id: a.id, type: 'blocks', to_id: c.id })) as { link: Shown['links'][number] };
    const a2 = await upsert({ item_id: a.id, body: 'Second body.' });

    const shown = await show({ item_id: a.id });
    expect(shown).toEqual({
      item: expect.objectContaining({ ...a2, title: 'A', body: 'Second body.' }),
      links: [
        {
          id: expect.any(String),
          project_id: project.projectId,
          from_chain_id: b.chain_id,
          link_type: 'depends',
          to_chain_id: a.chain_id,
          created_by: project.actorId,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
        added.link,
      ],
      truncated: false,
    });
    expect(Object.keys(shown)).toEqual(['item', 'links', 'truncated']);
    for (const link of shown.links) expect(Object.keys(link)).toEqual(LINK_KEYS);

    // A full UUID of any version, in any case, a prefix (another code path) and a project scope: one answer.
    for (const input of [{ item_id: a2.id }, { item_id: a.id.toUpperCase() }, { item_id: a.id.slice(0, 8) }, { item_id: a2.id, project_id: 'show' }]) {
      expect(await show(input)).toEqual(shown);
    }
    expect(await show({ item_id: c.id })).toEqual({ item: expect.objectContaining({ ...c, title: 'C' }), links: [added.link], truncated: false });
    expect(await show({ item_id: b.id.slice(0, 6) })).toEqual({ item: expect.objectContaining({ ...b, title: 'B' }), links: [shown.links[0]], truncated: false });
  });

  it('answers an item without links with an empty list, and a deleted item too', async () => {
    const lone = await upsert({ title: 'Alone' });
    expect(await show({ item_id: lone.id })).toEqual({ item: expect.objectContaining({ ...lone, title: 'Alone' }), links: [], truncated: false });
    await call(ops.item_delete, { item_id: lone.id });
    const deleted = await show({ item_id: lone.id });
    expect(deleted.item.id).toBe(lone.id);
    expect(deleted.item.deleted_at).not.toBeNull();
  });

  it('orders links made in one write (same created_at) by id, so the answer is the same on every call', async () => {
    const targets = await Promise.all(['T1', 'T2', 'T3'].map((title) => upsert({ title })));
    const hub = await upsert({ title: 'Hub', links: targets.map((t) => ({ type: 'depends', target_id: t.id })) });
    const byUuid = await show({ item_id: hub.id });
    const ids = byUuid.links.map((l) => l.id);
    expect(ids).toEqual([...ids].sort());
    expect((await show({ item_id: hub.id.slice(0, 8) })).links.map((l) => l.id)).toEqual(ids);
  });

  it('lists at most 200 links of a hub, the oldest, and says when it cut the list, by UUID and by prefix', async () => {
    const hub = await upsert({ title: 'Hub of many' });
    const decide = (n: number, from: number) =>
      call(ops.svc_save_decisions, unchecked({
        project_id: 'show',
        decisions: Array.from({ length: n }, (_, i) => ({ title: `Leans on the hub ${from + i}`, body: 'b', links: [{ type: 'depends', target_id: hub.id }] })),
      }));
    await decide(199, 0);
    const under = await show({ item_id: hub.id });
    expect(under.links).toHaveLength(199);
    expect(under.truncated).toBe(false);

    await decide(1, 199);
    const full = await show({ item_id: hub.id });
    expect(full.links).toHaveLength(200);
    expect(full.truncated).toBe(false);

    // Newer links than the first 200 are the ones left out; the listed ones stay the same.
    const later = await upsert({ title: 'Later', links: [{ type: 'blocks', target_id: hub.id }] });
    for (const input of [{ item_id: hub.id }, { item_id: hub.id.slice(0, 8) }]) {
      const cut = await show(input);
      expect(cut.truncated).toBe(true);
      expect(cut.links).toEqual(full.links);
      expect(cut.links.some((l) => l.from_chain_id === later.chain_id)).toBe(false);
    }
  });

  it('refuses an unknown UUID, and one of another project when project_id is given, as not_found', async () => {
    const other = await svc.seed('elsewhere');
    const theirs = (await svc.as(other.actorId)(ops.svc_item_upsert, { project_id: 'elsewhere', title: 'Theirs' })) as Item;
    const unknown = await refusal(show({ item_id: '00000000-0000-4000-8000-000000000000' }));
    expect(unknown.code).toBe('not_found');
    expect(unknown.message).toContain('00000000-0000-4000-8000-000000000000');
    expect((await refusal(show({ item_id: theirs.id, project_id: 'show' }))).code).toBe('not_found');
    expect((await show({ item_id: theirs.id, project_id: 'elsewhere' })).item.title).toBe('Theirs');
  });
});
