import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CLAUSES, MAX_QUERY_LENGTH, snippetParts } from '@svc/domain';
import { type Call, DAY, refusal, testBackends, type TestService } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';
import { createService } from '../service.js';
import { openStore } from '@svc/store';
import { sql } from 'kysely';

interface Hit {
  id: string;
  chain_id: string;
  title: string;
  rank: number;
  snippet: string;
}

describe.each(testBackends())('svc_item_search on $name', (backend) => {
  let svc: TestService;
  let call: Call;

  useTestService(backend, 'search', (t) => {
    ({ svc, call } = t);
  });

  const add = async (title: string, body = '', extra: Record<string, unknown> = {}) =>
    (await call(ops.svc_item_upsert, { project_id: 'search', title, body, ...extra })) as { id: string; chain_id: string };
  const search = async (query: string, extra: Record<string, unknown> = {}) =>
    ((await call(ops.svc_item_search, { project_id: 'search', query, ...extra })) as { items: Hit[]; truncated: boolean }).items;
  const titles = async (query: string, extra: Record<string, unknown> = {}) => (await search(query, extra)).map((h) => h.title).sort();
  /** A glossary group in which `k8s` and `kubernetes` are synonyms. */
  const orchestration = async () => {
    await call(ops.glossary_group_add, { project_id: 'search', name: 'orchestration' });
    await call(ops.glossary_term_add, { project_id: 'search', group: 'orchestration', term: 'k8s' });
    await call(ops.glossary_term_add, { project_id: 'search', group: 'orchestration', term: 'kubernetes' });
  };

  it('matches a quoted phrase only as adjacent words', async () => {
    await add('Departures', 'the release train leaves on Monday');
    await add('Ordering', 'we train the release managers');
    expect(await titles('"release train"')).toEqual(['Departures']);
  });

  it('matches either side of OR, and requires every bare word', async () => {
    await add('Caching', 'a cache in front of the API');
    await add('Messaging', 'a queue between services');
    await add('Neither', 'plain storage');
    expect(await titles('cache OR queue')).toEqual(['Caching', 'Messaging']);
    // `or` is a stop word, in no index: in lower case it used to be dropped, and both words were required (a newcomer).
    expect(await titles('cache or queue')).toEqual(['Caching', 'Messaging']);
    expect(await titles('cache queue')).toEqual([]);
    expect(await titles('front cache')).toEqual(['Caching']);
  });

  it('answers nothing for a query excluding a word every match holds, but keeps the matches that need not hold it', async () => {
    await add('Caching', 'a cache in front of the API');
    await add('Both', 'the cache queue between services');
    await add('Plain queue', 'a queue only');
    expect(await titles('cache -cache')).toEqual([]);
    expect(await titles('"cache" front -cache')).toEqual([]);
    expect(await titles('cache front -caching')).toEqual([]);
    // A phrase excluded is not its words excluded; an alternative without the word still matches.
    expect(await titles('cache -"cache queue"')).toEqual(['Caching']);
    // An excluded quote is a phrase: a word of the same text may hold its parts apart (an attacker, 2026-11-28).
    await add('Pool settings', 'db.pool_size is 10');
    await add('Pool alone', 'pool_size z');
    expect(await titles('pool_size -"pool_size"')).toEqual(['Pool settings']);
    expect(await titles('cache,cache -"cache,cache"')).toEqual(['Both', 'Caching']);
    expect(await titles('cache OR queue -cache')).toEqual(['Plain queue']);
  });

  it('excludes items that mention a negated word', async () => {
    await add('Deploy on Tuesday', 'deploy windows are Tuesday mornings');
    await add('No Friday deploys', 'never deploy on friday');
    expect(await titles('deploy -friday')).toEqual(['Deploy on Tuesday']);
  });

  it('expands required and OR-group words through accepted glossary terms, but not phrases or negations', async () => {
    await orchestration();
    await add('Cluster upgrade', 'the kubernetes cluster is upgraded quarterly');
    await add('Shorthand', 'our k8s nodes run on arm');
    await add('Unrelated', 'a database cluster');
    expect(await titles('k8s')).toEqual(['Cluster upgrade', 'Shorthand']);
    expect(await titles('k8s OR database')).toEqual(['Cluster upgrade', 'Shorthand', 'Unrelated']);
    expect(await titles('"k8s cluster"')).toEqual([]);
    expect(await titles('cluster -k8s')).toEqual(['Cluster upgrade', 'Unrelated']);
  });

  it('answers alike for the project named by slug (any case), id or id prefix, glossary expansion included; an unknown one is refused', async () => {
    // A slug is read with the glossary in one statement (openItemSearch); ids and prefixes go the long way.
    await orchestration();
    await add('Cluster upgrade', 'the kubernetes cluster is upgraded quarterly');
    await add('Shorthand', 'our k8s nodes run on arm');
    const { id } = (await call(ops.project_show, { project_id: 'search' })) as { id: string };
    for (const project_id of ['search', ' SEARCH ', id, id.slice(0, 8)]) {
      const answer = (await call(ops.svc_item_search, { project_id, query: 'k8s' })) as { items: Hit[] };
      expect(answer.items.map((h) => h.title).sort(), project_id).toEqual(['Cluster upgrade', 'Shorthand']);
    }
    for (const project_id of ['no-such-project', 'deadbeef']) {
      const refused = await refusal(call(ops.svc_item_search, { project_id, query: 'k8s' }));
      expect([refused.code, refused.details.field], project_id).toEqual(['not_found', 'project_id']);
    }
  });

  it('answers the time of an item dated in the first century as it is, one word or two (a reviewer, 2026-11-26)', async () => {
    // PGlite's own parser read 0050 as 1950; a one-word search reads times as epoch milliseconds, the others as dates.
    const ancient = await add('Ancient zebra', 'zebra stripes');
    const modern = await add('Modern zebra', 'zebra stripes');
    await sql`update items set updated_at = '0050-06-01T00:00:00Z' where id = ${ancient.id}::uuid`.execute(svc.store.db);
    await sql`update items set updated_at = '1949-01-01T00:00:00Z' where id = ${modern.id}::uuid`.execute(svc.store.db);
    for (const query of ['zebra', 'zebra stripes']) {
      const hits = (await search(query)) as (Hit & { updated_at: string })[];
      expect(hits.map((h) => [h.title, h.updated_at]), query).toEqual([
        ['Modern zebra', '1949-01-01T00:00:00.000Z'],
        ['Ancient zebra', '0050-06-01T00:00:00.000Z'],
      ]);
    }
    expect(((await call(ops.item_show, { item_id: ancient.id })) as { item: { updated_at: string } }).item.updated_at).toBe('0050-06-01T00:00:00.000Z');
  });

  it('expands a word typed with punctuation around it: "k8s," and "(k8s)" find "Run on kubernetes"', async () => {
    await orchestration();
    await add('Run on kubernetes', 'the workers move next quarter');
    for (const query of ['k8s', 'k8s,', '(k8s)', 'K8S.']) expect(await titles(query), query).toEqual(['Run on kubernetes']);
  });

  it('matches a quoted single word literally: "k8s" finds k8s, not its glossary synonym kubernetes', async () => {
    await orchestration();
    await add('Shorthand', 'our k8s nodes run on arm');
    await add('Spelled out', 'the kubernetes upgrade');
    expect(await titles('k8s')).toEqual(['Shorthand', 'Spelled out']);
    expect(await titles('"k8s"')).toEqual(['Shorthand']);
    expect(await titles('"kubernetes" OR nothingatall')).toEqual(['Spelled out']);
  });

  it('refuses a query over the length or clause limit naming query and the limit, instead of cutting it', async () => {
    await add('Deploy on friday', 'deploy friday');
    // Cut at the old limit, the trailing exclusion would vanish and the item would match.
    const long = `${'deploy '.repeat(Math.ceil(MAX_QUERY_LENGTH / 7))}-friday`;
    const tooLong = await refusal(call(ops.svc_item_search, { project_id: 'search', query: long }));
    expect(tooLong).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
    expect(tooLong.message).toMatch(new RegExp(`^query: .*${MAX_QUERY_LENGTH}`));
    const clauses = `${Array.from({ length: MAX_CLAUSES }, () => 'deploy').join(' ')} -friday`;
    const tooMany = await refusal(call(ops.svc_item_search, { project_id: 'search', query: clauses }));
    expect(tooMany).toMatchObject({ code: 'invalid_input', details: { field: 'query', limit: MAX_CLAUSES } });
    expect(tooMany.message).toMatch(new RegExp(`^query: .*at most ${MAX_CLAUSES}`));
    const keyword = await refusal(call(ops.svc_capture_search, { query: long }));
    expect(keyword).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
  });

  it('refuses an unknown item type naming item_types[i] and listing the registered types', async () => {
    await call(ops.type_add, { key: 'runbook', schema: { type: 'object' } });
    await add('A decision', 'words');
    const error = await refusal(call(ops.svc_item_search, { project_id: 'search', query: 'words', item_types: ['decision', 'decisions'] }));
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'item_types[1]' } });
    expect(error.message).toMatch(/^item_types\[1\]: unknown item type 'decisions'; registered types: .*decision/);
    expect(error.message).toContain('runbook');
    expect(await titles('words', { item_types: ['decision'] })).toEqual(['A decision']);
  });

  it('expands multi-word glossary terms as phrases and never expands proposed or rejected terms', async () => {
    await call(ops.glossary_group_add, { project_id: 'search', name: 'db' });
    await call(ops.glossary_term_add, { project_id: 'search', group: 'db', term: 'postgres' });
    await call(ops.glossary_term_add, { project_id: 'search', group: 'db', term: 'relational database' });
    const proposed = (await call(ops.glossary_term_propose, { project_id: 'search', group: 'db', term: 'pg' })) as { id: string };
    const rejected = (await call(ops.glossary_term_propose, { project_id: 'search', group: 'db', term: 'sql' })) as { id: string };
    await call(ops.glossary_term_reject, { project_id: 'search', term_id: rejected.id, reason: 'too broad' });
    await add('Phrase', 'a relational database for billing');
    await add('Scattered', 'a database that is not relational in design');
    await add('Short', 'pg is fine');
    await add('Broad', 'sql everywhere');
    expect(await titles('postgres')).toEqual(['Phrase']);
    const queue = (await call(ops.glossary_queue, { project_id: 'search' })) as { terms: { id: string; term: string }[] };
    expect(queue.terms.map((t) => t.term)).toEqual(['pg']);
    await call(ops.glossary_term_accept, { project_id: 'search', term_id: proposed.id.slice(0, 8) });
    expect(await titles('postgres')).toEqual(['Phrase', 'Short']);
    const again = await call(ops.glossary_term_propose, { project_id: 'search', group: 'db', term: 'SQL' }).catch((e) => e);
    expect((again as { code: string }).code).toBe('refused_transition');
  });

  it('ranks title matches above body matches and marks truncated answers', async () => {
    await add('Unrelated heading', 'mentions latency once');
    await add('Latency budget', 'numbers');
    const hits = await search('latency');
    expect(hits.map((h) => h.title)).toEqual(['Latency budget', 'Unrelated heading']);
    expect(hits[0]!.rank).toBeGreaterThan(hits[1]!.rank);
    expect(hits[1]!.snippet).toContain('**latency**');
    const cut = (await call(ops.svc_item_search, { project_id: 'search', query: 'latency', limit: 1 })) as { items: Hit[]; truncated: unknown };
    expect(cut.items).toHaveLength(1);
    expect(cut.truncated).toEqual(['limit']);
  });

  it("marks only matched words in a snippet: a body's own **bold** word stays text, its asterisks escaped", async () => {
    await add('Cache note', 'The **cache** sits in front of the latency-critical API; a*b holds.');
    const matched = (snippet: string) => snippetParts(snippet).filter((p) => p.match).map((p) => p.text);
    // Not a query word: no mark, the asterisks are the body's, escaped.
    const [byLatency] = await search('latency');
    expect(byLatency!.snippet).toContain('The \\*\\*cache\\*\\* sits');
    expect(byLatency!.snippet).toContain('a\\*b holds');
    expect(byLatency!.snippet).toContain('**latency**');
    expect(matched(byLatency!.snippet)).toEqual(['latency']);
    // A query word the body set in bold: one mark, inside the body's own (escaped) asterisks.
    const [byCache] = await search('cache');
    expect(byCache!.snippet).toContain('\\*\\***cache**\\*\\* sits');
    expect(matched(byCache!.snippet)).toEqual(['cache']);
    expect(snippetParts(byCache!.snippet).map((p) => p.text).join('')).toContain('The **cache** sits in front');
  });

  it('writes near misses’ snippets the same way', async () => {
    await add('Bold near miss', 'Only **replica** lag is tracked, not failover.');
    const answer = (await call(ops.svc_item_search, { project_id: 'search', query: 'replica lag zebra' })) as {
      items: Hit[];
      partial?: (Hit & { missing: string[] })[];
    };
    expect(answer.items).toEqual([]);
    const near = answer.partial?.[0];
    expect(near?.missing).toEqual(['zebra']);
    expect(near?.snippet).toContain('\\*\\***replica**\\*\\* **lag**');
    expect(snippetParts(near?.snippet ?? '').filter((p) => p.match).map((p) => p.text)).toEqual(['replica', 'lag']);
  });

  it('says why an answer is cut: more matches than limit, glossary synonyms left out; false when whole', async () => {
    type Answer = { items: Hit[]; truncated: unknown; expansion_cut: boolean };
    const ask = async (query: string, limit?: number) => (await call(ops.svc_item_search, { project_id: 'search', query, limit })) as Answer;
    await add('Pool one', 'pool');
    await add('Pool two', 'pool');
    expect(await ask('pool')).toMatchObject({ truncated: false, expansion_cut: false });
    expect(await ask('pool', 2)).toMatchObject({ truncated: false });
    expect(await ask('pool', 1)).toMatchObject({ truncated: ['limit'], expansion_cut: false });
    // A group larger than one word expands to: the answer names the cut even when the page is whole.
    await call(ops.glossary_group_add, { project_id: 'search', name: 'pools' });
    for (let i = 0; i < 20; i++) await call(ops.glossary_term_add, { project_id: 'search', group: 'pools', term: `pool${String(i).padStart(2, '0')}` });
    await call(ops.glossary_term_add, { project_id: 'search', group: 'pools', term: 'pool' });
    await add('Nineteenth', 'pool19');
    const widened = await ask('pool');
    expect(widened).toMatchObject({ truncated: ['glossary_expansion'], expansion_cut: true });
    // pool19 is past the 16 synonyms taken in name order: left out, and the answer says so.
    expect(widened.items.map((h) => h.title).sort()).toEqual(['Pool one', 'Pool two']);
    expect(await ask('pool', 1)).toMatchObject({ truncated: ['limit', 'glossary_expansion'] });
    expect(await ask('"pool"', 1)).toMatchObject({ truncated: ['limit'], expansion_cut: false });
  });

  /** Glossary groups of accepted terms, each [name, terms]. */
  const addGroups = async (groups: [string, string[]][]) => {
    for (const [group, terms] of groups) {
      await call(ops.glossary_group_add, { project_id: 'search', name: group });
      for (const term of terms) await call(ops.glossary_term_add, { project_id: 'search', group, term });
    }
  };

  it('counts a term in several groups once, so a synonym left out is always said', async () => {
    type Answer = { items: Hit[]; truncated: unknown; expansion_cut: boolean };
    // a0 is in three groups: b1…b8 and c1…c9 are 17 distinct synonyms, one more than a word expands to.
    await addGroups([
      ['gb', ['a0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8']],
      ['gc', ['a0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']],
      ['gd', ['a0']],
    ]);
    await add('Only c8', 'c8 here');
    await add('Only c9', 'c9 here');
    const answer = (await call(ops.svc_item_search, { project_id: 'search', query: 'a0' })) as Answer;
    // The 16 taken in name order end at c8: c9 is left out, and the answer says so.
    expect(answer.items.map((h) => h.title)).toEqual(['Only c8']);
    expect(answer).toMatchObject({ truncated: ['glossary_expansion'], expansion_cut: true });
  });

  it('counts a synonym spelt in two ways in two groups once, so the one it would have displaced is said to be left out (a reviewer, 2026-11-27)', async () => {
    type Answer = { items: Hit[]; truncated: unknown; expansion_cut: boolean };
    const s = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `s${String(from + i).padStart(2, '0')}`);
    await addGroups([
      ['ga', ['Cache', ...s(1, 8)]],
      ['gb', ['cache', ...s(9, 18)]],
    ]);
    await add('Only s16', 's16 here');
    await add('Only s18', 's18 here');
    const answer = (await call(ops.svc_item_search, { project_id: 'search', query: 'cache' })) as Answer;
    // cache and s01…s18 are 19 distinct words: the 16 a word expands to end before s18, and the answer says so.
    expect(answer.items.map((h) => h.title)).toEqual(['Only s16']);
    expect(answer).toMatchObject({ truncated: ['glossary_expansion'], expansion_cut: true });
  });

  it('says why capture and idea search answers are cut, and refuses their over-long queries likewise', async () => {
    for (const text of ['retry storm one', 'retry storm two']) await call(ops.svc_capture_add, { text, project_id: 'search' });
    const captures = async (limit: number) => (await call(ops.svc_capture_search, { query: 'retry', project_id: 'search', limit })) as { truncated: unknown };
    expect(await captures(2)).toMatchObject({ truncated: false });
    expect(await captures(1)).toMatchObject({ truncated: ['limit'] });
    const unit = (await call(ops.svc_work_open, { project_id: 'search', title: 'Retries' })) as { id: string };
    for (const text of ['retry with jitter', 'retry with backoff']) await call(ops.svc_idea_add, { work_unit_id: unit.id, text });
    const ideas = async (limit: number) => (await call(ops.svc_idea_search, { project_id: 'search', query: 'retry', limit })) as { truncated: unknown };
    expect(await ideas(2)).toMatchObject({ truncated: false });
    expect(await ideas(1)).toMatchObject({ truncated: ['limit'] });
    const clauses = `${Array.from({ length: MAX_CLAUSES }, () => 'retry').join(' ')} -jitter`;
    for (const [op, input] of [
      [ops.svc_idea_search, { project_id: 'search', query: clauses }],
      [ops.svc_capture_search, { query: clauses }],
    ] as const) {
      expect(await refusal(call(op, input))).toMatchObject({ code: 'invalid_input', details: { field: 'query', limit: MAX_CLAUSES } });
    }
    // An exclusion of stop words only is refused here too, as in item search (a reviewer found `retry -both` answered).
    await call(ops.svc_capture_add, { text: 'retry both ways', project_id: 'search' });
    await call(ops.svc_idea_add, { work_unit_id: unit.id, text: 'retry both ways' });
    for (const [op, input] of [
      [ops.svc_idea_search, { project_id: 'search', query: 'retry -both' }],
      [ops.svc_capture_search, { query: 'retry -"the a"' }],
    ] as const) {
      expect((await refusal(call(op, input))).message).toMatch(/^query: excludes only stop words/);
    }
    // An exclusion of no word at all likewise, in every search (an attacker, 2026-11-27: `cache -!!!` was dropped).
    for (const [op, input] of [
      [ops.svc_idea_search, { project_id: 'search', query: 'retry -!!!' }],
      [ops.svc_capture_search, { query: 'retry -!!!' }],
      [ops.svc_item_search, { project_id: 'search', query: 'retry -!!!' }],
    ] as const) {
      expect(await refusal(call(op, input))).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
      expect((await refusal(call(op, input))).message).toMatch(/^query: excludes no word \(-!!!\)/);
    }
    expect(await call(ops.svc_idea_search, { project_id: 'search', query: 'retry -ways' })).toMatchObject({ ideas: [{ text: 'retry with backoff' }, { text: 'retry with jitter' }] });
    // A query with no word the index keeps is refused as item search refuses it (they answered []: a SPEC reader).
    for (const query of ['the', 'OR', '!!!', '"the a"']) {
      for (const [op, input] of [
        [ops.svc_idea_search, { project_id: 'search', query }],
        [ops.svc_capture_search, { query }],
      ] as const) {
        expect((await refusal(call(op, input))).message, query).toMatch(/^query: holds no word/);
      }
    }
    // The query is named first in all three, whatever else is wrong (idea search named an unknown project first).
    for (const [op, input] of [
      [ops.svc_idea_search, { project_id: 'no-such-project', query: '!!!' }],
      [ops.svc_idea_search, { project_id: 'search', work_unit_id: 'no-such-unit', query: 'the' }],
      [ops.svc_capture_search, { project_id: 'no-such-project', query: '!!!' }],
      [ops.svc_item_search, { project_id: 'no-such-project', query: '!!!' }],
    ] as const) {
      expect(await refusal(call(op, input))).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
    }
    // A stop word beside a real exclusion, or an empty query (filters only), answers as before.
    expect(await call(ops.svc_capture_search, { query: 'the -storm', project_id: 'search' })).toMatchObject({ captures: [{ text: 'retry both ways' }] });
    expect(await call(ops.svc_capture_search, { query: '', project_id: 'search', limit: 1 })).toMatchObject({ truncated: ['limit'] });
  });

  it('finds only current, undeleted heads; expired research only on request; captures never', async () => {
    const v1 = await add('Quota v1', 'the quota is ten');
    const v2 = (await call(ops.svc_item_upsert, { project_id: 'search', item_id: v1.id, body: 'the quota is twelve' })) as { id: string };
    const gone = await add('Deleted quota', 'quota removed');
    await call(ops.item_delete, { item_id: gone.id });
    const research = await add('Quota research', 'quota study', { item_type: 'research', source_url: 'https://example.test/q' });
    await svc.backdate('items', research.id, 91 * DAY);
    await svc.store.db.insertInto('captures').values({ text: 'quota from a capture', signals: '{}' }).execute();

    const hits = await search('quota');
    expect(hits.map((h) => h.id)).toEqual([v2.id]);
    expect((await search('quota', { include_expired: true })).map((h) => h.title).sort()).toEqual(['Quota research', 'Quota v1']);
    expect(await titles('quota', { item_types: ['research'], include_expired: true })).toEqual(['Quota research']);
  });

  it('filters by system and refuses an unknown system naming the field', async () => {
    await call(ops.system_add, { project_id: 'search', name: 'billing' });
    await add('Billing retries', 'retries', { system_id: 'billing' });
    await add('Other retries', 'retries');
    expect(await titles('retries', { system_ids: ['billing'] })).toEqual(['Billing retries']);
    const error = (await call(ops.svc_item_search, { project_id: 'search', query: 'x', system_ids: ['nope'] }).catch((e) => e)) as {
      code: string;
      details: { field?: string };
    };
    expect(error.code).toBe('not_found');
    expect(error.details.field).toBe('system_ids[0]');
  });

  it('refuses a query that holds no word the index keeps, naming query, rather than answer an empty page', async () => {
    await add('Something', 'the and of');
    for (const q of ['', '   ', '-', 'OR', '""', '"', 'the', 'the was too', '"the of"', '!!!', '& | ! ( ) : * \' \\']) {
      expect(await refusal(search(q)), q).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
    }
    expect((await refusal(search('the was too'))).message).toMatch(/stop words/);
    // A stop word beside a word is left out as before; a word negated beside stop words excludes as before.
    expect(await titles('the something')).toEqual(['Something']);
    expect(await titles('the -mysql')).toEqual(['Something']);
  });

  it('refuses an exclusion of stop words only, which could exclude nothing, naming query (SPEC reader, 2026-11-27)', async () => {
    await add('Both', 'both replicas of the cache');
    await add('Queue', 'the queue');
    // With nothing else asked for too (a reviewer: `-the` answered [], `-cache -the` dropped `-the`).
    for (const q of ['cache -both', 'cache OR queue -both', 'cache -"the a"', 'queue -both -cache', '-the', '-cache -the', '-cache -"the a"']) {
      const error = await refusal(search(q));
      expect(error, q).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
      expect(error.message, q).toMatch(/^query: excludes only stop words \((-both|-"the a"|-the)\)/);
    }
    expect(await titles('cache OR queue -replicas')).toEqual(['Queue']);
    expect(await titles('-cache')).toEqual(['Queue']);
  });

  it('reads a query compatibility-composed: decomposed accents and full-width letters find what the texts hold (an attacker, 2026-11-27)', async () => {
    await add('Café rollout', 'the café opens');
    await add('Cache sizing', 'cache per node');
    expect(await titles('cafe\u0301')).toEqual(['Café rollout']);
    expect(await titles('ｃａｃｈｅ')).toEqual(['Cache sizing']);
    expect(await titles('ｃａｃｈｅ OR ｃａｆé')).toEqual(expect.arrayContaining(['Café rollout', 'Cache sizing']));
    // Full-width `ｔｈｅ` is the stop word: refused as `the` is, where it answered [].
    expect((await refusal(search('ｔｈｅ'))).message).toMatch(/^query: holds no word/);
  });

  it('answers 1,000 arbitrary queries with results or [], or refuses them naming query, never another error', async () => {
    await add('Alpha beta', "gamma delta's & | ! ( ) : * ' \\ 🚀 données");
    const words = fc.constantFrom('alpha', 'beta', 'OR', '-', '"', 'gamma', '&', '|', '!', '(', ')', ':*', "'", '\\', '🚀', ' ', '--', '-"', '\u0000', '\ud800');
    const queries = fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.array(words, { maxLength: 12 }).map((w) => w.join(' ')));
    await fc.assert(
      fc.asyncProperty(queries, async (query) => {
        // The input gate refuses a NUL character anywhere (no text column can store it).
        if (query.includes('\u0000')) {
          await expect(search(query)).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
          return;
        }
        try {
          expect(Array.isArray(await search(query))).toBe(true);
        } catch (error) {
          // No word the index keeps (punctuation, stop words): refused, naming the query.
          expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
        }
      }),
      { numRuns: 1000 },
    );
  }, 120_000);
});

