import { MATCH_START, MATCH_STOP, markSnippet } from '@svc/domain';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestStore, testBackends } from './testing/index.js';

/**
 * The analysis of migration 0015 (docs/decisions/0040-search-identifiers.md): svc_tsvector indexes a text,
 * svc_query_split / svc_query_terms / svc_tsquery analyse a query word the same way.
 */
describe.each(testBackends())('search analysis on $name', (backend) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(async () => {
    await store.close();
  });

  /** Each lexeme of svc_tsvector(text) with how many positions it has. */
  const indexed = async (text: string) => {
    const { rows } = await sql<{ lexeme: string; n: number }>`
      select u.lexeme, cardinality(u.positions) as n from unnest(svc_tsvector(${text}::text)) u order by u.lexeme`.execute(store.db);
    return Object.fromEntries(rows.map((r) => [r.lexeme, Number(r.n)]));
  };
  const terms = async (word: string) =>
    (await sql<{ t: string[] }>`select svc_query_terms(${word}::text) as t`.execute(store.db)).rows[0]?.t ?? [];

  it('reads no run of more than 128 characters without a space: the parser is quadratic in a run (a_a_a_…)', async () => {
    const read = async (text: string) => (await sql<{ t: string }>`select svc_search_text(${text}::text) as t`.execute(store.db)).rows[0]?.t;
    expect(await read(`${'x'.repeat(300)} short words`)).toBe(`${'x'.repeat(128)} ${'x'.repeat(128)} ${'x'.repeat(44)} short words`);
    expect(await read('svc_item_search and https://example.com/a/b')).toBe('svc_item_search and https://example.com/a/b');
    // 40,000 characters of a_a_a_ are indexed (unsplit: about 10 s on PostgreSQL, quadratically more beyond);
    // the query side and snippets read text the same way.
    const chain = 'a_'.repeat(20_000);
    expect(Object.keys(await indexed(chain)).length).toBeGreaterThan(0);
    expect((await terms(chain.slice(0, 300))).length).toBeGreaterThan(0);
  }, 30_000);

  it("marks in a snippet every word a query for it matches: the process's Porter2 stems are the database's", async () => {
    // Words through Snowball english's suffix rules, identifiers, numbers, hyphens, apostrophes and non-ASCII letters.
    const words = (
      'caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling ' +
      'hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer conformabli radicalli ' +
      'differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti ' +
      'sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference ' +
      'airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate ' +
      'angulariti homologous effective bowdlerize probate rate cease generously generously generous news innings outing canning ' +
      'herring earring proceed exceed succeed skis skies dying lying tying idly gently ugly early singly commune communities ' +
      'cry cries Yearly yelling Ayes ox axes Ionic ' +
      'arsenal arsenic general generic universe universal knightly decisions deciding decided policies policy queries queued ' +
      'timeouts retried retries indexes indices analysis analyses searching searchable caching cached replicas replication ' +
      "café naïve résumé Zürich Kubernetes' team's users' o'clock v2 ipv4 http2 2026 3.5 0.8.1 v0.8.1 read-only wake-ups open-source " +
      'svc_item_search is_head LISTEN/NOTIFY pg.Pool /v1/orders price/stock example.com'
    ).split(' ');
    for (const word of words) {
      const lexemes = new Set(await terms(word));
      expect(lexemes.size, word).toBeGreaterThan(0);
      const marked = markSnippet(`before ${word} after`, lexemes);
      expect(marked, word).toContain(MATCH_START);
      // The word is marked from its start (an apostrophe may end it unmarked); the words around it are not.
      expect(marked.startsWith(`before ${MATCH_START}`) && marked.endsWith(' after') && !marked.includes(`${MATCH_START}after`), `${word}: ${marked}`).toBe(true);
      expect(marked.replaceAll(MATCH_START, '').replaceAll(MATCH_STOP, ''), word).toBe(`before ${word} after`);
    }
  });

  it('indexes each token once as the parser gives it, the parts it did not emit, and the whole of what it split at _', async () => {
    // The whole, its parts, and every run of two to four of its parts shorter than the whole (migration 0016).
    expect(await indexed('svc_item_search')).toEqual({ svc: 1, item: 1, search: 1, svc_item_search: 1, svc_item: 1, item_search: 1 });
    expect(await indexed('pg_try_advisory_lock()')).toEqual({
      pg: 1,
      tri: 1,
      advisori: 1,
      lock: 1,
      pg_try_advisory_lock: 1,
      pg_try: 1,
      pg_try_advisory: 1,
      try_advisory: 1,
      try_advisory_lock: 1,
      advisory_lock: 1,
    });
    expect(await indexed('a__b_c')).toMatchObject({ a__b_c: 1, a__b: 1, b_c: 1 });
    expect(Object.keys(await indexed('a_b_c_d_e_f')).filter((l) => l.includes('_'))).toHaveLength(1 + 5 + 4 + 3);
    expect(await indexed('read-only replica')).toEqual({ 'read-on': 1, read: 1, replica: 1 });
    expect(await indexed('LISTEN/NOTIFY')).toEqual({ 'listen/notify': 1, listen: 1, notifi: 1 });
    expect(await indexed('pg.Pool')).toEqual({ 'pg.pool': 1, pg: 1, pool: 1 });
    expect(await indexed('is_head is_head')).toEqual({ head: 2, is_head: 2 });
    // A file name keeps its underscore whole as the parser's token; its parts and the underscore piece follow.
    // Its runs of parts too (migration 0016): `src/foo_bar`, `foo_bar.ts`, and after a slash with it.
    expect(await indexed('src/foo_bar.ts')).toEqual({
      'src/foo_bar.ts': 1,
      src: 1,
      foo: 1,
      bar: 1,
      ts: 1,
      foo_bar: 1,
      'src/foo_bar': 1,
      'foo_bar.ts': 1,
      '/foo_bar.ts': 1,
    });
    // The parser splits at the underscore, then keeps a path: the whole, the path's parts, the underscore piece.
    expect(await indexed('node_modules/.bin')).toEqual({
      node: 1,
      'modules/.bin': 1,
      modul: 1,
      bin: 1,
      node_modules: 1,
      'node_modules/.bin': 1,
    });
    // An e-mail address and a URL: the parser's tokens, then their parts.
    expect(await indexed('mail jane.doe@example.com')).toEqual({
      mail: 1,
      'jane.doe@example.com': 1,
      jane: 1,
      doe: 1,
      exampl: 1,
      com: 1,
      'jane.doe': 1,
      'jane.doe@example': 1,
      'doe@example': 1,
      'doe@example.com': 1,
      'example.com': 1,
    });
    expect(await indexed('https://example.com/v1/orders')).toEqual({
      'example.com/v1/orders': 1,
      'example.com': 1,
      '/v1/orders': 1,
      exampl: 1,
      com: 1,
      v1: 1,
      order: 1,
      '/v1': 1,
      'v1/orders': 1,
    });
    // A number joined to a word by a hyphen: the parser reads it as signed (`-0042`), so the number follows unsigned
    // (migration 0016), also in the parts of a host.
    expect(await indexed('RFC-0042')).toEqual({ rfc: 1, '-0042': 1, '0042': 1 });
    expect(await indexed('on 2024-01-05')).toEqual({ '2024': 1, '-01': 1, '-05': 1, '01': 1, '05': 1 });
    expect(await indexed('(node-20.1)')).toEqual({ node: 1, '-20.1': 1, '20.1': 1 });
    expect(await indexed('web-01.prod.example.com')).toMatchObject({ 'web-01.prod.example.com': 1, web: 1, '-01': 1, '01': 1 });
    // Not joined: a negative number, a hyphenated word the parser keeps whole, a path.
    expect(await indexed('at -5 and x(-7)')).toEqual({ '-5': 1, x: 1, '-7': 1 });
    expect(await indexed('ab-12cd')).toEqual({ 'ab-12cd': 1, ab: 1, '12cd': 1 });
    expect(await indexed('/v1/orders-2')).toMatchObject({ '/v1/orders-2': 1 });
    expect(Object.keys(await indexed('/v1/orders-2'))).not.toContain('orders-2');
    // Nothing joined: to_tsvector alone.
    expect(await indexed('The replicas hold. Nothing else.')).toEqual({ replica: 1, hold: 1, noth: 1, els: 1 });
  });

  it('indexes a camelCase word whole, by its parts and by runs of them, stemmed (a newcomer: `timeout` missed connectionTimeoutMillis)', async () => {
    expect(await indexed('connectionTimeoutMillis')).toEqual({
      connectiontimeoutmilli: 1,
      connect: 1,
      timeout: 1,
      milli: 1,
      connectiontimeout: 1,
      timeoutmilli: 1,
    });
    expect(await indexed('HTTPServer useEffect')).toEqual({ httpserver: 1, http: 1, server: 1, useeffect: 1, use: 1, effect: 1 });
    // Each query spelling finds it: a part, a run, the whole, in any case.
    for (const word of ['timeout', 'Millis', 'connectionTimeout', 'TimeoutMillis', 'connectiontimeoutmillis']) {
      const { rows } = await sql<{ hit: boolean }>`select svc_search_vector('Pool settings', 'set connectionTimeoutMillis to 5000') @@ svc_tsquery(${word}::text) as hit`.execute(store.db);
      expect(rows[0]?.hit, word).toBe(true);
    }
    // Lower case, capitals and a word over 64 characters are left as they were.
    expect(await indexed('timeout HTTP')).toEqual({ timeout: 1, http: 1 });
    expect(Object.keys(await indexed(`a${'Bc'.repeat(40)}`))).toHaveLength(1);
  });

  it('finds a URL over 128 characters after punctuation as typed alone: both are cut from the scheme (a reviewer, 2026-11-28)', async () => {
    const url = `https://grafana.example.com/d/abc123/checkout-latency?orgId=1&from=now-6h&to=now&var-service=checkout&var-env=production&refresh=30s&viewPanel=${'7'.repeat(12)}`;
    expect(url.length).toBeGreaterThan(128);
    for (const body of [`dashboard: ${url} is the one`, `See the [dashboard](${url}) for details`, `{"url": "${url}"}`, `(${url})`]) {
      const { rows } = await sql<{ hit: boolean; phrase: boolean }>`
        select svc_search_vector('Latency', ${body}::text) @@ plainto_tsquery('english', svc_search_text(${url}::text)) as hit,
               svc_search_vector('Latency', ${body}::text) @@ phraseto_tsquery('english', svc_search_text(${url}::text)) as phrase`.execute(store.db);
      expect(rows[0], body).toEqual({ hit: true, phrase: true });
    }
    // A short URL is parsed as it was: the parser splits at the punctuation before a scheme anyway.
    for (const text of ['see (https://example.com/a/b)', '[x](http://a.io/p?q=1)', '{"u":"https://a.b/c"}', 'url=ftp://h/x', 'x<https://a.io>']) {
      const { rows } = await sql<{ same: boolean }>`
        select to_tsvector('english', ${text}::text) = to_tsvector('english', svc_search_text(${text}::text)) as same`.execute(store.db);
      expect(rows[0]?.same, text).toBe(true);
    }
  });

  it('matches a phrase within one text, never across the title and body or a text and what is added after it (a reviewer, 2026-11-28)', async () => {
    const phrase = async (a: string, b: string, q: string) =>
      (await sql<{ hit: boolean }>`select svc_search_vector(${a}::text, ${b}::text) @@ phraseto_tsquery('english', ${q}::text) as hit`.execute(store.db)).rows[0]?.hit;
    expect(await phrase('Use a connection', 'Pool exhaustion under load', 'connection pool')).toBe(false);
    expect(await phrase('Use a connection pool', 'exhaustion under load', 'connection pool')).toBe(true);
    expect(await phrase('Fix LISTEN/NOTIFY', 'channel leak', 'notify channel')).toBe(false);
    expect(await phrase('Fix LISTEN/NOTIFY today', '', 'today listen')).toBe(false);
    // Stop words inside a phrase widen it (`a <3> b`); a query of 1,000 characters cannot widen it past the gap.
    expect(await phrase('Use a connection', 'Pool', `connection ${'a '.repeat(495)}pool`)).toBe(false);
    expect(await phrase('', 'connection of the pool', 'connection of a pool')).toBe(true);
  });

  it('keeps the original positions first, so phrases over the text stay adjacent', async () => {
    const { rows } = await sql<{ hit: boolean }>`
      select svc_tsvector('we call svc_item_search twice') @@ phraseto_tsquery('english', 'call svc_item_search twice') as hit`.execute(store.db);
    expect(rows[0]?.hit).toBe(true);
  });

  it('analyses a query word as the text is indexed: an underscore identifier is one term, its whole', async () => {
    expect(await terms('is_head')).toEqual(['is_head']);
    expect(await terms('IS_HEAD.')).toEqual(['is_head']);
    expect(await terms('(svc_item_search)')).toEqual(['svc_item_search']);
    expect(await terms('calls svc_item_search twice')).toEqual(['call', 'svc_item_search', 'twice']);
    expect(await terms('node_modules/.bin')).toEqual(['node_modules/.bin']);
    // Kept whole by the parser: that token, as before.
    expect(await terms('src/foo_bar.ts')).toEqual(['src/foo_bar.ts']);
    expect(await terms('user_name@example.com')).toEqual(['user_name@example.com']);
    expect(await terms('__init__')).toEqual(['init']);
    expect(await terms('pg.Pool')).toEqual(['pg.pool']);
    expect(await terms('read-only')).toEqual(['read', 'read-on']);
    // A number joined by a hyphen: as the parser reads it, signed (the index holds both).
    expect(await terms('RFC-0042')).toEqual(['-0042', 'rfc']);
    expect(await terms('0042')).toEqual(['0042']);
    expect(await terms('2024-01')).toEqual(['-01', '2024']);
    // An underscore identifier is one term whatever its length; the index holds its runs of parts too.
    expect(await terms('advisory_lock')).toEqual(['advisory_lock']);
  });

  it('finds a text by a piece of one of its words: numbers joined by hyphens, runs of underscore parts (reviewer, 2026-11-26)', async () => {
    const pairs: [string, string][] = [
      ['follow RFC-0042 now', '0042'],
      ['released 2024-01-05', '05'],
      ['released 2024-01-05', '2024-01'],
      ['at 2024-01-05T10:00:00Z', '2024-01'],
      ['CVE-2024-1234', 'CVE-2024'],
      ['CVE-2024-1234', '1234'],
      ['call 555-123-4567', '555-123'],
      ['1-2-3-4-5', '1-2'],
      ['host web-01.prod.example.com', 'web-01'],
      ['host web-01.prod.example.com', '01'],
      ['mail jane-1@example.com', 'jane-1'],
      ['see src/app-2/main.ts', 'app-2'],
      ['see https://ci.example.com/job/build-42/', 'build-42'],
      ['see https://ci.example.com/job/build-42/', '42'],
      ['a.b-5', 'b-5'],
      ['main..release-2', 'main..release-2'],
      ['origin/main..feature-2', 'origin/main..feature-2'],
      ['1..10-20', '1..10-20'],
      ['RFC-0042./x', 'RFC-0042./x'],
      ['jobs call pg_try_advisory_lock(1)', 'advisory_lock'],
      ['jobs call pg_try_advisory_lock(1)', 'try_advisory_lock'],
      ['jobs call pg_try_advisory_lock(1)', 'pg_try'],
      ['svc_item_search', 'svc_item'],
      // Runs of a path's or host's parts, as the parser keeps them typed alone (a newcomer, 2026-11-26).
      ['see src/store/search.ts', 'search.ts'],
      ['see src/store/search.ts', 'src/store'],
      ['see src/store/search.ts', 'store/search'],
      ['see src/store/search.ts', 'store/search.ts'],
      ['run scripts/rotate-pgbouncer.sh', 'rotate-pgbouncer.sh'],
      ['host db-01.prod.example.com', 'prod.example.com'],
      ['host db-01.prod.example.com', 'example.com'],
      ['GET /v1/orders/42', '/v1/orders'],
      ['GET /v1/orders/42', 'orders/42'],
      ['mail jane@example.com', 'example.com'],
      // A host with its port, a path inside a path, a URL with a port (a third reviewer).
      ['psql -h db-01.prod.example.com:5432', 'prod.example.com'],
      ['postgres://app@db.prod.example.com:5432/app', 'prod.example.com'],
      ['https://api.example.com:8443/v1/orders/42', 'example.com'],
      ['GET /api/v1/orders/42', '/v1/orders'],
      ['GET /api/v1/orders/42', '/orders/42'],
    ];
    // A list of 250 changed files: the last file's name is found too (the cap is 4,000 runs a text).
    const files = Array.from({ length: 250 }, (_, i) => `M src/mod${i}/file${i}.ts`).join('\n');
    const listed = await sql<{ hit: boolean }>`select svc_tsvector(${files}::text) @@ svc_tsquery('file249.ts') as hit`.execute(store.db);
    expect(listed.rows[0]?.hit).toBe(true);
    for (const [text, word] of pairs) {
      const { rows } = await sql<{ hit: boolean }>`select svc_tsvector(${text}::text) @@ svc_tsquery(${word}::text) as hit`.execute(store.db);
      expect(rows[0]?.hit, `${word} in ${text}`).toBe(true);
    }
    // Every identifier's runs before any repeat's: a code excerpt repeating one identifier does not use up the cap.
    for (const [text, word] of [
      // 5,000 and 4,800 runs of the repeats, past the cap of 4,000.
      [`${'pg_try_advisory_lock '.repeat(1_000)}svc_item_search`, 'item_search'],
      [`${'svc_item_search_by_project_id '.repeat(400)}pg_try_advisory_lock`, 'advisory_lock'],
    ] as const) {
      const { rows } = await sql<{ hit: boolean }>`select svc_tsvector(${text}::text) @@ svc_tsquery(${word}::text) as hit`.execute(store.db);
      expect(rows[0]?.hit, word).toBe(true);
    }
    // A version by either spelling, with or without its `v` (an outsider searched 0.8.1 for v0.8.1, 2026-11-27).
    for (const [text, word] of [
      ['pinned at v0.8.1 now', '0.8.1'],
      ['moved to 0.8.1 (from 0.7.9)', 'v0.8.1'],
      ['moved to 0.8.1 (from 0.7.9)', 'v0.7.9'],
      ['tag release-v0.8.1', '0.8.1'],
      ['runs node@v20.1.0', '20.1.0'],
      ['V2.0.1 shipped', '2.0.1'],
      ['v1.2 shipped', '1.2'],
      ['built v0.8.1-rc1', '0.8.1'],
      ['upgrade to 0.8.1.', 'v0.8.1'],
      // A run the parser reads otherwise holds both spellings (an attacker, 2026-11-27: v4.4.4 missed v4.4.4-beta).
      ['built v0.8.1-rc1', 'v0.8.1'],
      ['shipped v4.4.4-beta', 'v4.4.4'],
      ['shipped v4.4.4-beta', '4.4.4'],
      ['tag v1.4.2-rc.1', 'v1.4.2'],
      ['image app:v3.1.0-alpine', 'v3.1.0'],
      ['tag release-v0.8.1', 'v0.8.1'],
      ['in /opt/app-3.4.5/bin', '3.4.5'],
      ['in /opt/app-3.4.5/bin', 'v3.4.5'],
    ] as const) {
      const { rows } = await sql<{ hit: boolean }>`select svc_tsvector(${text}::text) @@ svc_tsquery(${word}::text) as hit`.execute(store.db);
      expect(rows[0]?.hit, `${word} in ${text}`).toBe(true);
    }
    // Runs keep their order, a negative number after a space is not joined, and a version is one only at a token's
    // edges (`dev0.8.1`, `1.2.3.4x`), a bare one of three parts or more (`1.2` is a number, not v1.2).
    for (const [text, word] of [
      ['jobs call pg_try_advisory_lock(1)', 'lock_advisory'],
      ['a range of -5', '5'],
      ['see src/store/search.ts', 'search/store'],
      ['built dev0.8.1', '0.8.1'],
      ['see .v1.2.3 here', '1.2.3'],
      ['build 1.2.3.4x', 'v1.2.3'],
      ['took 1.2 seconds', 'v1.2'],
    ] as const) {
      const { rows } = await sql<{ hit: boolean }>`select svc_tsvector(${text}::text) @@ svc_tsquery(${word}::text) as hit`.execute(store.db);
      expect(rows[0]?.hit, `${word} not in ${text}`).toBe(false);
    }
  });

  it('indexes a text of 1 MiB dense with joined numbers and identifiers (reviewer: over the tsvector limit, 2026-11-26)', async () => {
    // Distinct ticket ids whose numbers would double the vector; hashes near the limit and identifiers whose runs
    // would cross it: 0015 indexed each, so must 0016 (the additions stop where the room ends, first ones first).
    const tickets = Array.from({ length: 60_000 }, (_, i) => `OPS-${100_001 + i}`).join(' ');
    const hex = (i: number) => createHash('md5').update(String(i)).digest('hex');
    const hashes = `${Array.from({ length: 28_000 }, (_, i) => hex(i)).join(' ')} ${Array.from({ length: 50 }, (_, i) => Array.from({ length: 8 }, (_, j) => `p${i}x${j}`).join('_')).join(' ')}`;
    for (const text of ['2024-01-05 '.repeat(95_000), tickets, hashes, 'a_b_c_d '.repeat(131_000)]) {
      const { rows } = await sql<{ n: number }>`select length(svc_tsvector(${text}::text)) as n`.execute(store.db);
      expect(rows[0]?.n).toBeGreaterThan(0);
    }
    const { rows } = await sql<{ hit: boolean }>`select svc_tsvector(${tickets}::text) @@ '100001'::tsquery as hit`.execute(store.db);
    expect(rows[0]?.hit).toBe(true);
    // An item's vector is its title's and its body's: the additions stop at the room the two leave together.
    const both = await sql<{ hit: boolean }>`select svc_search_vector('Ticket register with a long title', ${tickets}::text) @@ 'regist'::tsquery as hit`.execute(store.db);
    expect(both.rows[0]?.hit).toBe(true);
  }, 60_000);

  it('counts a version once where the parser gives it, and each occurrence of a spelling it does not', async () => {
    expect(await indexed('v0.8.1 and v0.8.1')).toMatchObject({ 'v0.8.1': 2, '0.8.1': 2 });
    expect(await indexed('moved to 0.8.1')).toMatchObject({ '0.8.1': 1, 'v0.8.1': 1 });
    expect(await indexed('shipped v4.4.4-beta')).toMatchObject({ 'v4.4.4-beta': 1, 'v4.4.4': 1, '4.4.4': 1 });
    // A run of a path's parts that is the version itself (migration 0016) is not added again (a reviewer).
    expect(await indexed('see /v1.2.3/x')).toMatchObject({ 'v1.2.3': 1, '1.2.3': 1 });
    expect(await indexed('v0.8.1/v0.8.1')).toMatchObject({ 'v0.8.1': 2, '0.8.1': 2 });
  });

  it('finds every word of a text in that text, by terms the text indexes', async () => {
    const texts = [
      'svc_item_search LISTEN/NOTIFY pg.Pool v0.8.1 read-only is_head /v1/orders price/stock',
      'foo.bar_baz-qux and node_modules/.bin beside src/store_sql.ts, (x_y.z) a_-b x__y',
      'mail user_name@example.com or first_name.last@x.com; see https://a.com/x_y?z=1 and /usr/local_bin/x',
      'Données_client et naïve_façon, 0011_search_bm25.sql, is_a_head.',
      'See RFC-0042, OPS-77 (ISO-8601) on 2024-01-05: utf-8 x86-64 node-20.1 sha-256 foo_bar-2 0042 77 8601 256 -5 2024-01 web-01 01',
      'jobs call pg_try_advisory_lock(1) then pg_advisory_unlock; advisory_lock try_advisory_lock a__b_c a__b b_c web-01.prod.example.com',
      'main..release-2 origin/main..feature-2 1..10-20 RFC-0042./x jane-1@example.com src/app-2/main.ts https://ci.example.com/job/build-42/',
      'v0.8.1 0.8.1 release-v0.8.1 node@v20.1.0 (0.8.2) v1.2 1.2 1.2.3.4x dev0.8.1 V2.0.1 10.0.0.1 v0.8.1-rc1 0.8.1.',
    ];
    for (const text of texts) {
      const lexemes = new Set(Object.keys(await indexed(text)));
      for (const word of text.split(/\s+/)) {
        const wanted = await terms(word);
        if (wanted.length === 0) continue; // a stop word
        const { rows } = await sql<{ hit: boolean }>`select svc_tsvector(${text}::text) @@ svc_tsquery(${word}::text) as hit`.execute(store.db);
        expect(rows[0]?.hit, `${word} in ${text}`).toBe(true);
        for (const t of wanted) expect(lexemes.has(t), `${word}: ${t} in ${text}`).toBe(true);
      }
    }
  });
});
