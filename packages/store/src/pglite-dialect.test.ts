import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TestStore, testBackends } from './testing/index.js';

describe.each(testBackends())('transactions on $name', (backend) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(async () => {
    await store.close();
  });
  beforeEach(() => store.reset());

  const count = async () =>
    Number((await store.db.selectFrom('projects').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);

  it('rolls back every statement of a failed transaction', async () => {
    await expect(
      store.db.transaction().execute(async (tx) => {
        await tx.insertInto('projects').values({ slug: 'a', name: 'a', settings: '{}' }).execute();
        await tx.insertInto('projects').values({ slug: 'a', name: 'duplicate', settings: '{}' }).execute();
      }),
    ).rejects.toThrow();
    expect(await count()).toBe(0);
  });

  it('keeps concurrent transactions from interleaving their statements', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.db.transaction().execute(async (tx) => {
          await tx.insertInto('projects').values({ slug: `p${i}`, name: 'x', settings: '{}' }).execute();
          await new Promise((r) => setTimeout(r, 5));
          if (i % 2 === 1) throw new Error('abort odd');
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const slugs = (await store.db.selectFrom('projects').select('slug').orderBy('slug').execute()).map((r) => r.slug);
    expect(slugs).toEqual(['p0', 'p2', 'p4', 'p6', 'p8']);
  });

  it('supports savepoints inside a transaction', async () => {
    await store.db.transaction().execute(async (tx) => {
      await tx.insertInto('projects').values({ slug: 'kept', name: 'x', settings: '{}' }).execute();
      await sql`savepoint s1`.execute(tx);
      await tx.insertInto('projects').values({ slug: 'undone', name: 'x', settings: '{}' }).execute();
      await sql`rollback to savepoint s1`.execute(tx);
    });
    expect((await store.db.selectFrom('projects').select('slug').execute()).map((r) => r.slug)).toEqual(['kept']);
  });

  it('returns bigint and numeric values as strings and timestamps as dates on both backends', async () => {
    const { rows } = await sql<{ big: unknown; num: unknown; at: unknown }>`select 9007199254740993::int8 as big, 1.50::numeric as num, now() as at`.execute(
      store.db,
    );
    expect(rows[0]?.big).toBe('9007199254740993');
    expect(rows[0]?.num).toBe('1.50');
    expect(rows[0]?.at).toBeInstanceOf(Date);
  });
});
