import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ops } from '../catalog.js';
import { type Call, openTestService, testBackends, type TestService, unchecked } from '../testing/index.js';

const TYPES = ['depends', 'blocks', 'supersedes', 'conflicts'] as const;
type Edge = { from: number; to: number; type: (typeof TYPES)[number] };

interface Reached {
  chain_id: string;
  depth: number;
  link_type: string;
  via_chain_id: string;
}

type Direction = 'outgoing' | 'incoming';

/**
 * Breadth-first search written independently of the service: the specification of svc_impact. Outgoing
 * follows each link from its source to its target; incoming follows it backwards, from target to source.
 */
function referenceImpact(ids: string[], deleted: Set<number>, edges: Edge[], start: number, depth: number, direction: Direction): Reached[] {
  const best = new Map<number, Reached>();
  let frontier = [start];
  const seen = new Set([start]);
  for (let d = 1; d <= Math.min(depth, 5) && frontier.length > 0; d++) {
    const next = new Map<number, Reached>();
    for (const from of frontier) {
      for (const e of edges) {
        const [near, far] = direction === 'outgoing' ? [e.from, e.to] : [e.to, e.from];
        if (near !== from || deleted.has(far) || seen.has(far)) continue;
        const candidate = { chain_id: ids[far] as string, depth: d, link_type: e.type, via_chain_id: ids[from] as string };
        const current = next.get(far);
        const better =
          !current ||
          TYPES.indexOf(e.type) < TYPES.indexOf(current.link_type as Edge['type']) ||
          (e.type === current.link_type && candidate.via_chain_id < current.via_chain_id);
        if (better) next.set(far, candidate);
      }
    }
    for (const [node, reached] of next) {
      seen.add(node);
      best.set(node, reached);
    }
    frontier = [...next.keys()];
  }
  return [...best.values()].sort((a, b) => a.chain_id.localeCompare(b.chain_id));
}