const postgres = testBackends().find((b) => b.name === 'postgres');

describe.skipIf(!postgres)('svc_item_search behind a pooler that loses prepared statements (PostgreSQL)', () => {
  it('answers when the session no longer holds them, inside its read transaction, and names nothing after', async () => {
    const suite = await (postgres as NonNullable<typeof postgres>).open();
    const warnings: string[] = [];
    const store = await openStore({ databaseUrl: suite.url as string, poolSize: 1, onWarning: (m) => warnings.push(m) });
    try {
      const service = createService(store);
      await service.call(ops.project_create, { slug: 'pooled' }, { source: 'cli' });
      await service.call(ops.svc_item_upsert, { project_id: 'pooled', title: 'Cache decision', body: 'we cache sessions' }, { source: 'cli' });
      // Two words: searched in the read transaction (one word is answered by one statement outside it, decision 0050).
      const search = async () => (await service.call(ops.svc_item_search, { project_id: 'pooled', query: 'cache sessions' }, { source: 'cli' })).items.length;
      expect(await search()).toBe(1);
      // The session forgets what was prepared on it, as a pooler in transaction mode hands over another one.
      await sql`deallocate all`.execute(store.db);
      expect(await search()).toBe(1);
      expect(await search()).toBe(1);
      expect(warnings).toEqual([expect.stringMatching(/lost the prepared statement svc_\w+ \(SQLSTATE 26000\)/)]);
    } finally {
      await store.close();
      await suite.close();
    }
  });
});
