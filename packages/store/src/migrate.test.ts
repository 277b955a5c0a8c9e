import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseQuery, planQuery, redactContext, SYSTEM_TYPE_SCHEMAS, type TsPlan } from '@svc/domain';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPGlite, openStore, type Store } from './connection.js';
import { loadMigrations, MIGRATIONS_DIR, migrate, migrationStatus } from './migrate.js';
import { searchItems } from './search.js';
import { createEmptyPostgresDatabase, skipWithoutPostgres, type TestStore, testBackends } from './testing/index.js';

describe('migration files', () => {
  it('mirror the version history: 0001 to 0006, then new schema work, each with its release', () => {
    expect(loadMigrations().map((m) => [m.id, m.release])).toEqual([
      ['0001', 'v0.5'],
      ['0002', 'v0.5.1'],
      ['0003', 'v0.5.2'],
      ['0004', 'v0.5.3'],
      ['0005', 'v0.6'],
      ['0006', 'v0.7.0'],
      ['0007', 'v0.8.0'],
      ['0008', 'v0.8.1'],
      ['0009', 'v0.8.2'],
      ['0010', 'v0.8.3'],
      ['0011', 'v0.9.0'],
      ['0012', 'v0.9.1'],
      ['0013', 'v0.9.2'],
      ['0014', 'v0.9.3'],
      ['0015', 'v0.9.4'],
      ['0016', 'v0.9.5'],
      ['0017', 'v0.9.6'],
      ['0018', 'v0.9.7'],
      ['0019', 'v0.9.8'],
      ['0020', 'v0.9.9'],
    ]);
  });
});

describe.each(testBackends())('schema on $name', (backend) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(async () => {
    await store.close();
  });

  it('is current after migrating, and migrating again applies nothing', async () => {
    const status = await migrationStatus(store.db);
    expect(status.current).toBe('0020');
    expect(status.currentRelease).toBe('v0.9.9');
    expect(status.pending).toEqual([]);
    expect(await migrate(store.db)).toEqual({ applied: [], current: '0020' });
  });

  it('seeds the seven system item types with the schemas the domain validates against', async () => {
    const rows = await store.db.selectFrom('item_types').select(['key', 'schema', 'owner']).execute();
    const seeded = Object.fromEntries(rows.map((r) => [r.key, r.schema]));
    expect(Object.keys(seeded).sort()).toEqual(Object.keys(SYSTEM_TYPE_SCHEMAS).sort());
    for (const [key, def] of Object.entries(SYSTEM_TYPE_SCHEMAS)) expect(seeded[key]).toEqual(def.schema);
    expect(rows.every((r) => r.owner === 'system')).toBe(true);
  });

  it('keeps actors free of credential columns and email unique regardless of case', async () => {
    const { rows } = await sql<{ column_name: string }>`
      select column_name from information_schema.columns where table_name = 'actors' order by column_name`.execute(store.db);
    expect(rows.map((r) => r.column_name)).toEqual(['email', 'external_ids', 'id', 'joined_at', 'name', 'role']);
    await store.db.insertInto('actors').values({ email: 'Ann@Example.test', external_ids: '{}' }).execute();
    await expect(store.db.insertInto('actors').values({ email: 'ann@example.test', external_ids: '{}' }).execute()).rejects.toThrow();
  });

  it('enforces in the database: link types, one head per chain, both link ends in one project, one task in progress', async () => {
    await store.reset();
    const [p1, p2] = await store.db
      .insertInto('projects')
      .values([
        { slug: 'one', name: 'one', settings: '{}' },
        { slug: 'two', name: 'two', settings: '{}' },
      ])
      .returning('id')
      .execute();
    const item = async (projectId: string, extra: Record<string, unknown> = {}) => {
      const id = crypto.randomUUID();
      await store.db
        .insertInto('items')
        .values({ id, chain_id: id, project_id: projectId, item_type: 'decision', title: 't', context: '{}', ...extra })
        .execute();
      return id;
    };
    const a = await item(p1!.id);
    const b = await item(p1!.id);
    const c = await item(p2!.id);
    await expect(
      // A type the schema does not know, written past the typed builder: the check constraint must refuse it.
      sql`insert into links (project_id, from_chain_id, link_type, to_chain_id) values (${p1!.id}, ${a}, 'relates', ${b})`.execute(store.db),
    ).rejects.toThrow();
    await expect(
      store.db.insertInto('links').values({ project_id: p1!.id, from_chain_id: a, link_type: 'depends', to_chain_id: c }).execute(),
    ).rejects.toThrow();
    await store.db.insertInto('links').values({ project_id: p1!.id, from_chain_id: a, link_type: 'depends', to_chain_id: b }).execute();
    // A second head in a chain.
    await expect(
      store.db
        .insertInto('items')
        .values({ id: crypto.randomUUID(), chain_id: a, supersedes_id: a, version: 2, project_id: p1!.id, item_type: 'decision', title: 't', context: '{}' })
        .execute(),
    ).rejects.toThrow();
    // One in-progress task per work unit.
    const unit = await store.db.insertInto('work_units').values({ project_id: p1!.id, title: 'u' }).returning('id').executeTakeFirstOrThrow();
    await item(p1!.id, { item_type: 'task', status: 'in_progress', work_unit_id: unit.id });
    await expect(item(p1!.id, { item_type: 'task', status: 'in_progress', work_unit_id: unit.id })).rejects.toThrow();
    await expect(item(p1!.id, { item_type: 'task', status: 'proposed' })).rejects.toThrow();
  });
});

