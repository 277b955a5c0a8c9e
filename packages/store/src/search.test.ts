import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { occurrences, termOccurrences } from './search.js';
import { type TestStore, testBackends } from './testing/index.js';

describe('occurrences', () => {
  it("reads a vector's text: doubled quotes and backslashes, C as title, other weights and D (unwritten) as the rest", () => {
    expect(occurrences(String.raw`'a''b':1C,3 'c\\d':2,9C,11C 'e':4A 'f'`)).toEqual(
      new Map([
        ["a'b", { title: 1, other: 1 }],
        [String.raw`c\d`, { title: 2, other: 1 }],
        ['e', { title: 0, other: 1 }],
        ['f', { title: 0, other: 0 }],
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

  // Each term's title (A) and other occurrences counted one row per lexeme, as svc_search_postings counts them.
  const vectors = [
    String.raw`'cache':1A,4A,9B 'queue':2A 'lock':3B,5B,7B 'it''s':6A,8B 'c\\d':10B,12A`,
    `'cache':1B 'other':2A`,
    `'cache':3A 'x':1C,2D`,
    `'only':1A`,
  ];
  const terms = ['cache', 'queue', 'lock', "it's", String.raw`c\d`, 'absent'];

  it('keeps each query term with its title and other positions, and nothing else', async () => {
    for (const v of vectors) {
      const { rows } = await sql<{ text: string; lexeme: string | null; title: number | null; all: number | null }>`
        select ${termOccurrences(sql`${v}::tsvector`, terms)} as text, u.lexeme,
               cardinality(array_positions(u.weights, 'A')) as title, cardinality(u.weights) as all
        from (select 1) one left join unnest(${v}::tsvector) u on u.lexeme = any(${terms}::text[])`.execute(store.db);
      const expected = new Map(
        rows.filter((r) => r.lexeme !== null).map((r) => [r.lexeme as string, { title: Number(r.title), other: Number(r.all) - Number(r.title) }]),
      );
      expect(occurrences(rows[0]?.text ?? ''), v).toEqual(expected);
    }
  });
});
