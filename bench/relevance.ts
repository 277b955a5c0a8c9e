import { createService, ops } from '@svc/service';
import { migrate, openStore } from '@svc/store';
import { sql } from 'kysely';
import { int, itemText, rng, SEED, uuid, type Vocabulary, words } from './corpus.js';
import { createProjects, DAY, insertRows, type Row, recreateDatabase, SPAN, seedItems } from './seed.js';

/**
 * Relevance beside speed (issue 18): a judged set generated deterministically. For each query (two
 * mid-frequency words of the corpus), 2 highly relevant items (grade 2: the words in the title and repeated in
 * the body) and 3 relevant ones (grade 1: the words once in the body) are planted OLDER than every other item
 * of the project, which holds `items` newer items drawn from the same vocabulary (so they mention the query words
 * at ordinary rates). svc's answer (svc_item_search, limit 20) and an exhaustive BM25F reference computed here
 * in SQL over the same rows (every current item holding all the words, scored with the same k1, b, title weight
 * and statistics counted from scratch) are both judged by nDCG@10 and recall@20.
 */

export interface RelevanceResult {
  items: number;
  queries: number;
  svc: { ndcg10: number; recall20: number };
  reference: { ndcg10: number; recall20: number };
  /** How many of the reference's top 10 svc's top 10 holds, over all queries. */
  top10Agreement: number;
}

const QUERIES = 12;

function ndcg(ranked: string[], grades: Map<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((s, id, i) => s + (2 ** (grades.get(id) ?? 0) - 1) / Math.log2(i + 2), 0);
  const ideal = [...grades.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

function recall(ranked: string[], grades: Map<string, number>, k: number): number {
  const relevant = [...grades.values()].filter((g) => g > 0).length;
  return ranked.slice(0, k).filter((id) => (grades.get(id) ?? 0) > 0).length / relevant;
}

export async function measureRelevance(
  server: URL,
  v: Vocabulary,
  items: number,
  log: (m: string) => void,
  database = 'svc_bench_relevance',
): Promise<RelevanceResult> {
  await recreateDatabase(server, database);
  const store = await openStore({ databaseUrl: new URL(`/${database}`, server).toString(), statementTimeoutMs: 600_000 });
  try {
    await migrate(store.db);
    const service = createService(store);
    const [project] = await createProjects(service, ['relevance']);
    if (!project) throw new Error('no project');
    const r = rng(SEED + 31);
    const now = Date.now();
    // The judged items first, older than everything else.
    const planted: Row[] = [];
    const judged: { query: string; grades: Map<string, number> }[] = [];
    for (let q = 0; q < QUERIES; q++) {
      const a = v.words[int(r, 20, 300)] as string;
      let b = a;
      while (b === a) b = v.words[int(r, 20, 300)] as string;
      const grades = new Map<string, number>();
      for (let j = 0; j < 5; j++) {
        const grade = j < 2 ? 2 : 1;
        const text = itemText(v, r);
        const id = uuid(r);
        const title = grade === 2 ? `${a} ${b} ${text.title}` : text.title;
        const body = grade === 2 ? `${text.body} The ${a} and the ${b}: ${words(v, r, 6)} ${a} ${b}.` : `${text.body} Also ${a} ${b}.`;
        const at = new Date(now - SPAN - (60 + q * 5 + j) * DAY).toISOString();
        planted.push({
          ...{ id, project_id: project.id, item_type: 'decision', title, body, context: '{}', source_url: null, work_unit_id: null, status: null },
          ...{ chain_id: id, supersedes_id: null, is_head: true, version: 1, at, deleted_at: null },
        });
        grades.set(id, grade);
      }
      judged.push({ query: `${a} ${b}`, grades });
    }
    await insertRows(store.db, planted);
    log(`relevance: ${planted.length} judged items planted, then ${items.toLocaleString('en')} newer ones`);
    await seedItems(store.db, v, rng(SEED + 32), [{ project, items }], { from: now - SPAN, to: now - DAY });
    await sql`vacuum analyze`.execute(store.db);
    const svcScores = { ndcg10: 0, recall20: 0 };
    const refScores = { ndcg10: 0, recall20: 0 };
    let agree = 0;
    for (const { query, grades } of judged) {
      const out = (await service.call(ops.svc_item_search, { project_id: project.id, query, limit: 20 }, { source: 'cli' })) as {
        items: { id: string }[];
      };
      const got = out.items.map((x) => x.id);
      const { rows } = await sql<{ id: string }>`
        with terms as (
          select distinct l.term from unnest(string_to_array(${query}, ' ')) w, lateral unnest(ts_lexize('english_stem', w)) l(term)
        ),
        live as (
          select id, updated_at, search, svc_search_dl(search) as dl from items
          where project_id = ${project.id}::uuid and is_head and deleted_at is null
        ),
        st as (select count(*) filter (where dl > 0) as n, sum(dl)::float8 / nullif(count(*) filter (where dl > 0), 0) as avgdl from live),
        df as (select t.term, count(l.id) as df from terms t left join live l on t.term = any (tsvector_to_array(l.search)) group by t.term),
        scored as (
          select l.id, l.updated_at,
                 sum(ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * l.dl / st.avgdl))) as score,
                 count(*) as hits
          from live l cross join st, lateral unnest(l.search) u
          join df on df.term = u.lexeme,
          lateral (select 3 * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights)
                          - cardinality(array_positions(u.weights, 'A')) as tf) f
          group by l.id, l.updated_at
        )
        select id from scored where hits = (select count(*) from terms) order by score desc, updated_at desc, id desc limit 20`.execute(store.db);
      const ref = rows.map((x) => x.id);
      svcScores.ndcg10 += ndcg(got, grades, 10) / judged.length;
      svcScores.recall20 += recall(got, grades, 20) / judged.length;
      refScores.ndcg10 += ndcg(ref, grades, 10) / judged.length;
      refScores.recall20 += recall(ref, grades, 20) / judged.length;
      const top = new Set(got.slice(0, 10));
      agree += ref.slice(0, 10).filter((id) => top.has(id)).length / (Math.min(10, ref.length) || 1) / judged.length;
    }
    return { items, queries: judged.length, svc: svcScores, reference: refScores, top10Agreement: agree };
  } finally {
    await store.close();
  }
}

export function relevanceTable(results: RelevanceResult[]): string {
  const f = (x: number) => x.toFixed(3);
  return [
    '### Relevance: judged set, svc beside an exhaustive BM25F reference (PostgreSQL)',
    '',
    `${results[0]?.queries ?? 0} queries of two mid-frequency words; per query 2 highly relevant (grade 2) and 3 relevant (grade 1)`,
    'items planted older than every other item of the project (bench/relevance.ts). The reference ranks every',
    'current item holding both words by BM25F computed in the bench from the same rows.',
    '',
    '| newer items | svc nDCG@10 | reference nDCG@10 | svc recall@20 | reference recall@20 | svc top 10 ∩ reference top 10 |',
    '|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (x) =>
        `| ${x.items.toLocaleString('en')} | ${f(x.svc.ndcg10)} | ${f(x.reference.ndcg10)} | ${f(x.svc.recall20)} | ${f(x.reference.recall20)} | ${Math.round(x.top10Agreement * 100)}% |`,
    ),
  ].join('\n');
}