describe.skipIf(skipWithoutPostgres())('concurrent migration on PostgreSQL', () => {
  it('applies the schema once when twenty migrators start at the same moment', async () => {
    const empty = await createEmptyPostgresDatabase();
    if (!empty) return;
    try {
      const stores = await Promise.all(Array.from({ length: 20 }, () => openStore({ databaseUrl: empty.url, poolSize: 1 })));
      const results = await Promise.all(stores.map((s) => migrate(s.db)));
      const applied = results.flatMap((r) => r.applied);
      expect(applied.sort()).toEqual(['0001', '0002', '0003', '0004', '0005', '0006', '0007', '0008', '0009', '0010', '0011', '0012', '0013', '0014', '0015', '0016', '0017', '0018', '0019', '0020']);
      const rows = await stores[0]!.db.selectFrom('schema_migrations').select('id').execute();
      expect(rows).toHaveLength(loadMigrations().length);
      await Promise.all(stores.map((s) => s.close()));
    } finally {
      await empty.drop();
    }
  });
});

describe.skipIf(!process.env.SVC_TEST_DATABASE_URL)('0009 on a database with items', () => {
  it('backfills refreshed_at from when each version was written, not from a later restore or a scope-only edit', async () => {
    const empty = await createEmptyPostgresDatabase();
    if (!empty) return;
    const before = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
    const store = await openStore({ databaseUrl: empty.url, poolSize: 1 });
    try {
      for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f < '0009')) copyFileSync(join(MIGRATIONS_DIR, file), join(before, file));
      await migrate(store.db, before);
      const ago = (days: number) => new Date(Date.now() - days * 86_400_000);
      const project = await store.db.insertInto('projects').values({ slug: 'old', name: 'old', settings: '{}' }).returning('id').executeTakeFirstOrThrow();
      const system = await store.db.insertInto('systems').values({ project_id: project.id, name: 'billing' }).returning('id').executeTakeFirstOrThrow();
      const [v1, v2, v3, restored, bare] = Array.from({ length: 5 }, () => crypto.randomUUID()) as [string, string, string, string, string];
      const research = { project_id: project.id, item_type: 'research', source_url: 'https://example.test', context: '{}' };
      // A chain: written 200 days ago, moved to a system 50 days ago (same content), re-written 10 days ago.
      await store.db.insertInto('items').values({ ...research, id: v1, chain_id: v1, title: 'Study', body: 'b', is_head: false, updated_at: ago(50) }).execute();
      await store.db
        .insertInto('items')
        .values({ ...research, id: v2, chain_id: v1, supersedes_id: v1, version: 2, title: 'Study', body: 'b', system_id: system.id, is_head: false, updated_at: ago(10) })
        .execute();
      await store.db
        .insertInto('items')
        .values({ ...research, id: v3, chain_id: v1, supersedes_id: v2, version: 3, title: 'Study', body: 'b, re-read', system_id: system.id, updated_at: ago(10) })
        .execute();
      // Written 100 days ago, deleted and restored today; and a row without history.
      await store.db.insertInto('items').values({ ...research, id: restored, chain_id: restored, title: 'Survey', body: 'b' }).execute();
      await store.db.insertInto('items').values({ ...research, id: bare, chain_id: bare, title: 'Bare', body: 'b', updated_at: ago(30) }).execute();
      const history = (item_id: string, version: number, change_kind: 'created' | 'superseded' | 'deleted' | 'restored', days: number) => ({
        project_id: project.id,
        item_id,
        chain_id: item_id === v2 || item_id === v3 ? v1 : item_id,
        version,
        change_kind,
        source: 'test',
        details: '{}',
        actor_id: null,
        changed_at: ago(days),
      });
      await store.db
        .insertInto('items_history')
        .values([
          history(v1, 1, 'created', 200),
          history(v2, 2, 'superseded', 50),
          history(v3, 3, 'superseded', 10),
          history(restored, 1, 'created', 100),
          history(restored, 1, 'deleted', 1),
          history(restored, 1, 'restored', 0),
        ])
        .execute();

      expect((await migrate(store.db)).applied).toEqual(['0009', '0010', '0011', '0012', '0013', '0014', '0015', '0016', '0017', '0018', '0019', '0020']);
      const rows = await store.db.selectFrom('items').select(['id', 'refreshed_at']).execute();
      const days = Object.fromEntries(rows.map((r) => [r.id, Math.round((Date.now() - new Date(r.refreshed_at).getTime()) / 86_400_000)]));
      expect(days).toEqual({ [v1]: 200, [v2]: 200, [v3]: 10, [restored]: 100, [bare]: 30 });
    } finally {
      await store.close();
      rmSync(before, { recursive: true, force: true });
      await empty.drop();
    }
  });
});

