import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { occurrences, termOccurrences } from './search.js';
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

describe.each(testBackends())('an item vector cut down to the query terms, on $name', (backend) => {
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
      const { rows } = await sql<{ title: string; all: string; lexeme: string | null; a: number | null; n: number | null }>`
        select ${termOccurrences(sql`${v}::tsvector`, terms, 'title')} as title, ${termOccurrences(sql`${v}::tsvector`, terms, 'all')} as all,
               u.lexeme, cardinality(array_positions(u.weights, 'A')) as a, cardinality(u.weights) as n
        from (select 1) one left join unnest(${v}::tsvector) u on u.lexeme = any(${terms}::text[])`.execute(store.db);
      const held = rows.filter((r) => r.lexeme !== null);
      expect(occurrences(rows[0]?.all ?? ''), v).toEqual(new Map(held.map((r) => [r.lexeme as string, Number(r.n)])));
      expect(occurrences(rows[0]?.title ?? ''), v).toEqual(new Map(held.filter((r) => Number(r.a) > 0).map((r) => [r.lexeme as string, Number(r.a)])));
    }
  });
});
