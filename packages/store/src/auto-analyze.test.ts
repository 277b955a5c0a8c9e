import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './connection.js';
import { migrate } from './migrate.js';

/** When `table` was last analyzed (null: never), as the embedded database's statistics say. */
async function lastAnalyze(store: Store, table: string): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`select coalesce(last_analyze, last_autoanalyze) as at from pg_stat_user_tables where relname = ${table}`.execute(store.db);
  return rows[0]?.at ?? null;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: still ${String(value)} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the embedded database analyzes its own tables (PGlite has no autovacuum)', () => {
  let store: Store;
  beforeAll(async () => {
    // An instance of its own (the tests' shared one is not analyzed by the store): the owner's path.
    store = await openStore({ dataDir: 'memory://', analyzeEveryMs: 200, prepare: async (db) => void (await migrate(db)) });
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it('analyzes tables never analyzed, then those whose rows changed past autovacuum\'s threshold', async () => {
    const first = await until('first analyze of projects', () => lastAnalyze(store, 'projects'), (at) => at !== null);
    expect(Number((await sql<{ n: number }>`select reltuples::float8 as n from pg_class where relname = 'items'`.execute(store.db)).rows[0]?.n)).toBeGreaterThanOrEqual(0);
    await sql`insert into projects (slug, name) select 'p' || g, 'P' || g from generate_series(1, 300) g`.execute(store.db);
    await until('analyze after 300 new rows', () => lastAnalyze(store, 'projects'), (at) => at !== null && first !== null && at > first);
    const { rows } = await sql<{ n: number }>`select reltuples::float8 as n from pg_class where relname = 'projects'`.execute(store.db);
    expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(300);
  }, 120_000);
});
