import { parseQuery, planQuery } from '@svc/domain';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { byScore, ITEM_READS, leafKey, openAnalyzedSearch, openItemSearch, SEARCH_FUNCTIONS, occurrences, occurrencesText, planLeaves, planQueryText, tsquery } from './search.js';
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

describe('byScore', () => {
  it('orders items scored alike but for the last bits of their sums by time, the newer first (a reviewer, 2026-11-27)', () => {
    const older = { id: 'b', score: 5.691971823920311, updated_at: new Date('2026-11-27T10:00:00.074Z') };
    const newer = { id: 'a', score: 5.69197182392031, updated_at: new Date('2026-11-27T10:00:00.080Z') };
    const lower = { id: 'c', score: 5.6919718239, updated_at: new Date('2026-11-27T11:00:00.000Z') };
    expect([older, lower, newer].sort(byScore).map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect([newer, older].sort(byScore).map((x) => x.id)).toEqual(['a', 'b']);
    // Equal scores and times: by id.
    expect([{ ...older, id: 'z' }, { ...older, id: 'y' }].sort(byScore).map((x) => x.id)).toEqual(['y', 'z']);
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

  it('reads the items a search looks at by primary key, whatever the statistics say (generic plans, many one-item projects)', async () => {
    const db = store.db;
    onTestFinished(() => store.reset());
    // 1,500 projects of one item each: the statistics then say a project holds one item, and a generic plan once
    // read items through the project's index, filtering each by id (a scan of the project per item).
    await sql`insert into projects (slug, name) select 'tiny-' || g, 'Tiny' from generate_series(1, 1500) g`.execute(db);
    await sql`
      with p as (select id as project_id, gen_random_uuid() as id from projects where slug like 'tiny-%')
      insert into items (id, project_id, item_type, title, body, context, chain_id, is_head, version)
      select id, project_id, 'decision', 'cache note', 'cache words', '{}', id, true, 1 from p`.execute(db);
    await sql`analyze projects, items, search_postings`.execute(db);
    const project = (await sql<{ id: string }>`select id from projects where slug = 'tiny-1'`.execute(db)).rows[0]?.id;
    const ids = (await sql<{ id: string }>`select id from items limit 20`.execute(db)).rows.map((r) => r.id);
    const none = '00000000-0000-0000-0000-000000000000';
    const args: Record<keyof typeof ITEM_READS, unknown[]> = {
      analyze: [['cache'], project, null, null, 90, ['cache'], [false], 42, 600],
      oneTerm: [project, null, null, 90, 'cach', 2, none, 42],
      anchorMatching: [project, null, null, 90, 'cach', 2, none, 42, "'cach' & !'note'", 600, 0, ['cach', 'word']],
      checkIds: [ids, project, null, null, 90, "'cach'", ['cach'], [], true, 600],
      scoreAll: [['cach'], [1], 0.02, 42, project, null, null, 90, "'cach'", 21, 600, [1], 1],
      scoreAllTies: [['cach'], [1], 0.02, 42, project, null, null, 90, "'cach'", 21, 600, [1], 1],
      nearMisses: [['cach', 'note'], [1, 1], [1, 2], [null, null], 0.02, project, 3, 1, 0, [none], 42, project, null, null, 90, "'cach' | 'note'", [], 1, 84],
      nearMissesBest: [['cach', 'note'], [1, 1], [1, 2], [1, 1], 0.02, project, 3, 1, 0, [none], 42, project, null, null, 90, "'cach' | 'note'", [], 1, 84],
    };
    await db.connection().execute(async (conn) => {
      for (const [name, text] of Object.entries(ITEM_READS) as [keyof typeof ITEM_READS, string][]) {
        await sql.raw(`prepare plan_probe as ${text}`).execute(conn);
        try {
          await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
          const values = args[name].map((v) => (v === null ? 'null' : Array.isArray(v) ? `'${JSON.stringify(v).replace('[', '{').replace(/]$/, '}')}'` : typeof v === 'string' ? `'${v.replaceAll("'", "''")}'` : String(v)));
          const { rows } = await sql.raw<{ 'QUERY PLAN': unknown }>(`explain (format json) execute plan_probe(${values.join(', ')})`).execute(conn);
          const reads: string[] = [];
          const walk = (node: Record<string, unknown>) => {
            if (node['Relation Name'] === 'items') reads.push(`${node['Node Type']} ${String(node['Index Cond'] ?? node['Recheck Cond'] ?? '')}`);
            for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
          };
          const plan = rows[0]?.['QUERY PLAN'];
          walk(((typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {});
          expect(reads.length, name).toBeGreaterThan(0);
          // Every read of items looks the item up by its id (the primary key, or the project's index on (project, id)).
          for (const read of reads) expect(read, name).toMatch(/^(Index (Only )?Scan|Bitmap Heap Scan) .*(^|[^_])id = /);
        } finally {
          await sql`reset plan_cache_mode`.execute(conn);
          await sql`deallocate plan_probe`.execute(conn);
        }
      }
    });
  });

  it('opens a search with its statements planned once, not compiled, and stopped at the time-out given, for the transaction only', async () => {
    await sql`insert into projects (slug, name) values ('opened', 'Opened')`.execute(store.db);
    const plan = planQuery(parseQuery('cache pool'));
    if (!plan) throw new Error('no plan');
    const settings = sql<{ mode: string; jit: string; timeout: string }>`
      select current_setting('plan_cache_mode') as mode, current_setting('jit') as jit, current_setting('statement_timeout') as timeout`;
    for (const open of [
      (tx: typeof store.db) => openItemSearch(tx, 'opened', ['cache'], 1_500),
      (tx: typeof store.db) => openAnalyzedSearch(tx, 'opened', ['cache', 'pool'], plan, 1_500),
    ]) {
      const before = (await settings.execute(store.db)).rows[0];
      const inside = await store.db.transaction().execute(async (tx) => {
        await open(tx);
        return (await settings.execute(tx)).rows[0];
      });
      // A generic plan, no JIT (a generic estimate passed its threshold, and compiling took 10 ms of a 12 ms statement).
      expect(inside).toEqual({ mode: 'force_generic_plan', jit: 'off', timeout: '1500ms' });
      expect((await settings.execute(store.db)).rows[0]).toEqual(before);
    }
  });

  it("runs the search's functions as search.ts writes them: a change there needs a migration replacing the function", async () => {
    const { rows } = await sql<{ name: string; source: string }>`
      select proname as name, prosrc as source from pg_proc where proname in ('svc_search_analyze', 'svc_search_one') order by proname`.execute(store.db);
    expect(rows.map((r) => r.name)).toEqual(Object.keys(SEARCH_FUNCTIONS).sort());
    for (const r of rows) expect(r.source, `${r.name}: the database's body differs from SEARCH_FUNCTIONS; add a migration that replaces it`).toBe(SEARCH_FUNCTIONS[r.name as keyof typeof SEARCH_FUNCTIONS]);
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
