import { notFound, parseIdRef } from '@svc/domain';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from './connection.js';
import { showItem } from './items.js';
import { prepared, preparedName } from './prepared.js';
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

  /** Run item_show on a one-connection pool, then list what that connection holds prepared. */
  async function preparedAfterShow(preparedStatements: boolean): Promise<string[]> {
    const store = await openStore({ databaseUrl: suite.url, poolSize: 1, preparedStatements });
    try {
      const ref = parseIdRef('00000000-0000-4000-8000-000000000000', 'item_id');
      for (let i = 0; i < 2; i++) await expect(showItem(store.db, ref, { maxLinks: 200 })).rejects.toEqual(notFound('item', ref.input));
      const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(store.db);
      return rows.map((r) => r.name);
    } finally {
      await store.close();
    }
  }

  it('keeps item_show prepared by name on the connection', async () => {
    expect(await preparedAfterShow(true)).toContain('svc_item_show');
  });

  it('prepares nothing by name when turned off (for a pooler that cannot keep them)', async () => {
    expect(await preparedAfterShow(false)).toEqual([]);
  });
});
