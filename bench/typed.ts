/**
 * Queries as assistants type them (decision 0057): the shapes of the main table are each one query over the most
 * frequent words; people type three or four words of mixed frequency, ORs of two common words, a word they also
 * exclude. Each family here is `count` queries drawn from the vocabulary's ranks by a seeded PRNG, timed through the
 * service; each query's page, asked once more after the timings, is compared with the exhaustive BM25F reference
 * (bm25Reference). A family's times are over every call of every query in it, so one slow query shows in its p95 and
 * max.
 */
import type { Service } from '@svc/service';
import type { Database, Kysely } from '@svc/store';
import { rng } from './corpus.js';
import { agreement, planFor, searchCall, type Stats, stats } from './measure.js';

interface TypedFamily {
  name: string;
  /** How the family's queries are drawn, for the report. */
  recipe: string;
  draw: (pick: (lo: number, hi: number) => number) => string;
}

/** The families: the vocabulary's words by rank (0 = most frequent); the glossary's words (4, 9) expand. */
function typedFamilies(w: readonly string[]): TypedFamily[] {
  const at = (k: number) => w[k] as string;
  return [
    { name: 'two common words', recipe: 'ranks 0–5 and 6–30', draw: (p) => `${at(p(0, 5))} ${at(p(6, 30))}` },
    { name: 'three common words', recipe: 'ranks 0–3, 4–12, 13–40', draw: (p) => `${at(p(0, 3))} ${at(p(4, 12))} ${at(p(13, 40))}` },
    { name: 'three words, one rare', recipe: 'ranks 20–100, 100–300, 0–20', draw: (p) => `${at(p(20, 100))} ${at(p(100, 300))} ${at(p(0, 20))}` },
    { name: 'four words of mixed frequency', recipe: 'ranks 0–30, 30–200, 0–60, 200–1000', draw: (p) => `${at(p(0, 30))} ${at(p(30, 200))} ${at(p(0, 60))} ${at(p(200, 1000))}` },
    { name: 'OR of two common words', recipe: 'ranks 0–10 OR 11–40', draw: (p) => `${at(p(0, 10))} OR ${at(p(11, 40))}` },
    { name: 'a phrase of common words', recipe: '"ranks 0–8 ×2"', draw: (p) => `"${at(p(0, 8))} ${at(p(0, 8))}"` },
    { name: 'a word and a phrase', recipe: 'rank 0–30 "0–8 0–8"', draw: (p) => `${at(p(0, 30))} "${at(p(0, 8))} ${at(p(0, 8))}"` },
    { name: 'two words, one excluded', recipe: 'ranks 0–10, 10–60, -0–10 (some exclude a word they require)', draw: (p) => `${at(p(0, 10))} ${at(p(10, 60))} -${at(p(0, 10))}` },
    {
      name: 'glossary words, some with another',
      recipe: 'rank 4, or 4 OR 9; half with a word of rank 0–40',
      draw: (p) => (p(0, 1) === 0 ? at(4) : `${at(4)} OR ${at(9)}`) + (p(0, 1) === 0 ? '' : ` ${at(p(0, 40))}`),
    },
  ];
}

export interface TypedResult {
  family: string;
  recipe: string;
  queries: number;
  service: Stats;
  /** The slowest query, and its slowest call. */
  slowest: { query: string; ms: number };
  /** The least rank kept (bm25Reference) over the family's queries: 1 when every page is as relevant as the exact one. */
  rankKept: number;
}

/** Each family's `count` queries, every query timed `rounds` times in rounds over all of them. */
export async function measureTyped(
  service: Service,
  db: Kysely<Database>,
  projectId: string,
  words: readonly string[],
  { count, rounds, seed }: { count: number; rounds: number; seed: number },
): Promise<TypedResult[]> {
  const r = rng(seed);
  const pick = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const families = typedFamilies(words).map((f) => ({ ...f, queries: Array.from({ length: count }, () => f.draw(pick)) }));
  const samples = families.map((f) => f.queries.map(() => [] as number[]));
  // A warm-up call each (plans, caches), then the rounds: each goes through every query of every family.
  for (const f of families) for (const query of f.queries) await searchCall(service, projectId, { name: f.name, query })();
  for (let round = 0; round < rounds; round++) {
    for (const [i, f] of families.entries()) {
      for (const [j, query] of f.queries.entries()) {
        const started = process.hrtime.bigint();
        await searchCall(service, projectId, { name: f.name, query })();
        samples[i]?.[j]?.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
  }
  const results: TypedResult[] = [];
  for (const [i, f] of families.entries()) {
    let rankKept = 1;
    for (const query of f.queries) {
      const plan = await planFor(db, projectId, query);
      if (plan) rankKept = Math.min(rankKept, (await agreement(service, db, projectId, { name: f.name, query, plan })).rankKept);
    }
    const per = samples[i] ?? [];
    const worst = per.map((xs, j) => ({ query: f.queries[j] as string, ms: Math.max(...xs) })).reduce((a, b) => (b.ms > a.ms ? b : a));
    results.push({ family: f.name, recipe: f.recipe, queries: f.queries.length, service: stats(per.flat()), slowest: worst, rankKept });
  }
  return results;
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));

export function typedTable(results: TypedResult[], rounds: number): string {
  const lines = [
    `Queries as assistants type them (bench/typed.ts): each family's queries drawn from the vocabulary's ranks, every query called ${rounds} times; *rank kept* is the least over the family's queries.`,
    '',
    '| family | drawn from | queries | svc p50 | svc p95 | max | slowest query | rank kept |',
    '|---|---|--:|--:|--:|--:|---|--:|',
  ];
  for (const t of results) {
    lines.push(
      `| ${t.family} | ${t.recipe} | ${t.queries} | ${ms(t.service.p50)} | ${ms(t.service.p95)} | ${ms(t.slowest.ms)} | \`${t.slowest.query}\` | ${Math.round(t.rankKept * 100)}% |`,
    );
  }
  return lines.join('\n');
}