describe.each(testBackends())('svc_impact on $name', (backend) => {
  let svc: TestService;
  let call: Call;
  let impactProject: string;
  let otherProject: string;
  let otherItem: string;

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    const seeded = await svc.seed('impact');
    call = svc.as(seeded.actorId);
    impactProject = seeded.projectId;
    otherProject = (await svc.seed('impact-other')).projectId;
    otherItem = randomUUID();
    await svc.store.db
      .insertInto('items')
      .values({ id: otherItem, chain_id: otherItem, project_id: otherProject, item_type: 'decision', title: 'elsewhere', context: '{}' })
      .execute();
  });
  afterAll(async () => {
    await svc.close();
  });

  it('equals a reference breadth-first search on 500 random graphs, in both directions at every depth 1 to 6', async () => {
    let graph = 0;
    const graphs = fc.record({
      size: fc.integer({ min: 1, max: 9 }),
      edges: fc.array(
        fc.record({ from: fc.nat(8), to: fc.nat(8), type: fc.constantFrom(...TYPES) }),
        { maxLength: 24 },
      ),
      deleted: fc.array(fc.nat(8), { maxLength: 3 }),
      crossProject: fc.array(fc.nat(8), { maxLength: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(graphs, async ({ size, edges: raw, deleted: rawDeleted, crossProject }) => {
        const project = (await svc.call(ops.project_create, { slug: `g${graph++}` }, { source: 'cli' })) as { id: string; slug: string };
        const ids = Array.from({ length: size }, () => randomUUID());
        await svc.store.db
          .insertInto('items')
          .values(ids.map((id, i) => ({ id, chain_id: id, project_id: project.id, item_type: 'decision', title: `n${i}`, context: '{}' })))
          .execute();
        const edges = raw
          .map((e) => ({ ...e, from: e.from % size, to: e.to % size }))
          .filter((e, i, all) => e.from !== e.to && all.findIndex((o) => o.from === e.from && o.to === e.to && o.type === e.type) === i);
        if (edges.length > 0) {
          await svc.store.db
            .insertInto('links')
            .values(edges.map((e) => ({ project_id: project.id, from_chain_id: ids[e.from]!, link_type: e.type, to_chain_id: ids[e.to]! })))
            .execute();
        }
        // An edge into another project is refused by the database, so it can never be traversed.
        for (const n of crossProject) {
          await expect(
            svc.store.db
              .insertInto('links')
              .values({ project_id: project.id, from_chain_id: ids[n % size]!, link_type: 'depends', to_chain_id: otherItem })
              .execute(),
          ).rejects.toThrow();
        }
        const start = 0;
        const deleted = new Set(rawDeleted.map((d) => d % size).filter((d) => d !== start));
        for (const d of deleted) await svc.store.db.updateTable('items').set({ deleted_at: new Date() }).where('id', '=', ids[d]!).execute();

        for (const direction of ['outgoing', 'incoming'] as const) {
          for (let depth = 1; depth <= 6; depth++) {
            const result = (await call(ops.svc_impact, unchecked({ project_id: project.slug, item_id: ids[start], depth, direction }))) as {
              depth: number;
              direction: Direction;
              reachable: Reached[];
            };
            expect(result.depth).toBe(Math.min(depth, 5));
            expect(result.direction).toBe(direction);
            const got = result.reachable
              .map(({ chain_id, depth: d, link_type, via_chain_id }) => ({ chain_id, depth: d, link_type, via_chain_id }))
              .sort((a, b) => a.chain_id.localeCompare(b.chain_id));
            expect(got).toEqual(referenceImpact(ids, deleted, edges, start, depth, direction));
          }
        }
      }),
      { numRuns: 500 },
    );
  }, 600_000);

  it('lists the nearest 200 in order (depth, edge type, id) and counts every reachable item', async () => {
    const project = (await svc.call(ops.project_create, { slug: 'wide' }, { source: 'cli' })) as { id: string };
    const root = randomUUID();
    const near = Array.from({ length: 150 }, () => randomUUID());
    const far = Array.from({ length: 150 }, () => randomUUID());
    const all = [root, ...near, ...far];
    await svc.store.db
      .insertInto('items')
      .values(all.map((id, i) => ({ id, chain_id: id, project_id: project.id, item_type: 'decision', title: `w${i}`, context: '{}' })))
      .execute();
    // Depth 1: the root conflicts with half of `near` and depends on the other half; depth 2: each near item blocks one far item.
    const links = [
      ...near.map((id, i) => ({ project_id: project.id, from_chain_id: root, link_type: i % 2 ? ('depends' as const) : ('conflicts' as const), to_chain_id: id })),
      ...far.map((id, i) => ({ project_id: project.id, from_chain_id: near[i]!, link_type: 'blocks' as const, to_chain_id: id })),
    ];
    await svc.store.db.insertInto('links').values(links).execute();
    const result = (await call(ops.svc_impact, { project_id: 'wide', item_id: root, depth: 2 })) as { total: number; truncated: boolean; reachable: Reached[] };
    expect(result.total).toBe(300);
    expect(result.truncated).toBe(true);
    const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const depends = near.filter((_, i) => i % 2).sort(byId);
    const conflicts = near.filter((_, i) => i % 2 === 0).sort(byId);
    const expected = [...depends, ...conflicts, ...[...far].sort(byId)].slice(0, 200);
    expect(result.reachable.map((r) => r.chain_id)).toEqual(expected);
    expect(result.reachable[0]).toMatchObject({ depth: 1, link_type: 'depends', via_chain_id: root });
    expect(result.reachable[199]).toMatchObject({ depth: 2, link_type: 'blocks' });
  });

  it('follows outgoing links by default and incoming links on request: from the database decision, what depends on it', async () => {
    const db = (await call(ops.svc_item_upsert, { project_id: 'impact', title: 'Use PostgreSQL' })) as { id: string };
    const cache = (await call(ops.svc_item_upsert, { project_id: 'impact', title: 'Cache in Postgres', links: [{ type: 'depends', target_id: db.id }] })) as {
      id: string;
    };
    const outgoing = (await call(ops.svc_impact, { project_id: 'impact', item_id: db.id })) as { direction: string; reachable: Reached[] };
    expect(outgoing.direction).toBe('outgoing');
    expect(outgoing.reachable).toEqual([]);
    const incoming = (await call(ops.svc_impact, { project_id: 'impact', item_id: db.id, direction: 'incoming' })) as {
      direction: string;
      reachable: (Reached & { id: string; title: string })[];
    };
    expect(incoming.direction).toBe('incoming');
    expect(incoming.reachable.map((r) => [r.id, r.title, r.link_type, r.depth])).toEqual([[cache.id, 'Cache in Postgres', 'depends', 1]]);
    const fromCache = (await call(ops.svc_impact, { project_id: 'impact', item_id: cache.id })) as { reachable: { id: string }[] };
    expect(fromCache.reachable.map((r) => r.id)).toEqual([db.id]);
    const bad = (await call(ops.svc_impact, unchecked({ project_id: 'impact', item_id: db.id, direction: 'both' })).catch((e) => e)) as { code: string; details: { field: string } };
    expect(bad.code).toBe('invalid_input');
    expect(bad.details.field).toBe('direction');
  });

  it('resolves the item without project_id: a full UUID in any project, a prefix only when unique across projects', async () => {
    const here = (await call(ops.svc_item_upsert, { project_id: 'impact', title: 'Here' })) as { id: string };
    const next = (await call(ops.svc_item_upsert, { project_id: 'impact', title: 'Next', links: [{ type: 'blocks', target_id: here.id }] })) as { id: string };
    const byUuid = (await call(ops.svc_impact, { item_id: next.id })) as { item: { id: string }; reachable: { id: string }[] };
    expect(byUuid.item.id).toBe(next.id);
    expect(byUuid.reachable.map((r) => r.id)).toEqual([here.id]);
    expect(await call(ops.svc_impact, { item_id: next.id.slice(0, 8) })).toEqual(byUuid);
    // The item of the other project: its full UUID resolves without a project, and not inside this one.
    expect(((await call(ops.svc_impact, { item_id: otherItem })) as { item: { title: string } }).item.title).toBe('elsewhere');
    const scoped = (await call(ops.svc_impact, { project_id: 'impact', item_id: otherItem }).catch((e) => e)) as { code: string };
    expect(scoped.code).toBe('not_found');
    // Two items in two projects sharing a prefix: ambiguous without a project, resolved inside one.
    const twin = `${otherItem.slice(0, 8)}-0000-4000-8000-000000000000`;
    await svc.store.db
      .insertInto('items')
      .values({ id: twin, chain_id: twin, project_id: impactProject, item_type: 'decision', title: 'twin', context: '{}' })
      .execute();
    const ambiguous = (await call(ops.svc_impact, { item_id: otherItem.slice(0, 8) }).catch((e) => e)) as {
      code: string;
      details: { candidates: { id: string }[] };
    };
    expect(ambiguous.code).toBe('ambiguous_id');
    expect(ambiguous.details.candidates.map((c) => c.id).sort()).toEqual([otherItem, twin].sort());
    expect(((await call(ops.svc_impact, { project_id: 'impact', item_id: otherItem.slice(0, 8) })) as { item: { id: string } }).item.id).toBe(twin);
  });

  it('renders markdown citing the reachable items, and says so when none are', async () => {
    const a = (await call(ops.svc_item_upsert, { project_id: 'impact', title: 'Root decision' })) as { id: string };
    const b = (await call(ops.svc_item_upsert, { project_id: 'impact', title: 'Depends on root', links: [] })) as { id: string };
    await call(ops.link_add, { project_id: 'impact', from_id: a.id, type: 'depends', to_id: b.id });
    const op = ops.svc_impact;
    if (op.presentation.kind !== 'markdown') throw new Error('markdown expected');
    const text = op.presentation.render((await call(ops.svc_impact, { project_id: 'impact', item_id: a.id.slice(0, 8) })));
    expect(text).toContain('outgoing links');
    expect(text).toContain('## Depth 1');
    expect(text).toContain(`- depends → **Depends on root** (\`${b.id.slice(0, 8)}\`, decision)`);
    const lonely = op.presentation.render((await call(ops.svc_impact, { project_id: 'impact', item_id: b.id })));
    expect(lonely).toContain('_No items are reachable');
    const back = op.presentation.render((await call(ops.svc_impact, { project_id: 'impact', item_id: b.id, direction: 'incoming' })));
    expect(back).toContain('incoming links');
    expect(back).toContain(`- depends ← **Root decision** (\`${a.id.slice(0, 8)}\`, decision)`);
  });
});