describe.skipIf(!process.env.SVC_TEST_DATABASE_URL)('0014 on a database with redacted promoted captures', () => {
  it("gives every version of an item made from a redacted capture today's redacted context, and leaves other items alone", async () => {
    const empty = await createEmptyPostgresDatabase();
    if (!empty) return;
    const before = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
    const store = await openStore({ databaseUrl: empty.url, poolSize: 1 });
    try {
      for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f < '0014')) copyFileSync(join(MIGRATIONS_DIR, file), join(before, file));
      await migrate(store.db, before);
      // Ends in a digit: a word with a digit is indexed as written, never stemmed (`…over` would lose its `er`).
      const marker = `zqxmarker${Date.now().toString(36)}7`;
      const pin = 900_000_000_000_000 + (Date.now() % 1_000_000_000);
      const project = await store.db.insertInto('projects').values({ slug: 'old', name: 'old', settings: '{}' }).returning('id').executeTakeFirstOrThrow();
      const unit = await store.db.insertInto('work_units').values({ project_id: project.id, title: 'Unit' }).returning('id').executeTakeFirstOrThrow();
      const base = { project_id: project.id, title: '[redacted]', body: '[redacted]' };
      const [k1, k2, k3, task, check, kept] = Array.from({ length: 6 }, () => crypto.randomUUID()) as [string, string, string, string, string, string];
      // As 0015's rule left them: strings masked, keys and numbers kept; and one row an older rule missed.
      const old = [
        { ...base, id: k1, chain_id: k1, is_head: false, item_type: 'knowledge', context: { [marker]: pin, deep: { [marker]: ['[redacted]', pin, true, null] } } },
        {
          ...base,
          id: k2,
          chain_id: k1,
          supersedes_id: k1,
          version: 2,
          is_head: false,
          item_type: 'knowledge',
          title: `Vault ${marker}`,
          context: { pin },
          source_url: `https://u:${marker}@Example.test/k/${marker}?t=${pin}`,
        },
        { ...base, id: task, chain_id: task, item_type: 'task', work_unit_id: unit.id, status: 'done' as const, context: { sort_order: 3, summary: '[redacted]' } },
        {
          ...base,
          id: check,
          chain_id: check,
          item_type: 'qa_check',
          status: 'pending' as const,
          context: { coverage: 'mixed', target_task_ids: [task], target_item_ids: [], note: '[redacted]' },
        },
      ];
      // Written after the redaction (its text's time past the capture's redaction): someone's new words, kept.
      const later = {
        ...base,
        id: k3,
        chain_id: k1,
        supersedes_id: k2,
        version: 3,
        item_type: 'knowledge',
        title: 'Rewritten after redaction',
        body: 'Rotate the vault monthly',
        context: { owner: 'ops' },
        refreshed_at: new Date(Date.now() + 3_600_000),
      };
      // Promoted from a capture that was not redacted: its words are the project's.
      const other = { ...base, id: kept, chain_id: kept, item_type: 'knowledge', title: `Kept ${marker}`, body: 'b', context: { [marker]: pin } };
      await store.db
        .insertInto('items')
        .values([...old, later, other].map((row) => ({ ...row, context: JSON.stringify(row.context) })))
        .execute();
      for (const [item, state] of [[k1, 'redacted'], [task, 'redacted'], [check, 'redacted'], [kept, 'promoted']] as const) {
        const capture = await store.db
          .insertInto('captures')
          .values({ text: state === 'redacted' ? '[redacted]' : 'words', summary: null, signals: '{}', review_state: state, redacted_at: state === 'redacted' ? new Date() : null })
          .returning('id')
          .executeTakeFirstOrThrow();
        await store.db.insertInto('capture_promotions').values({ capture_id: capture.id, item_id: item, project_id: project.id }).execute();
      }
      const terms = async () =>
        (await sql<{ term: string }>`select term from search_terms where project_id = ${project.id} union all select unnest(terms) from search_deltas where project_id = ${project.id}`.execute(store.db)).rows.map((r) => r.term);
      expect(await terms()).toContain(marker.toLowerCase());

      expect((await migrate(store.db)).applied).toEqual(['0014', '0015', '0016', '0017', '0018', '0019', '0020']);
      const rows = await store.db.selectFrom('items').select(['id', 'item_type', 'title', 'body', 'context', 'source_url']).execute();
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      for (const given of old) {
        const { title, body, context } = byId[given.id] ?? {};
        expect({ title, body, context }, given.id).toEqual({ title: '[redacted]', body: '[redacted]', context: redactContext(given.item_type, given.context) });
      }
      expect(byId[k2]?.source_url).toBe('https://example.test/');
      expect([byId[k3]?.title, byId[k3]?.body, byId[k3]?.context]).toEqual(['Rewritten after redaction', 'Rotate the vault monthly', { owner: 'ops' }]);
      expect([byId[kept]?.title, byId[kept]?.context]).toEqual([`Kept ${marker}`, { [marker]: pin }]);
      // The one item left holds the marker: the index keeps it once, for that item only.
      const postings = await sql<{ item_id: string }>`select item_id from search_postings where term = ${marker.toLowerCase()}`.execute(store.db);
      expect(postings.rows.map((r) => r.item_id)).toEqual([kept]);
      expect((await terms()).filter((t) => t === marker.toLowerCase())).toEqual([marker.toLowerCase()]);
    } finally {
      await store.close();
      rmSync(before, { recursive: true, force: true });
      await empty.drop();
    }
  });
});

