import { notFound, parseIdRef } from '@svc/domain';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './connection.js';
import { showItem } from './items.js';
import { prepared, preparedName } from './prepared.js';
import { resolveProject } from './projects.js';
import { type TestStore, testBackends } from './testing/index.js';

const postgres = testBackends().find((b) => b.name === 'postgres');

describe('the prepared-statement registry', () => {
  it('names registered texts only, and refuses one name for two texts', () => {
    const text = prepared('registry_test', 'select 1 as registry_test');
    expect(preparedName(text)).toBe('svc_registry_test');
    expect(preparedName('select 1')).toBeUndefined();
    expect(prepared('registry_test', text)).toBe(text);
    expect(() => prepared('registry_test', 'select 2')).toThrow(/registered twice/);
  });
});

describe.skipIf(!postgres)('prepared statements on PostgreSQL', () => {
  let suite: TestStore;
  beforeAll(async () => {
    suite = await (postgres as NonNullable<typeof postgres>).open();
  });
  afterAll(async () => {
    await suite.close();
  });

  const ref = parseIdRef('00000000-0000-4000-8000-000000000000', 'item_id');
  /** item_show answered by the database: an unknown id is not_found (a lost statement would be a pg error). */
  const showAnswers = (store: Store) => expect(showItem(store.db, ref, { maxLinks: 200 })).rejects.toEqual(notFound('item', ref.input, ref.field));
  const preparedNames = async (store: Store) =>
    (await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(store.db)).rows.map((r) => r.name);

  /** Run item_show on a one-connection pool, then list what that connection holds prepared. */
  async function preparedAfterShow(preparedStatements: boolean): Promise<string[]> {
    const store = await openStore({ databaseUrl: suite.url, poolSize: 1, preparedStatements });
    try {
      for (let i = 0; i < 2; i++) await showAnswers(store);
      return await preparedNames(store);
    } finally {
      await store.close();
    }
  }

  it('keeps item_show prepared by name on the connection', async () => {
    expect(await preparedAfterShow(true)).toContain('svc_item_show');
  });

  it('keeps resolving projects by slug while a newer version adds a column to projects (a running server, a rolling upgrade)', async () => {
    const store = await openStore({ databaseUrl: suite.url, poolSize: 1 });
    try {
      await sql`insert into projects (slug, name) values ('upgrade', 'Upgrade') on conflict do nothing`.execute(store.db);
      for (let i = 0; i < 2; i++) expect((await resolveProject(store.db, 'upgrade')).slug).toBe('upgrade');
      expect(await preparedNames(store)).toContain('svc_project_by_slug');
      await sql`alter table projects add column upgrade_test text`.execute(store.db);
      try {
        expect((await resolveProject(store.db, 'upgrade')).slug).toBe('upgrade');
      } finally {
        await sql`alter table projects drop column upgrade_test`.execute(store.db);
      }
    } finally {
      await store.close();
    }
  });

  it('prepares nothing by name when turned off (for a pooler that cannot keep them)', async () => {
    expect(await preparedAfterShow(false)).toEqual([]);
  });

  // Behind a pooler in transaction mode, pg's connection meets server sessions that never saw its Parse
  // (26000 on Bind) or saw another client's (42P05 on Parse). The same session states, made on one connection:
  const losses = {
    'no longer holds the statement (26000)': async (store: Store) => {
      await showAnswers(store);
      await sql`deallocate all`.execute(store.db);
    },
    'already holds a statement of that name (42P05)': async (store: Store) => {
      await sql`prepare svc_item_show as select 1`.execute(store.db);
    },
  };
  for (const [session, lose] of Object.entries(losses)) {
    it(`answers item_show when the server session ${session}, warns once and stops naming statements`, async () => {
      const warnings: string[] = [];
      const store = await openStore({ databaseUrl: suite.url, poolSize: 1, onWarning: (m) => warnings.push(m) });
      try {
        await lose(store);
        const before = await preparedNames(store);
        for (let i = 0; i < 3; i++) await showAnswers(store);
        expect(warnings).toEqual([expect.stringMatching(/lost the prepared statement svc_item_show .*SVC_PREPARED_STATEMENTS=off/)]);
        expect(await preparedNames(store)).toEqual(before);
      } finally {
        await store.close();
      }
    });
  }
});
