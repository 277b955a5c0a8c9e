import { parseQuery, planQuery } from '@svc/domain';
import { bm25Tf, idf, searchItems } from '@svc/store';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Call, random, testBackends, type TestService } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { bm25Corpus } from '../testing/bm25.js';
import { ops } from '../catalog.js';

interface Hit {
  id: string;
  title: string;
  snippet: string;
  rank: number;
}

/**
 * Issue 18, "identifiers are words" (docs/decisions/0040-search-identifiers.md): slash-, dot-, underscore- and
 * hyphen-joined tokens are found whole and by their parts, case-insensitively, each occurrence counted once, in
 * items, captures and ideas alike.
 */
describe.each(testBackends())('identifiers in search on $name', (backend) => {
  let svc: TestService;
  let call: Call;

  useTestService(backend, 'ident', (t) => {
    ({ svc, call } = t);
  });

  const add = async (title: string, body = '') => (await call(ops.svc_item_upsert, { project_id: 'ident', title, body })) as { id: string };
  const search = async (query: string, extra: Record<string, unknown> = {}) =>
    ((await call(ops.svc_item_search, { project_id: 'ident', query, ...extra })) as { items: Hit[] }).items;
  const ids = async (query: string) => (await search(query)).map((h) => h.id).sort();
  const projectId = async () => (await svc.store.db.selectFrom('projects').select('id').where('slug', '=', 'ident').executeTakeFirstOrThrow()).id;

  /** An item's postings as the index holds them (term → tf) and its length. */
  const postings = async (itemId: string) => {
    const { rows } = await sql<{ term: string; tf: number; dl: number }>`
      select term, tf, dl from search_postings where item_id = ${itemId}::uuid order by term`.execute(svc.store.db);
    return { tf: Object.fromEntries(rows.map((r) => [r.term, Number(r.tf)])), dl: rows[0]?.dl };
  };
  /** How many positions a lexeme has in a vector column: how often the text is counted as saying it. */
  const occurrences = async (table: 'captures' | 'ideas', id: string, lexeme: string) => {
    const { rows } = await sql<{ n: number | null }>`
      select (select cardinality(u.positions) from unnest(t.search) u where u.lexeme = ${lexeme}) as n
      from ${sql.table(table)} t where t.id = ${id}::uuid`.execute(svc.store.db);
    return rows[0]?.n ?? 0;
  };

  it('counts each occurrence of a joined word once and indexes an underscore identifier whole', async () => {
    // Title words weigh 3, body words 1: each word below is said once in the title and once in the body.
    const item = await add('cache_key read-only', 'the cache_key of a read-only replica');
    const { tf, dl } = await postings(item.id);
    expect(tf).toEqual({ cach: 4, key: 4, cache_key: 4, read: 4, 'read-on': 4, replica: 1 });
    // Title: cache, key, read-only, read (only is a stop word), the whole cache_key; body: the same and replica.
    expect(dl).toBe(11);

    const paths = await add('Paths', 'LISTEN/NOTIFY, pg.Pool, /v1/orders and v0.8.1');
    expect((await postings(paths.id)).tf).toEqual({
      listen: 1,
      notifi: 1,
      'listen/notify': 1,
      pg: 1,
      pool: 1,
      'pg.pool': 1,
      v1: 1,
      order: 1,
      '/v1/orders': 1,
      v0: 1,
      '8': 1,
      '1': 1,
      'v0.8.1': 1,
      // Runs of a path's or version's parts (migration 0016).
      '/v1': 1,
      'v1/orders': 1,
      'v0.8': 1,
      '8.1': 1,
      // The version without its `v` (migration 0018).
      '0.8.1': 1,
      path: 3,
    });
  });

  it('finds a relative path as written, ./ ../ and ~/ included, wherever it stands in the text (a reviewer, 2026-11-27)', async () => {
    // After a space PostgreSQL's parser reads `./scripts/build.sh` as `.` and `/scripts/build.sh`; at the start of a
    // text as one token. The index holds `scripts/build.sh` either way, and the query looks for that.
    const build = await add('Build', 'run ./scripts/build.sh please');
    const lib = await add('Lib', 'see ../lib/x.ts');
    const conf = await add('Conf', 'at ~/.config/svc.toml');
    const deploy = await add('./deploy/run.sh', 'title is a relative path');
    for (const [query, id] of [
      ['./scripts/build.sh', build.id],
      ['scripts/build.sh', build.id],
      ['../lib/x.ts', lib.id],
      ['../../lib/x.ts', lib.id],
      ['~/.config/svc.toml', conf.id],
      ['./deploy/run.sh', deploy.id],
      ['deploy/run.sh', deploy.id],
    ] as const) {
      expect(await ids(query), query).toEqual([id]);
    }
    const hit = (await search('./scripts/build.sh'))[0];
    expect(hit?.snippet).toContain('**');
    const capture = (await call(ops.svc_capture_add, { text: 'ran ./scripts/build.sh twice', project_id: 'ident' })) as { id: string };
    const found = (await call(ops.svc_capture_search, { query: './scripts/build.sh', project_id: 'ident' })) as { captures: { id: string }[] };
    expect(found.captures.map((c) => c.id)).toEqual([capture.id]);
  });

  it('matches an underscore identifier whole: is_head is not every item saying head', async () => {
    const flag = await add('Head flag', 'set is_head on the new version only');
    const head = await add('Chain head', 'the head of the chain moves');
    expect(await ids('is_head')).toEqual([flag.id]);
    expect(await ids('IS_HEAD')).toEqual([flag.id]);
    expect(await ids('head')).toEqual([flag.id, head.id].sort());
    expect(await ids('-is_head chain')).toEqual([head.id]);
    // The whole, not the phrase of its parts: `is head` (stop word and head) is not the identifier either.
    await add('Stop word', 'what is head here');
    expect(await ids('is_head')).toEqual([flag.id]);
    expect(await ids('"is_head"')).toEqual([flag.id]);
  });

  it('finds identifiers whole and by their parts, case-insensitively', async () => {
    const tool = await add('Search tool', 'svc_item_search ranks items');
    const notify = await add('Wake-ups', 'use LISTEN/NOTIFY for wake-ups');
    const pool = await add('Pool', 'the pg.Pool of the service');
    const orders = await add('Orders', 'GET /v1/orders lists them');
    const release = await add('Release', 'shipped in v0.8.1');
    const ro = await add('Replica', 'a read-only replica');
    const mixed = await add('Mixed', 'foo.bar_baz-qux and node_modules/.bin and src/store_sql.ts');
    const ticket = await add('Ticket', 'per RFC-0042 and ISO-8601 since 2024-01-05, utf-8 only');
    const lock = await add('Lock', 'jobs call pg_try_advisory_lock(42) first');
    const other = await add('Other', 'nothing joined here: item search listen notify pool orders read');
    for (const [query, want] of [
      ['svc_item_search', [tool]],
      ['SVC_Item_Search', [tool]],
      ['svc', [tool]],
      ['ranks', [tool]],
      ['LISTEN/NOTIFY', [notify]],
      ['listen/notify', [notify]],
      ['pg.Pool', [pool]],
      ['PG.POOL', [pool]],
      ['/v1/orders', [orders]],
      ['v1', [orders]],
      ['v0.8.1', [release]],
      ['read-only', [ro]],
      ['READ-ONLY', [ro]],
      ['foo.bar_baz-qux', [mixed]],
      ['baz', [mixed]],
      ['foo', [mixed]],
      ['node_modules', [mixed]],
      ['node_modules/.bin', [mixed]],
      ['bin', [mixed]],
      ['store_sql', [mixed]],
      ['src/store_sql.ts', [mixed]],
      // A number joined to a word by a hyphen (the parser reads `-0042` as a negative number): whole and by parts.
      ['RFC-0042', [ticket]],
      ['rfc-0042', [ticket]],
      ['0042', [ticket]],
      ['rfc', [ticket]],
      ['8601', [ticket]],
      ['2024-01-05', [ticket]],
      ['01', [ticket]],
      ['2024-01', [ticket]],
      ['utf-8', [ticket]],
      ['"per RFC-0042 and"', [ticket]],
      // A run of two to four of an underscore identifier's parts finds it (the newcomer's `advisory_lock`).
      ['advisory_lock', [lock]],
      ['ADVISORY_LOCK', [lock]],
      ['try_advisory_lock', [lock]],
      ['pg_try', [lock]],
      ['svc_item', [tool]],
      ['item_search', [tool]],
      ['lock_advisory', []],
      // A run of a path's or host's parts finds it (a newcomer searched search.ts and prod.example.com, 2026-11-26).
      ['store_sql.ts', [mixed]],
    ] as const) {
      expect(await ids(query), query).toEqual(want.map((i) => i.id).sort());
    }
    for (const [query, want] of [
      ['item', [tool, other]],
      ['search', [tool, other]],
      ['notify', [notify, other]],
      ['Listen', [notify, other]],
      ['pool', [pool, other]],
      ['orders', [orders, other]],
      ['read', [ro, other]],
    ] as const) {
      expect(await ids(query), query).toEqual(want.map((i) => i.id).sort());
    }
  });

  it('keeps phrases over text holding identifiers, and highlights the identifier in snippets', async () => {
    const tool = await add('Tool', 'the agent calls svc_item_search twice before it writes');
    const notify = await add('Queue', 'we use LISTEN/NOTIFY for wake-ups on a read-only replica');
    await add('Other', 'the agent calls the search twice');
    expect(await ids('"calls svc_item_search twice"')).toEqual([tool.id]);
    expect(await ids('"svc item search"')).toEqual([tool.id]);
    expect(await ids('"use LISTEN/NOTIFY for"')).toEqual([notify.id]);
    expect(await ids('"a read-only replica"')).toEqual([notify.id]);
    expect(await ids('"listen notify"')).toEqual([notify.id]);
    const [hit] = await search('svc_item_search');
    expect(hit?.snippet).toBe('the agent calls **svc_item_search** twice before it writes');
    expect((await search('item'))[0]?.snippet).toBe('the agent calls svc_**item**_search twice before it writes');
    const [flagged] = await search('notify');
    expect(flagged?.id).toBe(notify.id);
    // The whole identifier, or the part asked for (the database's own headline marked neither).
    expect(flagged?.snippet).toBe('we use LISTEN/**NOTIFY** for wake-ups on a read-only replica');
    expect((await search('LISTEN/NOTIFY'))[0]?.snippet).toBe('we use **LISTEN/NOTIFY** for wake-ups on a read-only replica');
    expect((await search('replicas'))[0]?.snippet).toBe('we use LISTEN/NOTIFY for wake-ups on a read-only **replica**');
    await add('Ticket', 'retries follow RFC-0042 from now on');
    expect((await search('0042'))[0]?.snippet).toBe('retries follow RFC-**0042** from now on');
    expect((await search('rfc-0042'))[0]?.snippet).toBe('retries follow **RFC-0042** from now on');
    await add('Lock', 'jobs call pg_try_advisory_lock(42) first');
    expect((await search('advisory_lock'))[0]?.snippet).toBe('jobs call pg_try_**advisory_lock**(42) first');
    expect((await search('try_advisory_lock jobs'))[0]?.snippet).toBe('**jobs** call pg_**try_advisory_lock**(42) first');
    const file = await add('Search code', 'ranking lives in src/store/search.ts beside db-01.prod.example.com');
    for (const query of ['search.ts', 'src/store', 'store/search', 'prod.example.com']) expect((await search(query)).map((h) => h.id), query).toEqual([file.id]);
    expect((await search('search.ts'))[0]?.snippet).toBe('ranking lives in src/store/**search.ts** beside db-01.prod.example.com');
    expect((await search('prod.example.com'))[0]?.snippet).toBe('ranking lives in src/store/search.ts beside db-01.**prod.example.com**');
    // A decimal joined by a hyphen, read by the parser as a signed float: found and marked by itself (reviewer).
    await add('Runtime', 'pin node-20.1 in CI');
    expect((await search('20.1'))[0]?.snippet).toBe('pin node-**20.1** in CI');
    expect((await search('node-20.1'))[0]?.snippet).toBe('pin **node-20.1** in CI');
  });

  it('marks a compound word asked for where it stands, not its parts in other words (newcomer: db-01 marked the db of db-02)', async () => {
    const hosts = await add('Hosts', 'primary db-01 fails over to replica db-02 in host-a, never host-b');
    const [db01] = await search('db-01');
    expect(db01?.id).toBe(hosts.id);
    expect(db01?.snippet).toBe('primary **db-01** fails over to replica db-02 in host-a, never host-b');
    expect((await search('host-a'))[0]?.snippet).toBe('primary db-01 fails over to replica db-02 in **host-a**, never host-b');
    // Asked for on its own too, the part is marked everywhere.
    expect((await search('db-01 db'))[0]?.snippet).toBe('primary **db-01** fails over to replica **db**-02 in host-a, never host-b');
    expect((await search('db'))[0]?.snippet).toBe('primary **db**-01 fails over to replica **db**-02 in host-a, never host-b');
    // Words joined by other punctuation are no compound: each is marked wherever it stands (a reviewer).
    expect((await search('db-01,db-02'))[0]?.snippet).toBe('primary **db-01** fails over to replica **db-02** in host-a, never host-b');
    const runners = await add('Runners', 'Redis is a cache for self-hosting runners');
    expect((await search('cache,redis'))[0]).toMatchObject({ id: runners.id, snippet: '**Redis** is a **cache** for self-hosting runners' });
    expect((await search('self-hosted'))[0]).toMatchObject({ id: runners.id, snippet: 'Redis is a cache for **self-hosting** runners' });
    const queue = await add('Queue', 'we use LISTEN/NOTIFY here; listen elsewhere');
    expect((await search('LISTEN/NOTIFY'))[0]).toMatchObject({ id: queue.id, snippet: 'we use **LISTEN/NOTIFY** here; listen elsewhere' });
  });

  it('finds, and excludes, a word or URL longer than 128 characters as the index split it (attacker, 2026-11-26)', async () => {
    const url = `https://example.com/${'segment/'.repeat(16)}end`;
    const long = 'z'.repeat(200);
    const runbook = await add('Runbook', `runbook at ${url} and ${long}`);
    const other = await add('Other runbook', 'runbook without links');
    expect(await ids(url)).toEqual([runbook.id]);
    expect(await ids(`"${url}"`)).toEqual([runbook.id]);
    expect(await ids(long)).toEqual([runbook.id]);
    expect(await ids(`runbook -${url}`)).toEqual([other.id]);
    expect(await ids(`runbook -${long}`)).toEqual([other.id]);
  });

  it('ranks identifier queries by BM25F over the terms indexed, each counted once', async () => {
    const rand = random(40);
    const words = ['svc_item_search', 'item', 'search', 'is_head', 'head', 'LISTEN/NOTIFY', 'notify', 'read-only', 'read', 'pg.Pool', 'pool', 'calls', 'the', 'ledger', 'RFC-0042', '0042', 'pg_try_advisory_lock'];
    const pick = () => words[Math.floor(rand() * words.length)] as string;
    const text = (n: number) => Array.from({ length: n }, pick).join(rand() < 0.5 ? ' ' : ', ');
    for (let i = 0; i < 70; i++) await add(text(1 + Math.floor(rand() * 3)), text(Math.floor(rand() * 20)));

    const p = await projectId();
    const { docs, df, avgdl } = await bm25Corpus(svc.store.db, p);
    // Each query, the lexemes it is scored by, and which items it matches, written out here by hand.
    const queries: [string, string[], string][] = [
      ['svc_item_search', ['svc_item_search'], `'svc_item_search'`],
      ['is_head', ['is_head'], `'is_head'`],
      ['item', ['item'], `'item'`],
      ['LISTEN/NOTIFY', ['listen/notify'], `'listen/notify'`],
      ['notify', ['notifi'], `'notifi'`],
      ['read-only', ['read-on', 'read'], `'read-on' & 'read'`],
      ['svc_item_search is_head', ['svc_item_search', 'is_head'], `'svc_item_search' & 'is_head'`],
      ['svc_item_search OR pg.Pool', ['svc_item_search', 'pg.pool'], `'svc_item_search' | 'pg.pool'`],
      ['item -is_head', ['item'], `'item' & !'is_head'`],
      ['"calls svc_item_search"', ['call', 'svc_item_search'], `('call' <-> 'svc' <-> 'item' <-> 'search') & 'svc_item_search'`],
      ['RFC-0042', ['rfc', '-0042'], `'rfc' & '-0042'`],
      ['0042', ['0042'], `'0042'`],
      ['0042 ledger', ['0042', 'ledger'], `'0042' & 'ledger'`],
      ['advisory_lock', ['advisory_lock'], `'advisory_lock'`],
      ['item_search', ['item_search'], `'item_search'`],
    ];
    for (const [query, terms, tsq] of queries) {
      const matching = await sql<{ id: string }>`
        select id from items where project_id = ${p}::uuid and is_head and deleted_at is null and search @@ ${tsq}::tsquery`.execute(svc.store.db);
      expect(matching.rows.length, `${query} matches something`).toBeGreaterThan(0);
      const expected = matching.rows
        .map(({ id }) => {
          const d = docs.get(id);
          let score = 0;
          for (const t of terms) {
            const tf = d?.tf.get(t);
            if (tf !== undefined && d) score += idf(docs.size, df.get(t) ?? 0) * bm25Tf(tf, d.dl, avgdl);
          }
          return score;
        })
        .sort((x, y) => y - x);
      const got = (await search(query, { limit: 100 })).map((h) => h.rank);
      expect(got.length, query).toBe(expected.length);
      for (const [i, score] of got.entries()) expect(score, `${query} #${i + 1}`).toBeCloseTo(expected[i] as number, 5);
      const plan = planQuery(parseQuery(query));
      if (!plan) throw new Error(`${query} plans to nothing`);
      for (const strategy of ['walk', 'all'] as const) {
        for (const limit of [1, 5]) {
          const ranks = (await searchItems(svc.store.db, plan, { project_id: p }, limit, { strategy })).slice(0, limit).map((h) => h.rank);
          expect(ranks.length, `${query} ${strategy} limit ${limit}`).toBe(Math.min(limit, expected.length));
          for (const [i, score] of ranks.entries()) expect(score, `${query} ${strategy} limit ${limit} #${i + 1}`).toBeCloseTo(expected[i] as number, 5);
        }
      }
    }
  });

  it('stores every item and capture 0015 stored: what 0016 adds stops at the room the whole vector leaves (reviewer, 2026-11-26)', async () => {
    // 60,000 distinct ticket ids: their numbers would take the body's vector to the 1 MiB limit, and the title's
    // words (or a capture's summary) then over it; the write was refused by the database.
    const tickets = Array.from({ length: 60_000 }, (_, i) => `X-${1_000_001 + i}`).join(' ');
    const item = await add('Ticket register', tickets);
    expect(await ids('1000001')).toEqual([item.id]);
    expect(await ids('register')).toEqual([item.id]);
    const capture = (await call(ops.svc_capture_add, { text: tickets })) as { id: string };
    await call(ops.svc_capture_annotate, { capture_id: capture.id, summary: 'a register of tickets, '.repeat(2_000) });
    const found = ((await call(ops.svc_capture_search, { query: 'register' })) as { captures: { id: string }[] }).captures.map((c) => c.id);
    expect(found).toContain(capture.id);
  }, 120_000);

  it('gives captures and ideas the same analysis', async () => {
    const flag = (await call(ops.svc_capture_add, { text: 'set is_head when svc_item_search returns' })) as { id: string };
    await call(ops.svc_capture_add, { text: 'the head of the queue' });
    const captures = async (query: string) =>
      ((await call(ops.svc_capture_search, { query })) as { captures: { id: string }[] }).captures.map((c) => c.id);
    expect(await captures('is_head')).toEqual([flag.id]);
    expect(await captures('svc_item_search')).toEqual([flag.id]);
    expect(await captures('item')).toEqual([flag.id]);
    expect(await captures('head')).toHaveLength(2);
    expect(await occurrences('captures', flag.id, 'item')).toBe(1);
    expect(await occurrences('captures', flag.id, 'svc_item_search')).toBe(1);
    const ticket = (await call(ops.svc_capture_add, { text: 'ticket OPS-77 is open' })) as { id: string };
    expect(await captures('77')).toEqual([ticket.id]);
    expect(await captures('OPS-77')).toEqual([ticket.id]);
    const version = (await call(ops.svc_capture_add, { text: 'client pinned at v0.8.1' })) as { id: string };
    expect(await captures('0.8.1')).toEqual([version.id]);

    const unit = ((await call(ops.svc_work_open, { project_id: 'ident', title: 'Unit' })) as { id: string }).id;
    const idea = (await call(ops.svc_idea_add, { work_unit_id: unit, text: 'try is_head with a read-only pg.Pool' })) as { id: string };
    await call(ops.svc_idea_add, { work_unit_id: unit, text: 'head count' });
    const ideas = async (query: string) =>
      ((await call(ops.svc_idea_search, { project_id: 'ident', query })) as { ideas: { id: string }[] }).ideas.map((i) => i.id);
    expect(await ideas('is_head')).toEqual([idea.id]);
    expect(await ideas('read-only')).toEqual([idea.id]);
    expect(await ideas('pool')).toEqual([idea.id]);
    expect(await ideas('head')).toHaveLength(2);
    expect(await occurrences('ideas', idea.id, 'read')).toBe(1);
    expect(await occurrences('ideas', idea.id, 'is_head')).toBe(1);
    const pinned = (await call(ops.svc_idea_add, { work_unit_id: unit, text: 'pin node-20.1 in CI' })) as { id: string };
    expect(await ideas('20.1')).toEqual([pinned.id]);
    expect(await ideas('node-20.1')).toEqual([pinned.id]);
    const bump = (await call(ops.svc_idea_add, { work_unit_id: unit, text: 'move the server to 0.9.0' })) as { id: string };
    expect(await ideas('v0.9.0')).toEqual([bump.id]);
  });
});