/** Fresh databases for upgrade tests: a PGlite instance of its own, and an empty PostgreSQL database when there is one. */
const upgradeTargets: { name: string; open(): Promise<{ store: Store; close(): Promise<void> }> }[] = [
  {
    name: 'pglite',
    async open() {
      const instance = await createPGlite();
      const store = await openStore({ pglite: instance });
      return {
        store,
        async close() {
          await store.close();
          await instance.close();
        },
      };
    },
  },
  ...(process.env.SVC_TEST_DATABASE_URL
    ? [
        {
          name: 'postgres',
          async open() {
            const empty = await createEmptyPostgresDatabase();
            if (!empty) throw new Error('no PostgreSQL');
            const store = await openStore({ databaseUrl: empty.url, poolSize: 1 });
            return {
              store,
              async close() {
                await store.close();
                await empty.drop();
              },
            };
          },
        },
      ]
    : []),
];

describe.each(upgradeTargets)('0015 and 0016 on a $name database with items, captures and ideas', (target) => {
  it('recompute every search vector with identifiers counted once and found by their pieces, and rebuild each project index', async () => {
    const before = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
    const { store, close } = await target.open();
    const { db } = store;
    try {
      for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f < '0015')) copyFileSync(join(MIGRATIONS_DIR, file), join(before, file));
      await migrate(db, before);
      const [one, two] = await db
        .insertInto('projects')
        .values([
          { slug: 'one', name: 'one', settings: '{}' },
          { slug: 'two', name: 'two', settings: '{}' },
        ])
        .returning('id')
        .execute();
      const item = async (projectId: string, title: string, body: string, extra: Record<string, unknown> = {}) => {
        const id = crypto.randomUUID();
        await db.insertInto('items').values({ id, chain_id: id, project_id: projectId, item_type: 'decision', title, body, context: '{}', ...extra }).execute();
        return id;
      };
      const tool = await item(one!.id, 'svc_item_search', 'ranks items; wake workers with LISTEN/NOTIFY, read-only');
      const head = await item(one!.id, 'Chain head', 'the head moves on supersede');
      const rfc = await item(one!.id, 'Retries', 'follow RFC-0042 since 2024-01-05');
      await item(one!.id, 'Gone', 'is_head flag', { deleted_at: new Date() });
      const other = await item(two!.id, 'is_head', 'set is_head on the new version');
      const unit = await db.insertInto('work_units').values({ project_id: one!.id, title: 'u' }).returning('id').executeTakeFirstOrThrow();
      const idea = await db.insertInto('ideas').values({ project_id: one!.id, work_unit_id: unit.id, text: 'try a read-only pg.Pool' }).returning('id').executeTakeFirstOrThrow();
      const capture = await db.insertInto('captures').values({ text: 'set is_head when svc_item_search returns utf-8', signals: '{}' }).returning('id').executeTakeFirstOrThrow();
      // A glossary group of two accepted terms, from before 0019: the migration builds its postings.
      const group = await db.insertInto('glossary_groups').values({ project_id: one!.id, name: 'chains' }).returning('id').executeTakeFirstOrThrow();
      await db
        .insertInto('glossary_terms')
        .values(['head', 'retries'].map((term) => ({ project_id: one!.id, group_id: group.id, term, normalized: term, status: 'accepted' })))
        .execute();
      /** How many positions a lexeme has in a row's vector (0 when absent). */
      const positions = async (table: string, id: string, lexeme: string) => {
        const { rows } = await sql<{ n: number | null }>`
          select (select cardinality(u.positions) from unnest(t.search) u where u.lexeme = ${lexeme}) as n
          from ${sql.table(table)} t where t.id = ${id}::uuid`.execute(db);
        return rows[0]?.n ?? 0;
      };
      // 0011's vectors: the parts of `svc_item_search` and `read-only` twice, the whole never.
      expect(await positions('items', tool, 'item')).toBe(3);
      expect(await positions('items', tool, 'svc_item_search')).toBe(0);

      expect((await migrate(db)).applied).toEqual(['0015', '0016', '0017', '0018', '0019', '0020']);

      expect(await positions('items', tool, 'svc')).toBe(1);
      expect(await positions('items', tool, 'item')).toBe(2);
      expect(await positions('items', tool, 'svc_item_search')).toBe(1);
      expect(await positions('items', tool, 'read')).toBe(1);
      expect(await positions('items', tool, 'notifi')).toBe(1);
      expect(await positions('items', other, 'is_head')).toBe(2);
      expect(await positions('ideas', idea.id, 'read')).toBe(1);
      expect(await positions('ideas', idea.id, 'pool')).toBe(1);
      expect(await positions('captures', capture.id, 'is_head')).toBe(1);
      expect(await positions('captures', capture.id, 'item')).toBe(1);
      expect(await positions('items', rfc, '0042')).toBe(1);
      expect(await positions('items', rfc, '-0042')).toBe(1);
      expect(await positions('items', rfc, '05')).toBe(1);
      expect(await positions('items', tool, 'item_search')).toBe(1);
      expect(await positions('captures', capture.id, '8')).toBe(1);
      expect(await positions('captures', capture.id, 'svc_item')).toBe(1);

      // Each project's index is the one its current items define, with statistics to match and no pending deltas.
      const { rows: drift } = await sql<{ problem: string }>`
        with live as (
          select i.project_id, k.term, i.id as item_id, k.tf, k.dl, k.impact
          from items i join search_stats s on s.project_id = i.project_id, lateral svc_search_postings(i.search, s.ref_avgdl) k
          where i.is_head and i.deleted_at is null
        ),
        kept as (select project_id, term, item_id, tf, dl, impact from search_postings where term not like ' group:%')
        select 'missing ' || term as problem from (select * from live except select * from kept) a
        union all select 'extra ' || term from (select * from kept except select * from live) b
        union all select 'df ' || coalesce(w.term, t.term) from (select project_id, term, count(*) as df from live group by 1, 2) w
          full join search_terms t on t.project_id = w.project_id and t.term = w.term where w.df is distinct from t.df
        union all select 'docs ' || s.project_id from search_stats s
          where s.docs <> (select count(distinct item_id) from live where live.project_id = s.project_id)
             or s.total_len <> (select coalesce(sum(dl), 0) from (select distinct item_id, dl from live where live.project_id = s.project_id) d)
        union all select 'delta ' || project_id from search_deltas`.execute(db);
      expect(drift.map((r) => r.problem)).toEqual([]);
      const { rows: grouped } = await sql<{ item_id: string }>`
        select item_id from search_postings where project_id = ${one!.id}::uuid and term = svc_search_group_key(${group.id}::uuid) order by item_id`.execute(db);
      expect(grouped.map((r) => r.item_id)).toEqual([head, rfc].sort());
      const { rows: terms } = await sql<{ term: string; tf: number }>`
        select term, tf from search_postings where item_id = ${tool}::uuid and term in ('svc_item_search', 'item', 'read') order by term`.execute(db);
      expect(terms.map((r) => [r.term, Number(r.tf)])).toEqual([
        ['item', 4],
        ['read', 1],
        ['svc_item_search', 3],
      ]);

      const found = async (projectId: string, query: string) =>
        (await searchItems(db, planQuery(parseQuery(query)) as TsPlan, { project_id: projectId }, 10)).map((h) => h.id);
      expect(await found(one!.id, 'is_head')).toEqual([]);
      expect(await found(one!.id, 'head')).toEqual([head]);
      expect(await found(two!.id, 'is_head')).toEqual([other]);
      expect(await found(one!.id, 'svc_item_search')).toEqual([tool]);
      expect(await found(one!.id, 'notify')).toEqual([tool]);
      expect(await found(one!.id, '0042')).toEqual([rfc]);
      expect(await found(one!.id, 'RFC-0042')).toEqual([rfc]);
      expect(await found(one!.id, '05')).toEqual([rfc]);
      expect(await found(one!.id, 'item_search')).toEqual([tool]);
    } finally {
      await close();
      rmSync(before, { recursive: true, force: true });
    }
  });
});
