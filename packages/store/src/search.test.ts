import { parseQuery, planQuery } from '@svc/domain';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leafKey, occurrences, occurrencesText, planLeaves, planQueryText, tsquery } from './search.js';
import { type TestStore, testBackends } from './testing/index.js';

describe('occurrences', () => {
  it("reads a vector's text: doubled quotes and backslashes, a weight after a position, a lexeme without positions", () => {
    expect(occurrences(String.raw`'a''b':1C,3 'c\\d':2,9C,11A 'e':4A 'f'`)).toEqual(
      new Map([
        ["a'b", 2],
        [String.raw`c\d`, 3],
        ['e', 1],
        ['f', 0],
      ]),
    );
    expect(occurrences('')).toEqual(new Map());
  });
});

describe.each(testBackends())('search statements over vectors and query plans, on $name', (backend) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(async () => {
    await store.close();
  });

  // Each term's title (A) and total positions counted one row per lexeme, as svc_search_postings counts them.
  const vectors = [
    String.raw`'cache':1A,4A,9B 'queue':2A 'lock':3B,5B,7B 'it''s':6A,8B 'c\\d':10B,12A`,
    `'cache':1B 'other':2A`,
    `'cache':3A 'x':1C,2D`,
    `'only':1A`,
    // A long body: positions near the 16,383 a position can hold stay apart.
    `'cache':1A,2A,3A,4A,5A 'zeta':16376B,16377B,16378B,16379B`,
  ];
  const terms = ['cache', 'queue', 'lock', "it's", String.raw`c\d`, 'zeta', 'absent'];

  it("keeps each query term with its title's positions and all of them", async () => {
    for (const v of vectors) {
      const { rows } = await store.db.executeQuery<{ title: string; all: string; lexeme: string | null; a: number | null; n: number | null }>(
        CompiledQuery.raw(
          `select ${occurrencesText('$1::tsvector', '$2', 'title')} as title, ${occurrencesText('$1::tsvector', '$2', 'all')} as all,
                  u.lexeme, cardinality(array_positions(u.weights, 'A')) as a, cardinality(u.weights) as n
           from (select 1) one left join unnest($1::tsvector) u on u.lexeme = any($2::text[])`,
          [v, terms],
        ),
      );
      const held = rows.filter((r) => r.lexeme !== null);
      expect(occurrences(rows[0]?.all ?? ''), v).toEqual(new Map(held.map((r) => [r.lexeme as string, Number(r.n)])));
      expect(occurrences(rows[0]?.title ?? ''), v).toEqual(new Map(held.filter((r) => Number(r.a) > 0).map((r) => [r.lexeme as string, Number(r.a)])));
    }
  });

  it('writes a query plan as one tsquery value: the tsquery the plan builds in SQL, stop words, negations, phrases and identifiers included', async () => {
    const queries = [
      'cache',
      'connection pool timeout',
      '"read replica" lag',
      'redis OR memcached',
      'cache -redis',
      'the -mysql',
      'the OR cache',
      '"the of" cache',
      'a -the',
      '"svc_item_search twice" is_head',
      'LISTEN/NOTIFY -pg.Pool',
      "it's o'clock",
      '(x OR y) -"z w"',
    ];
    for (const text of queries) {
      const plan = planQuery(parseQuery(text));
      if (!plan) continue;
      const leaves = planLeaves(plan);
      const leafQuery = new Map<string, string>();
      for (const leaf of leaves) {
        const { rows } = await sql<{ q: string }>`select (${tsquery(leaf)})::text as q`.execute(store.db);
        leafQuery.set(leafKey(leaf), rows[0]?.q ?? '');
      }
      const { rows } = await sql<{ built: string; written: string }>`
        select (${tsquery(plan)})::text as built, ${planQueryText(plan, leafQuery)}::tsquery::text as written`.execute(store.db);
      expect(rows[0]?.written, text).toBe(rows[0]?.built);
    }
  });
});
