import { type Compounds, heldBy, invalidInput, isUuid, markSnippet, type NearMissPlan, type SvcError, positiveLeaves, type Project, SNIPPET_SOURCE_CHARS, SYNONYMS_TO_READ, type TsPlan } from '@svc/domain';
import { CompiledQuery, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import { prepared } from './prepared.js';
import { PROJECT_COLUMNS, resolveProject, slugOf, toProject } from './projects.js';
import { iso } from './refs.js';
import { researchExpired } from './research.js';
import type { Database, ProjectRow } from './schema.js';

/**
 * Turn a query plan into a tsquery expression made only of functions over bound parameters. Every word is read through
 * svc_search_text, as the index reads text (a run of more than 128 characters without a space is split there, so a
 * long URL or word is found, and excluded, as it was indexed). A word or phrase holding `_` is analysed by
 * svc_query_split (migration 0015, docs/decisions/0040-search-identifiers.md): an underscore identifier is matched
 * whole (`is_head` is not `head`), as svc_tsvector indexes it (with the runs of its parts since 0016: `advisory_lock`
 * finds `pg_try_advisory_lock`); a phrase must also hold it whole.
 */
export function tsquery(plan: TsPlan): RawBuilder<unknown> {
  switch (plan.op) {
    case 'word':
      return plan.text.includes('_') ? sql`svc_tsquery(${plan.text}::text)` : sql`plainto_tsquery('english', svc_search_text(${plan.text}::text))`;
    case 'phrase':
      return plan.text.includes('_')
        ? sql`(phraseto_tsquery('english', svc_search_text(${plan.text}::text)) && svc_tsquery(${plan.text}::text))`
        : sql`phraseto_tsquery('english', svc_search_text(${plan.text}::text))`;
    case 'and':
      return sql`(${sql.join(plan.args.map(tsquery), sql` && `)})`;
    case 'or':
      return sql`(${sql.join(plan.args.map(tsquery), sql` || `)})`;
    case 'not':
      return sql`(!! ${tsquery(plan.arg)})`;
  }
}

/**
 * Refuse `plan` as searchItems does when no word of it can match (decision 0045 and its amendments): it excludes a
 * word or phrase that holds only stop words (`-both`: left out of every search, such an exclusion would widen the
 * answer without a word, decision 0017), or every word it requires or offers is a stop word and it excludes nothing
 * (`the`: an empty answer would read as "nothing was recorded"). One statement. For the searches that build their
 * tsquery with tsquery() (captures, ideas); searchItems checks the same with the query's analysis (prepareQuery).
 */
export async function refuseWordless(db: Kysely<Database>, plan: TsPlan, field = 'query'): Promise<void> {
  const excluded = negatedLeaves(plan);
  const offered = offeredLeaves(plan);
  const leaves = [...excluded, ...offered];
  if (leaves.length === 0) return;
  const { rows } = await sql<{ idle: boolean[] }>`
    select array[${sql.join(leaves.map((l) => sql`numnode(${tsquery(l)}) = 0`))}] as idle`.execute(db);
  const idle = rows[0]?.idle ?? [];
  const idleExcluded = excluded.filter((_, i) => idle[i] === true);
  if (idleExcluded.length > 0) throw idleExclusions(idleExcluded, field);
  if (offered.length > 0 && offered.every((_, i) => idle[excluded.length + i] === true) && !excludesOnly(plan)) throw wordless(plan, field);
}

/** The words and phrases `plan` requires or offers (not those it excludes). */
function offeredLeaves(plan: TsPlan): PlanLeaf[] {
  if (plan.op === 'word' || plan.op === 'phrase') return [{ op: plan.op, text: plan.text }];
  if (plan.op === 'and' || plan.op === 'or') return plan.args.flatMap(offeredLeaves);
  return [];
}

/** A query whose required and offered words are all stop words: the index keeps none of them. */
function wordless(plan: TsPlan, field = 'query'): SvcError {
  return invalidInput(
    field,
    `holds no word the index keeps ('${positiveLeaves(plan).join("', '")}': stop words such as "the" or "was" are left out of every search); search for the words that carry the meaning`,
  );
}

function idleExclusions(idle: readonly PlanLeaf[], field = 'query'): SvcError {
  const words = idle.map((l) => (l.op === 'phrase' ? `-"${l.text}"` : `-${l.text}`));
  return invalidInput(field, `excludes only stop words (${words.join(', ')}): they are left out of every search, so they cannot exclude anything; remove them`);
}

export interface SearchFilters {
  project_id: string;
  item_types?: string[] | undefined;
  system_ids?: string[] | undefined;
  /** Hide research past this time to live, in days (undefined: show expired research too). */
  research_ttl_days?: number | undefined;
}

export interface SearchHit {
  id: string;
  chain_id: string;
  item_type: string;
  title: string;
  /** The body's best fragment, each matched word between domain's MATCH_START and MATCH_STOP (markSnippet). */
  snippet: string;
  rank: number;
  updated_at: string;
}

function filters(f: SearchFilters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [
    sql`i.project_id = ${f.project_id}::uuid`,
    sql`i.is_head`,
    sql`i.deleted_at is null`,
  ];
  if (f.item_types && f.item_types.length > 0) parts.push(sql`i.item_type in (${sql.join(f.item_types)})`);
  if (f.system_ids && f.system_ids.length > 0) parts.push(sql`i.system_id in (${sql.join(f.system_ids.map((id) => sql`${id}::uuid`))})`);
  if (f.research_ttl_days !== undefined) {
    parts.push(sql`not ${researchExpired('i', f.research_ttl_days)}`);
  }
  return sql.join(parts, sql` and `);
}

/**
 * BM25F over every match (docs/decisions/0026-search-bm25.md). Each field-weighted term frequency is
 * tf = TITLE_WEIGHT × title occurrences + body occurrences; an item's length dl counts its indexed positions;
 * score = Σ over the query's terms of idf(t) × tf (K1 + 1) / (tf + K1 (1 − B + B dl / avgdl)), with
 * idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) and N, avgdl, df the project's current statistics.
 * tf and dl come from svc_search_postings (migrations/0013), the one definition the index's writes and rebuild
 * use too; K1 and B live there (and in 0011's svc_bm25_tf) as well.
 */
export const BM25 = { K1: 1.2, B: 0.75, TITLE_WEIGHT: 3 } as const;

/** Scores within this relative distance of the last one kept count as ties (broken by recency among those read). */
const TIE = 1e-6;

interface SearchStats {
  docs: number;
  avgdl: number;
  ref_avgdl: number;
}

export function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/**
 * bm25Tf's arithmetic in SQL without its constant factor K1 + 1: tf / (tf + K1 (1 − B) + (K1 B / avgdl) dl), `kbPerAvgdl`
 * an expression giving K1 B / avgdl. scoreAll sums it weighted by idf × (K1 + 1); ANALYZE orders a one-term page by it.
 */
function bm25TfSql(tf: string, dl: string, kbPerAvgdl: string): string {
  return `${tf} / (${tf} + ${BM25.K1 * (1 - BM25.B)}::float8 + ${kbPerAvgdl} * ${dl})`;
}

/** One term's BM25 contribution in an item (idf excluded). */
export function bm25Tf(tf: number, dl: number, avgdl: number): number {
  return (tf * (BM25.K1 + 1)) / (tf + BM25.K1 * (1 - BM25.B + (BM25.B * dl) / Math.max(avgdl, 1)));
}

/**
 * The most an item can score for a term (BM25's tf factor without K1 + 1, at the project's average length `avgdl`)
 * given only its posting's impact, which is the same factor at the reference length `ref` (svc_search_postings:
 * tf / (tf + K1 (1 - B + B dl / ref))). With ρ = ref / avgdl and c = K1 (1 - B), the two are tied by
 * 1/s - 1 = ρ (1/i - 1) - c (ρ - 1) / tf for every tf and dl, so:
 * - ρ ≤ 1 (the project's texts grew longer than the reference): s is largest as tf grows, s ≤ i / (i + ρ (1 - i));
 * - ρ > 1 (shorter): s ≤ i, and is largest at the least tf, which is 1 (a title occurrence weighs 3, a body one 1), so
 *   s ≤ 1 / (1 + ρ (1/i - 1) - c (ρ - 1)). Taking s ≤ i there (as before 2026-11-27) made a search read deeper
 *   than it needed before the k-th score reached the bound: a bench project of 5,000 items had ρ = 1.31.
 */
export function impactBound(ref: number, avgdl: number): (impact: number) => number {
  const rho = Math.max(ref, 1) / Math.max(avgdl, 1);
  const shift = BM25.K1 * (1 - BM25.B) * (rho - 1);
  return (stored) => {
    if (stored <= 0) return 0;
    // The impact as it was before the index stored it as a real (float4, rounded by at most 2^-24 of itself): where
    // the bound is reached, the rounding alone put it below the item's score (a reviewer: 1.3e-6 at ρ = 64).
    const i = Math.min(stored * (1 + 2 ** -23), 1);
    if (rho <= 1) return i / (i + rho * (1 - i));
    const denominator = 1 + rho * (1 / i - 1) - shift;
    return denominator > 0 ? Math.min(i, 1 / denominator) : i;
  };
}

interface Leaf {
  text: string;
  /** Whether the leaf is a phrase (its words adjacent), not a word. */
  phrase?: boolean;
}

/** The plan's top-level positive clauses, each a list of alternatives (a word or phrase, or an OR of them). */
function positiveClauses(plan: TsPlan): Leaf[][] {
  const top = plan.op === 'and' ? plan.args : [plan];
  const out: Leaf[][] = [];
  const leaves = (p: TsPlan, acc: Leaf[]): boolean => {
    if (p.op === 'word' || p.op === 'phrase') {
      acc.push(p.op === 'phrase' ? { text: p.text, phrase: true } : { text: p.text });
      return true;
    }
    if (p.op === 'or') return p.args.every((a) => leaves(a, acc));
    return false;
  };
  for (const clause of top) {
    const acc: Leaf[] = [];
    if (clause.op !== 'not' && leaves(clause, acc)) out.push(acc);
  }
  return out;
}

interface TermStat {
  df: number;
  max_impact: number;
}

/** A posting's score in ANALYZE's first read (`s`), without its idf and K1 + 1: bm25TfSql at the project's average length. */
const ONE_SCORE = bm25TfSql('s.tf::float8', 's.dl', `${BM25.K1 * BM25.B}::float8 / greatest(case when stats.docs > 0 then stats.len::float8 / stats.docs else 1 end, 1)`);

/** What ANALYZE's first read takes of an item besides the filters' columns (itemById): updated_at in epoch ms and the page row's. */
const PAGE_COLUMNS = 'floor(extract(epoch from i.updated_at) * 1000)::float8 as at, i.chain_id, i.title, i.body';

/**
 * analyzeWithStatistics' statement ($1 the texts; $2–$5 the filters, as filterText(2) reads them; $6 and $7 every
 * leaf's text and whether it is a phrase, for its tsquery, as tsquery() writes it; $8 the page's size k when the
 * query may be one term, else null; $9 how much of a body a snippet reads), the body of svc_search_analyze
 * (SEARCH_FUNCTIONS), which plans it once per connection: it is the same for every search, and planning it cost
 * more than running it.
 *
 * When $8 is given and the texts hold one lexeme, it also reads that term's first postings (`post`, `first_n` asked
 * for), which saves a one-word search a round trip (FirstRead). It reads twice the page, and more for a frequent
 * term, whose best impacts lie close together, so that the page's last score clears the bound later:
 * max(2k, 32) + ⌈df / 64⌉, at most 8k. Measured on the bench's peer corpus (5,000 items, k = 21), the postings
 * needed before the bound held: 24, 40, 38, 51, 83 for terms held by 239, 430, 831, 1,967, 4,938 items; with 2k
 * alone the two most frequent took a second read, which reads four times as many (1.3–1.8 ms of a 4.6 ms search).
 * At most 8k where each posting's item is looked up as it is read (a type or system filter): beyond, a second read
 * costs less than reading many postings that are not needed. Without those filters, a posting read costs little
 * (its item is looked up only if it can make the page) and at most max(8k, 256) are read: at limit 1, 8k was 16
 * postings, which settled no frequent word, and the one statement (decision 0050) handed most such searches to the
 * transaction (an attacker, 2026-11-27).
 *
 * Only the items that can make the page are read (`best`, then `first`): the postings are scored from their own tf
 * and dl, and their items looked up best score first until `k` pass the filters, with any that may tie with the
 * `k`-th. Until 2026-11-27 every posting read had its item looked up: 120 where the page needs 21 (`service`,
 * 4,938 items), two thirds of the statement's time; the page's rows now come from the same look-ups. With a type
 * or system filter, which may pass few of the term's items, the read still takes `n` postings of items that pass
 * (each looked up as it is read), so that the page is not left short of what `n` postings would have given.
 */
const ANALYZE = `with leaf as (
     select u.ord, coalesce(svc_query_terms(u.t), '{}') as lexemes
     from unnest($1::text[]) with ordinality as u(t, ord)
   ),
   term as (
     select t.term,
            coalesce((select df from search_terms s where s.project_id = $2::uuid and s.term = t.term), 0)
              + coalesce((select sum(docs) from search_deltas d where d.project_id = $2::uuid and t.term = any (d.terms)), 0) as df
     from (select distinct unnest(l.lexemes) as term from leaf l) t
   ),
   stats as (
     select coalesce((select docs from search_stats where project_id = $2::uuid), 0)
              + coalesce((select sum(docs) from search_deltas where project_id = $2::uuid), 0) as docs,
            coalesce((select total_len from search_stats where project_id = $2::uuid), 0)
              + coalesce((select sum(len) from search_deltas where project_id = $2::uuid), 0) as len
   ),
   one as (
     select t.term,
            case when $3::text[] is null and $4::uuid[] is null then greatest(8 * $8::int, 256) else 8 * $8::int end
              as most,
            greatest(2 * $8::int, 32) + ceil(greatest(t.df, 0) / 64.0)::int as want
     from term t
     where $8::int is not null and (select count(*) from term) = 1
   ),
   post as (
     (select s.item_id as id, s.impact::float8 as impact, s.tf::float8 as tf, s.dl, ${ONE_SCORE} as score
      from search_postings s, stats
      where $3::text[] is null and $4::uuid[] is null and s.project_id = $2::uuid and s.term = (select term from one)
      order by s.impact desc, s.item_id desc
      limit (select least(most, want) from one))
     union all
     (select s.item_id, s.impact::float8, s.tf::float8, s.dl, ${ONE_SCORE}
      from search_postings s
      ${itemById('s.item_id', 'i.updated_at')}
      cross join stats
      where ($3::text[] is not null or $4::uuid[] is not null) and s.project_id = $2::uuid and s.term = (select term from one)
        and ${filterText(2)}
      order by s.impact desc, s.item_id desc
      limit (select least(most, want) from one))
   ),
   best as (
     select p.id, p.impact, p.tf, p.dl, p.score, i.at, i.chain_id, i.item_type, i.title, left(i.body, $9::int) as body
     from (select * from post order by score desc, id) p
     ${itemById('p.id', PAGE_COLUMNS)}
     where ${filterText(2)}
     order by p.score desc, p.id
     limit $8::int
   ),
   first as (
     select * from best
     union all
     select p.id, p.impact, p.tf, p.dl, p.score, i.at, i.chain_id, i.item_type, i.title, left(i.body, $9::int) as body
     from post p
     ${itemById('p.id', PAGE_COLUMNS)}
     where (select count(*) from best) = $8::int
       and p.score >= (select min(score) from best) * (1 - ${4 * TIE})
       and p.id not in (select id from best)
       and ${filterText(2)}
   )
   select (select json_agg(l.lexemes order by l.ord) from leaf l) as analyzed,
          (select json_agg((case
             when not x.phrase and strpos(x.t, '_') > 0 then svc_tsquery(x.t)
             when not x.phrase then plainto_tsquery('english', svc_search_text(x.t))
             when strpos(x.t, '_') > 0 then phraseto_tsquery('english', svc_search_text(x.t)) && svc_tsquery(x.t)
             else phraseto_tsquery('english', svc_search_text(x.t))
           end)::text order by x.ord)
           from unnest($6::text[], $7::boolean[]) with ordinality as x(t, phrase, ord)) as leaf_queries,
          stats.docs, stats.len,
          (select ref_avgdl from search_stats where project_id = $2::uuid) as ref,
          (select json_agg(json_build_array(
             t.term,
             t.df,
             (select impact from search_postings s where s.project_id = $2::uuid and s.term = t.term
               order by impact desc, item_id desc limit 1)::float8))
           from term t) as terms,
          (select least(most, want) from one) as first_n,
          (select count(*) from post)::int as first_read,
          (select json_build_array(p.impact, p.id) from post p order by p.impact, p.id limit 1) as first_last,
          (select json_agg(json_build_array(f.id, f.impact, f.tf, f.dl, f.at)) from first f) as first,
          (select json_agg(json_build_array(r.id, r.chain_id, r.item_type, r.title, r.body, r.at))
           from (select * from first f order by f.score desc, f.at desc, f.id limit $8::int - 1) r) as page
   from stats`;

/**
 * The bodies of the search's PL/pgSQL functions, as migration 0017 created them (docs/decisions/0050): a test requires
 * the database's to be these texts, so a change here needs a migration that replaces the function.
 * - svc_search_analyze: ANALYZE, its parameters in ANALYZE's order.
 * - svc_search_one: a one-word search in one statement (searchOneStatement): the project by its slug or else its id,
 *   whether the glossary expands the query's words (`syn_terms`, at most `syn_per_term` each: then it answers no
 *   analysis), and ANALYZE of the texts under research's time to live `a_ttl` (the caller's guess, checked against the
 *   project it answers), the rest as ANALYZE's.
 * Both plan their statements once per connection (`plan_cache_mode`, as planMode sets it in the search's transaction,
 * but for the call alone), and read in the snapshot of the statement that calls them.
 */
export const SEARCH_FUNCTIONS = {
  svc_search_analyze: `
BEGIN
  RETURN (SELECT to_json(a) FROM (${ANALYZE}) a);
END
`,
  svc_search_one: `
DECLARE
  p record;
BEGIN
  IF ref_slug IS NOT NULL THEN
    SELECT ${PROJECT_COLUMNS.join(', ')} INTO p FROM projects WHERE slug = ref_slug;
  ELSE
    SELECT ${PROJECT_COLUMNS.join(', ')} INTO p FROM projects WHERE id = ref_id;
  END IF;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF EXISTS (${synonymRows('p.id', 'syn_terms', 'syn_per_term', 'each')}) THEN
    RETURN json_build_object('project', to_json(p), 'synonyms', true);
  END IF;
  RETURN json_build_object('project', to_json(p), 'synonyms', false,
    'analysis', svc_search_analyze(a_texts, p.id, NULL, NULL, a_ttl, a_leaves, a_phrases, a_k, a_chars));
END
`,
} as const;

/** analyzeWithStatistics' statement ($1–$9 as ANALYZE's), prepared by name. */
const ANALYZE_CALL = prepared(
  'search_analyze',
  'select svc_search_analyze($1::text[], $2::uuid, $3::text[], $4::uuid[], $5::int, $6::text[], $7::boolean[], $8::int, $9::int) as a',
);

/** searchOneStatement's statement ($1–$10 as svc_search_one's parameters), prepared by name. */
const SEARCH_ONE = prepared(
  'search_one',
  'select svc_search_one($1::text, $2::uuid, $3::text[], $4::int, $5::text[], $6::int, $7::text[], $8::boolean[], $9::int, $10::int) as r',
);


/** A posting oneTerm reads: the item, its impact, tf and length, and the item's updated_at in epoch milliseconds. */
type OneTermRow = [id: string, impact: number, tf: number, dl: number, at: number];

/**
 * ANALYZE's first read of a one-term query: how many postings it read (`read`, of `n` asked for) and the last of them
 * (impact, item), where a further read goes on; the postings among them whose items pass the filters, read best score
 * first until `k` pass, with every one that may tie with the `k`-th (`rows`: the others cannot reach the page, so
 * their items are not read); and the rows of the best `k - 1` (`page`, by id), which spare withSnippets its read when
 * the first read settles the page (a row the page needs that is not there, a near tie ordered otherwise by
 * JavaScript's arithmetic, is read then).
 */
interface FirstRead {
  rows: OneTermRow[];
  n: number;
  read: number;
  last: [impact: number, id: string] | undefined;
  page: Map<string, PageRow>;
}

/** ANALYZE's row (svc_search_analyze's answer), as the pg client reads its JSON. */
interface AnalysisRow {
  analyzed: string[][] | null;
  leaf_queries: string[] | null;
  docs: number | string | null;
  len: number | string | null;
  ref: number | null;
  terms: [string, number, number | null][] | null;
  first_n: number | null;
  first_read: number | null;
  first_last: [number, string] | null;
  first: OneTermRow[] | null;
  page: PageRow[] | null;
}

interface Analysis {
  analyzed: string[][];
  stats: SearchStats;
  terms: Map<string, TermStat>;
  leafQueries: string[];
  first?: FirstRead;
}

/** ANALYZE's parameters after the filters': every leaf's text and whether it is a phrase, the page's size or null, and how much of a body a snippet reads. */
function leafParams(leaves: PlanLeaf[], k: number | null): unknown[] {
  return [leaves.map((l) => l.text), leaves.map((l) => l.op === 'phrase'), k, SNIPPET_SOURCE_CHARS];
}

/**
 * In one statement: each text's lexemes (svc_query_terms: as the index analyses text, an underscore identifier one
 * term, its whole), the project's statistics (base plus deltas) and, for every lexeme, its document frequency and
 * best impact; and, when `k` is given and the texts hold one lexeme, that term's first postings (ANALYZE).
 */
async function analyzeWithStatistics(db: Kysely<Database>, f: SearchFilters, texts: string[], leaves: PlanLeaf[], k: number | null): Promise<Analysis> {
  const { rows } = await db.executeQuery<{ a: AnalysisRow | null }>(CompiledQuery.raw(ANALYZE_CALL, [texts, ...filterParams(f), ...leafParams(leaves, k)]));
  return readAnalysis(rows[0]?.a ?? null);
}

function readAnalysis(row: AnalysisRow | null): Analysis {
  const docs = Number(row?.docs ?? 0);
  const stats = { docs, avgdl: docs > 0 ? Number(row?.len ?? 0) / docs : 1, ref_avgdl: Number(row?.ref ?? 64) };
  const terms = new Map<string, TermStat>();
  for (const [term, df, max] of row?.terms ?? []) terms.set(term, { df: Math.max(0, Number(df)), max_impact: Number(max ?? 0) });
  const first =
    row?.first_n == null
      ? undefined
      : {
          rows: row.first ?? [],
          n: Number(row.first_n),
          read: Number(row.first_read ?? 0),
          last: row.first_last ?? undefined,
          page: new Map((row.page ?? []).map((r) => [r[0], r])),
        };
  return { analyzed: row?.analyzed ?? [], stats, terms, leafQueries: row?.leaf_queries ?? [], ...(first ? { first } : {}) };
}

interface PlanLeaf {
  op: 'word' | 'phrase';
  text: string;
}

export const leafKey = (l: PlanLeaf) => `${l.op}\u0000${l.text}`;

/** The words and phrases `plan` excludes. */
function negatedLeaves(plan: TsPlan): PlanLeaf[] {
  if (plan.op === 'not') return planLeaves(plan.arg);
  if (plan.op === 'and' || plan.op === 'or') return plan.args.flatMap(negatedLeaves);
  return [];
}

/** Every word and phrase of `plan`, negated ones included. */
export function planLeaves(plan: TsPlan, acc: PlanLeaf[] = []): PlanLeaf[] {
  if (plan.op === 'word' || plan.op === 'phrase') acc.push({ op: plan.op, text: plan.text });
  else if (plan.op === 'not') planLeaves(plan.arg, acc);
  else for (const a of plan.args) planLeaves(a, acc);
  return acc;
}

/**
 * `plan`'s tsquery as text, from its leaves' (analysed by the database, as tsquery() writes them), combined as the
 * operators `&&`, `||` and `!!` combine tsqueries: an empty operand (stop words only) drops out. Passed back as a
 * `tsquery` value, it lets the search's statements keep one text, prepared by name, whatever the query's shape.
 */
export function planQueryText(plan: TsPlan, leafQuery: ReadonlyMap<string, string>): string {
  switch (plan.op) {
    case 'word':
    case 'phrase':
      return leafQuery.get(leafKey(plan)) ?? '';
    case 'not': {
      const inner = planQueryText(plan.arg, leafQuery);
      return inner === '' ? '' : `!( ${inner} )`;
    }
    case 'and':
    case 'or': {
      const parts = plan.args.map((a) => planQueryText(a, leafQuery)).filter((x) => x !== '');
      return parts.length <= 1 ? (parts[0] ?? '') : parts.map((x) => `( ${x} )`).join(plan.op === 'and' ? ' & ' : ' | ');
    }
  }
}

/**
 * How PostgreSQL plans the statements that follow, for the rest of the transaction. The search's statements are
 * prepared by name (0009), and their plans do not depend on the values they are given (index look-ups by project,
 * term and id; arrays unnested), yet PostgreSQL's plan cache kept planning them for each call: a custom plan knows
 * an array parameter's length where the generic plan guesses, so it looked cheaper, and planning cost more than
 * running (ANALYZE: 0.8 of its 1.2 ms). `force_generic_plan` plans each once per connection; statements whose
 * best plan does depend on their values (scoreAll's aggregate, newestMatches' and fewMatches' unnamed statements) set
 * `auto` back.
 */
async function planMode(db: Kysely<Database>, mode: PlanMode): Promise<void> {
  if (db.isTransaction && modes.get(db) === mode) return;
  // Nor compiled: a generic plan's estimates (filteredMatches': every type as common as the commonest) passed JIT's
  // threshold, and compiling took 10 ms of a 12 ms statement that reads 2,049 index entries at most. The statements
  // that open a search (OPEN_SEARCH, OPEN_ANALYZED) set both as well.
  await sql`select set_config('plan_cache_mode', ${mode}, true), set_config('jit', 'off', true)`.execute(db);
  notePlanMode(db, mode);
}

type PlanMode = 'force_generic_plan' | 'auto';

/**
 * Stop each statement `db`'s transaction runs from now on after `timeoutMs` (a search's budget: what is left of
 * SVC_SEARCH_TIMEOUT_MS). openItemSearch and openAnalyzedSearch do the same in their own statement.
 */
export async function boundSearch(db: Kysely<Database>, timeoutMs: number): Promise<void> {
  await sql`select set_config('statement_timeout', ${timeoutText(timeoutMs)}, true)`.execute(db);
}

/** A statement time-out's setting for `ms` (at least one millisecond: 0 would turn it off). */
function timeoutText(ms: number): string {
  return String(Math.max(1, Math.ceil(ms)));
}

/** The plan mode each transaction was last set to by the search's statements, so that it is set once (a round trip). */
const modes = new WeakMap<Kysely<Database>, PlanMode>();

/** Note that `db`'s transaction now plans in `mode` (set by a statement of the search's own). */
function notePlanMode(db: Kysely<Database>, mode: PlanMode): void {
  if (db.isTransaction) modes.set(db, mode);
}

/** A query's terms and statistics: what scoring and choosing anchors need. */
interface PreparedQuery {
  lexemesOf: Map<string, string[]>;
  queryTerms: string[];
  stats: SearchStats;
  terms: Map<string, TermStat>;
  df: (term: string) => number;
  /** Each query term's idf. */
  weight: Map<string, number>;
  /** The tsquery text of each plan prepareQuery was given (planQueryText), in order. */
  queries: string[];
  /** Each leaf's tsquery text, by leafKey ('' for a leaf of stop words only). */
  leafQuery: ReadonlyMap<string, string>;
  /** The query's lexemes that it holds only inside hyphenated compounds, for the snippets (compoundLexemes). */
  within: Compounds;
  /** The first postings of the query's one term, when a page size was given and the query is one word or phrase of one lexeme. */
  first?: FirstRead | undefined;
}

/**
 * Analyse the positive leaves of `plans[0]` and read their statistics, and write every plan's tsquery; undefined
 * when nothing can match. Given the page's size `k`, a query of one word or phrase also reads its first postings
 * should it hold one lexeme (oneTerm's first read).
 */
async function prepareQuery(
  db: Kysely<Database>,
  plans: [TsPlan, ...TsPlan[]],
  f: SearchFilters,
  k: number | null = null,
  known?: Analysis,
): Promise<PreparedQuery | 'stop_words_only' | undefined> {
  const { leafTexts, leaves, oneLeaf } = queryLeaves(plans);
  // A query of exclusions only is analysed too, for them alone: `-the` answered [] and `-cache -the` dropped `-the`
  // (a reviewer, 2026-11-27), where `cache -the` is refused.
  if (leaves.length === 0) return undefined;
  // Read ahead by openAnalyzedSearch (for a plan of more than one word or phrase, so without a first read).
  if (known) return preparedFrom(plans, known);
  await planMode(db, 'force_generic_plan');
  // Not under item types: filteredMatches answers a filter to few items, and a first read of postings that passes
  // over the other types' read most of a common word's (a word in research, 2% of 100k items: 0.4–0.9 s).
  const first = oneLeaf && (f.item_types?.length ?? 0) === 0 ? k : null;
  return preparedFrom(plans, await analyzeWithStatistics(db, f, leafTexts, leaves, first));
}

/** The texts a query's analysis reads (its positive leaves and clauses), every leaf of its plans, and whether it is one word or phrase. */
function queryLeaves(plans: [TsPlan, ...TsPlan[]]): { leafTexts: string[]; leaves: PlanLeaf[]; oneLeaf: boolean } {
  const plan = plans[0];
  return {
    leafTexts: [...new Set([...positiveLeaves(plan), ...positiveClauses(plan).flat().map((l) => l.text)])],
    leaves: [...new Map(plans.flatMap((p) => planLeaves(p)).map((l) => [leafKey(l), l])).values()],
    oneLeaf: plans.length === 1 && (plan.op === 'word' || plan.op === 'phrase'),
  };
}

/** prepareQuery's answer from the query's analysis (ANALYZE's). */
function preparedFrom(plans: [TsPlan, ...TsPlan[]], analysis: Analysis): PreparedQuery | 'stop_words_only' | undefined {
  const plan = plans[0];
  const { leafTexts, leaves } = queryLeaves(plans);
  const { analyzed, stats, terms, leafQueries, first } = analysis;
  const leafQuery = new Map(leaves.map((l, i) => [leafKey(l), leafQueries[i] ?? '']));
  const idle = negatedLeaves(plan).filter((l) => leafQuery.get(leafKey(l)) === '');
  // Dropped, such an exclusion would widen the answer without a word (decision 0017).
  if (idle.length > 0) throw idleExclusions(idle);
  if (leafTexts.length === 0) return undefined;
  const lexemesOf = new Map(leafTexts.map((t, i) => [t, analyzed[i] ?? []]));
  const queryTerms = [...new Set(analyzed.flat())].sort();
  if (queryTerms.length === 0) return 'stop_words_only';
  if (stats.docs === 0) return undefined;
  const df = (t: string) => terms.get(t)?.df ?? 0;
  return {
    within: compoundLexemes(leaves, lexemesOf),
    lexemesOf,
    queryTerms,
    stats,
    terms,
    df,
    weight: new Map(queryTerms.map((t) => [t, idf(stats.docs, df(t))])),
    queries: plans.map((p) => planQueryText(p, leafQuery)),
    leafQuery,
    first,
  };
}

/**
 * The lexemes that the query's words give only as parts of a hyphenated compound (a word of pieces joined by `-`
 * that analyses into several lexemes: `db-01`, `host-a`, `self-hosted`), each with the lexemes of those compounds.
 * A lexeme that a word or phrase gives on its own as well is not among them (domain's Compounds).
 */
function compoundLexemes(leaves: readonly PlanLeaf[], lexemesOf: ReadonlyMap<string, string[]>): Compounds {
  const phrases = new Set(leaves.filter((l) => l.op === 'phrase').map((l) => l.text));
  const words = new Set(leaves.filter((l) => l.op === 'word').map((l) => l.text));
  const within = new Map<string, string[][]>();
  const free = new Set<string>();
  for (const [text, lexemes] of lexemesOf) {
    const bare = text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    const compound = words.has(text) && !phrases.has(text) && lexemes.length > 1 && /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+$/u.test(bare);
    for (const lexeme of lexemes) {
      if (compound) within.set(lexeme, [...(within.get(lexeme) ?? []), lexemes]);
      else free.add(lexeme);
    }
  }
  for (const lexeme of free) within.delete(lexeme);
  return within;
}

/** A clause's anchors: each alternative's rarest term (an alternative of stop words only has none). Every item holding the clause holds one. */
function clauseAnchors(clause: Leaf[], lexemesOf: ReadonlyMap<string, string[]>, df: (term: string) => number): Set<string> {
  const own = new Set<string>();
  for (const leaf of clause) {
    const lex = lexemesOf.get(leaf.text) ?? [];
    if (lex.length > 0) own.add(lex.reduce((a, b) => (df(b) < df(a) ? b : a)));
  }
  return own;
}

interface Checked extends Scored {
  /** Whether the item matches each of the plans asked about (scoreItems' `each`). */
  held: boolean[];
}

/**
 * The filters as a statement's text, over parameters $n to $n + 3: the project, the item types (null: any), the
 * systems (null: any) and research's time to live in days (null: expired research too). filters() is the same
 * condition written for a statement built per call.
 */
function filterText(n: number): string {
  return (
    `i.project_id = $${n}::uuid and i.is_head and i.deleted_at is null ` +
    `and ($${n + 1}::text[] is null or i.item_type = any($${n + 1}::text[])) ` +
    `and ($${n + 2}::uuid[] is null or i.system_id = any($${n + 2}::uuid[])) ` +
    `and ($${n + 3}::int is null or not (i.item_type = 'research' and i.refreshed_at < now() - make_interval(days => $${n + 3}::int)))`
  );
}

/**
 * How every search statement reads an item (`id`: the outer column naming it), as `i` with `columns` and the
 * columns filterText reads: in a lateral `offset 0` subquery by its id alone, so the planner can only look it up
 * by primary key whatever its estimates, and the filters, applied outside, cannot be pushed into it. With the
 * filters inside, a generic plan (a project estimated at one row, as many small projects make it) read items
 * through the project's index and filtered each by id, a scan of the project per item (a one-word search: 0.4 s
 * at 1,500 items, 13 s at 21,500); a join on `id in (…)` was planned as a hash join over every row of items.
 */
function itemById(id: string, columns: string): string {
  return `cross join lateral (select ${columns}, i.project_id, i.is_head, i.deleted_at, i.item_type, i.system_id, i.refreshed_at
     from items i where i.id = ${id} offset 0) i`;
}

/** filterText's four parameters for `f`. */
function filterParams(f: SearchFilters): unknown[] {
  return [
    f.project_id,
    f.item_types && f.item_types.length > 0 ? f.item_types : null,
    f.system_ids && f.system_ids.length > 0 ? f.system_ids : null,
    f.research_ttl_days ?? null,
  ];
}

/**
 * `vector` (a column) cut down to the terms in parameter `terms`, as text (`occurrences` reads it): the positions of
 * its title (weight A), or all of them. Marking the terms with weight D and keeping D passes over the vector once
 * per function, in C; the positions are the vector's own (a concatenation would shift them past the 16,383 a
 * position can hold).
 */
export function occurrencesText(vector: string, terms: string, which: 'title' | 'all'): string {
  // Every other position weighs A first, so only the terms' positions weigh D.
  const from = which === 'title' ? `ts_filter(${vector}, '{a}')` : `setweight(${vector}, 'a')`;
  return `ts_filter(setweight(${from}, 'd', ${terms}::text[]), '{d}')::text`;
}

/** The columns of an item `i` that checkColumns reads. */
const CHECK_READS = 'i.id, i.updated_at, i.search, i.chain_id, i.title, i.body';

/**
 * A check's statement, prepared by name: $1 the ids, $2–$5 the filters, $6 the query, $7 the query's terms, $8 the
 * plans whose match is asked about (`held`), $9 whether to read the item's length from its vector, $10 how many
 * characters of each body to read for its page row (null: no page rows; snippetRows' columns). Each item's updated_at
 * comes as epoch milliseconds (`at`), as pg reads a timestamp into a Date: parsing a timestamp's text was 2% of a
 * three-word search's CPU, 1,300 checks. (A second text, every item in the postings of some terms, served the near
 * misses until they read their postings in one aggregate: decision 0061.)
 */
const CHECK_IDS = prepared(
  'search_check_ids',
  `select ${checkColumns({ terms: '$7', each: '$8', dl: '$9::boolean', chars: '$10' })}
   from unnest($1::uuid[]) as p(item_id)
   ${itemById('p.item_id', CHECK_READS)}
   where ${filterText(2)} and i.search @@ $6::tsquery`,
);

/**
 * What a check answers of an item `i` (CheckRow), over parameters: the query's terms, the plans whose match is asked
 * about, whether to read the item's length from its vector (a boolean expression), and how many characters of each
 * body its page row reads (null: none).
 */
function checkColumns(p: { terms: string; each: string; dl: string; chars: string }): string {
  return `i.id, floor(extract(epoch from i.updated_at) * 1000)::float8 as at,
          array(select i.search @@ e.q from unnest(${p.each}::tsquery[]) with ordinality as e(q, n) order by e.n) as held,
          case when ${p.dl} then svc_search_dl(i.search) end as dl,
          ${occurrencesText('i.search', p.terms, 'title')} as title,
          ${occurrencesText('i.search', p.terms, 'all')} as all,
          case when ${p.chars}::int is not null then
            json_build_array(i.id, i.chain_id, i.item_type, i.title, left(i.body, ${p.chars}::int), floor(extract(epoch from i.updated_at) * 1000)::float8)
          end as row`;
}

/** A row of checkColumns. */
interface CheckRow {
  id: string;
  at: number;
  held: boolean[];
  title: string;
  all: string;
  dl: number | null;
  row: PageRow | null;
}

/** Each row's item scored (vectorScore), its length `dl` or else from `lengths`, its page row put in `pageRows`. */
function checked(query: PreparedQuery, rows: readonly CheckRow[], lengths?: ReadonlyMap<string, number>, pageRows?: Map<string, PageRow>): Map<string, Checked> {
  const scored = new Map<string, Checked>();
  for (const r of rows) {
    if (pageRows && r.row) pageRows.set(r.id, r.row);
    const score = vectorScore(query, r.title, r.all, r.dl ?? lengths?.get(r.id) ?? 0);
    scored.set(r.id, { id: r.id, score, updated_at: new Date(r.at), held: r.held });
  }
  return scored;
}

/**
 * The items `ids` that pass the filters and match `q`
 * (a tsquery's text), each scored by BM25F over the query's terms with current statistics, and whether it matches
 * each of `each` (tsquery texts). The items are selected first, by primary key only (`offset 0` keeps the planner
 * from answering `search @@ q` from the GIN index, which reads every item holding the words: the items are few,
 * the holders many; the filters are applied outside, itemById says why).
 *
 * tf is svc_search_postings' (migration 0013): 3 × title (weight A) occurrences + the others. It is read from the
 * item's vector cut down to the query's terms by built-in functions that pass over the vector once each (its
 * title's positions, and all of them: occurrencesText), rather than from a row per lexeme: a third of the cost of
 * an item's check. dl is the item's length as its postings hold it, given by the caller where it read them (the walk),
 * else svc_search_dl of the vector. Given `pageRows`, each matching item's page row is put there as well, which spares
 * withSnippets its statement when the page is made of them.
 */
async function scoreItems(
  db: Kysely<Database>,
  query: PreparedQuery,
  ids: string[],
  f: SearchFilters,
  q: string,
  each: string[] = [],
  lengths?: ReadonlyMap<string, number>,
  pageRows?: Map<string, PageRow>,
): Promise<Map<string, Checked>> {
  const { rows } = await db.executeQuery<CheckRow>(
    CompiledQuery.raw(CHECK_IDS, [ids, ...filterParams(f), q, query.queryTerms, each, lengths === undefined, pageRows ? SNIPPET_SOURCE_CHARS : null]),
  );
  return checked(query, rows, lengths, pageRows);
}

/**
 * An item's BM25F score over the query's terms from its vector as a check reads it (occurrencesText of its title and
 * of all its positions: tf = TITLE_WEIGHT × title occurrences + the others), with its length `dl`.
 */
function vectorScore(query: Pick<PreparedQuery, 'weight' | 'stats'>, titleText: string, allText: string, dl: number): number {
  let score = 0;
  const title = occurrences(titleText);
  for (const [term, all] of occurrences(allText)) {
    const t = title.get(term) ?? 0;
    score += (query.weight.get(term) ?? 0) * bm25Tf(BM25.TITLE_WEIGHT * t + (all - t), dl, query.stats.avgdl);
  }
  return score;
}

/** A tsvector's text (`'lexeme':3,7B 'it''s':2`: quotes and backslashes doubled, a weight after its position) read as each lexeme's number of positions. */
export function occurrences(text: string): Map<string, number> {
  // One pass over the characters (a check reads two such texts per item, thousands of items for some queries).
  const out = new Map<string, number>();
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (text.charCodeAt(i) !== QUOTE) {
      i++;
      continue;
    }
    let lexeme = '';
    let from = ++i;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === QUOTE && text.charCodeAt(i + 1) !== QUOTE) break;
      if (c === QUOTE || c === BACKSLASH) {
        // A doubled quote or backslash stands for one.
        lexeme += text.slice(from, i + 1);
        i += 2;
        from = i;
      } else i++;
    }
    lexeme += text.slice(from, i);
    i++;
    let count = 0;
    if (text.charCodeAt(i) === COLON) {
      count = 1;
      for (i++; i < n && text.charCodeAt(i) !== SPACE; i++) if (text.charCodeAt(i) === COMMA) count++;
    }
    out.set(lexeme, count);
  }
  return out;
}
const [QUOTE, BACKSLASH, COLON, SPACE, COMMA] = ["'", '\\', ':', ' ', ','].map((c) => c.charCodeAt(0)) as [number, number, number, number, number];

export interface Scored {
  id: string;
  score: number;
  updated_at: Date;
}

const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * How searchItems finds the top: `walk` reads postings best impact first and checks the items that can still reach
 * the page (a query of one lexeme reads its postings only: oneTerm); `all` scores every posting of the query's
 * terms at once; `auto` (the service's) reads a query every match of which holds its one term or a rare one from that
 * term's postings (anchorMatching), a query whose required words are common but seldom held together from the index
 * of the items' vectors (fewMatches), else walks and turns to scoreAll when that is the cheaper; `sum` is that
 * scoreAll, which keeps only the items holding an anchor of every required clause. All four answer the same page;
 * tests compare them.
 */
export type SearchStrategy = 'auto' | 'walk' | 'all' | 'sum';

/** Whether the plan is made of exclusions (beside stop words only): it matches every item without the excluded words. */
function excludesOnly(plan: TsPlan): boolean {
  return plan.op === 'not' || (plan.op === 'and' && plan.args.some((a) => a.op === 'not'));
}

/**
 * A query with nothing to score (`-mysql`, `the -mysql`): every match scores 0, so the newest `k` matches are its
 * top, by the project's recency index, each checked against the query.
 */
async function newestMatches(db: Kysely<Database>, plan: TsPlan, f: SearchFilters, k: number): Promise<Scored[]> {
  await planMode(db, 'auto');
  const { rows } = await sql<{ id: string; updated_at: Date }>`
    select i.id, i.updated_at from items i
    where ${filters(f)} and i.search @@ ${tsquery(plan)}
    order by i.updated_at desc, i.id
    limit ${k}`.execute(db);
  return rows.map((r) => ({ id: r.id, score: 0, updated_at: r.updated_at }));
}

/** A query term's postings as the walk reads them: best impact first, from just below the cursor. */
interface TermList {
  /** The term, or a glossary group's key (' group:<id>'), whose postings the list reads. */
  term: string;
  /** The most a posting of this impact can add to an item's score (for a term: idf × (K1 + 1) × bound(impact)). */
  worth: (impact: number) => number;
  /** The last posting read (impact, item), or the start (LIST_START, above any). */
  impact: number;
  id: string;
  /** Every posting not read yet has an impact at most this (the last read, or the term's best before any). */
  cap: number;
  done: boolean;
}

/**
 * Where every list's first read starts: PostgreSQL's largest real (float4), above any impact. A term's impacts are at
 * most 1, but a group's V is a sum that may pass 2, where lists started before group postings (decision 0053: a
 * group's list started there skipped its best items).
 */
const LIST_START = 3.4028234663852886e38;

/** An item met in some term's postings, not yet checked against the query. */
interface Pending {
  /** The impacts read for it, by term. */
  impacts: Map<string, number>;
  /** Σ over those terms of idf × (K1 + 1) × bound(impact): its score's part known from what was read. */
  known: number;
  /** Its length, as its postings hold it. */
  dl: number;
}

/**
 * A round of the walk's reads ($1 to $4: each open list's term, cursor (impact, item) and how many postings to read
 * past it; $5 the project), prepared by name. One row per list that read any (`ord`, its place in $1), its postings
 * in its order packed into one text, `item impact dl` each, separated by spaces (readPacked): a round reads
 * thousands, and a row each cost the driver more than the database (a profile of three common words, 2026-11-27).
 * An impact is a real read as float8, written in the shortest text that reads back as that float8.
 */
const READ_POSTINGS = prepared(
  'search_read_postings',
  `select a.ord::int as ord, string_agg(s.item_id::text || ' ' || s.impact::float8::text || ' ' || s.dl::text, ' ' order by s.impact desc, s.item_id desc) as packed
   from unnest($1::text[], $2::real[], $3::uuid[], $4::int[]) with ordinality as a(term, impact, id, n, ord)
   cross join lateral (
     select item_id, impact, dl from search_postings s
     where s.project_id = $5::uuid and s.term = a.term and (s.impact, s.item_id) < (a.impact, a.id)
     order by s.impact desc, s.item_id desc
     limit a.n
   ) s
   group by a.ord
   order by a.ord`,
);

/** READ_POSTINGS' packed postings of one list, in its order: each [item, impact, dl]. */
function readPacked(packed: string): [id: string, impact: number, dl: number][] {
  const parts = packed.split(' ');
  const out: [string, number, number][] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) out.push([parts[i] as string, Number(parts[i + 1]), Number(parts[i + 2])]);
  return out;
}

/** Whether the query is one lexeme (its tsquery exactly `'term'`) whose first postings ANALYZE read: oneTerm answers it. */
function oneLexeme(query: PreparedQuery): query is PreparedQuery & { first: FirstRead } {
  const [only] = query.queryTerms;
  return only !== undefined && query.first !== undefined && query.queryTerms.length === 1 && query.queries[0] === `'${only.replaceAll("'", "''")}'`;
}

/**
 * A search of one word in the project named by its slug or id (`projectRef`; an id prefix is not), answered by one statement outside any transaction
 * when it can be (docs/decisions/0050): the statement (svc_search_one) sees one snapshot, as the search's transaction
 * does. Undefined, and the caller searches in its transaction, when no project has the slug, the glossary expands the
 * query (`terms`: its expandable terms), the query is not one lexeme, or the first postings read do not settle the
 * page. `ttl` is research's time to live the statement filters by, the caller's guess: it checks it against the
 * project answered (`project`) and searches again when it was wrong.
 */
export async function searchOneStatement(
  db: Kysely<Database>,
  projectRef: string,
  terms: string[],
  plan: TsPlan,
  ttl: number | undefined,
  limit: number,
): Promise<{ project: Project; hits: SearchHit[] } | undefined> {
  if (plan.op !== 'word') return undefined;
  const k = limit + 1;
  const plans: [TsPlan] = [plan];
  const r = await callSearchOne(db, SEARCH_ONE, projectRef, terms, plan, ttl ?? null, k);
  if (typeof r !== 'object' || r.synonyms) return undefined;
  const project = toProject(r.project);
  const query = preparedFrom(plans, readAnalysis(r.analysis ?? null));
  if (typeof query !== 'object' || !oneLexeme(query)) return undefined;
  const top = await oneTerm(query.first, oneTermScore(query), k);
  // A page row the first read does not hold (a near tie JavaScript orders otherwise) would take a statement more.
  if (!top || top.slice(0, limit).some((s) => !query.first.page.has(s.id))) return undefined;
  return { project, hits: pageFrom(top, query, limit, query.first.page) };
}

/** How searchItems finds its top and what it answers with it. */
export interface SearchOptions {
  /** How the top is found (SearchStrategy); `auto` unless a test asks for one way. */
  strategy?: SearchStrategy;
  /** The query's analysis, when svc_search_analyze read it already (openAnalyzedSearch). */
  analysis?: SearchAnalysis | undefined;
  /** Whether the glossary expanded the query: then a group's own list may stand for its terms (groupLists). */
  expanded?: boolean;
  /** How many of the best hits get their snippets (and page rows): `limit` for a page, 0 for ranks alone. */
  snippets?: number;
}

/**
 * The exact top `limit + 1` by BM25F among every current item matching `plan` under the filters, read in
 * impact order (docs/decisions/0026-search-bm25.md, 0038-search-threshold-walk.md), a threshold algorithm with
 * lazy checks:
 *
 * 1. Every positive term of the query has a list: its postings, best impact first. Each round reads the next
 *    postings of the open lists, a budget shared in proportion to what each list can still add to a score
 *    (idf × bound(cap)), so the lists that hold the score up are read deepest.
 * 2. An item met in the lists scores at most Σ over the terms of idf × (K1 + 1) × bound(impact read for it, or
 *    else the term's cap; 0 once the term's list is read to its end without it). An item met in none scores at
 *    most the same sum over the caps, or nothing once every anchor of a required clause (each alternative's
 *    rarest term) has been read to its end.
 * 3. The items whose bound can still reach the page are checked, best bound first, in growing batches: filters,
 *    `search @@ tsquery` for phrases, exclusions and the other clauses, and the exact score from their own row
 *    with current statistics.
 * 4. The walk stops when the `limit + 1`-th exact score reaches the bound of every item not checked, met or not.
 *
 * Items are checked only while they can still reach the page, so a query of common words costs what its page
 * needs rather than what its matches number. When the glossary `expanded` the query, the terms that make up a
 * group's lexemes are read as the group's one list instead (groupLists, docs/decisions/0053). Under `auto`, a query
 * every match of which holds its one term or a rare one is read from that term's postings alone (anchorMatching,
 * docs/decisions/0054).
 */
export async function searchItems(
  db: Kysely<Database>,
  plan: TsPlan,
  f: SearchFilters,
  limit: number,
  { strategy = 'auto', analysis, expanded = false, snippets = limit }: SearchOptions = {},
): Promise<SearchHit[]> {
  const k = limit + 1;
  const query = await prepareQuery(db, [plan], f, k, analysis);
  if (query === 'stop_words_only' && !excludesOnly(plan)) {
    // Every word the query requires or offers is left out of every item's index: an empty page would read as
    // "nothing was recorded" (a newcomer's first search, 2026-11-26).
    throw wordless(plan);
  }
  if (!query || query === 'stop_words_only') return excludesOnly(plan) ? withSnippets(db, await newestMatches(db, plan, f, k), undefined, snippets) : [];
  const { lexemesOf, queryTerms, stats, terms, df, weight } = query;
  // Each required clause's anchors; an alternative of stop words only has none (such a clause cannot drive the walk).
  const leafClauses = positiveClauses(plan);
  const clauses = leafClauses
    .map((clause) => clauseAnchors(clause, lexemesOf, df))
    .filter((anchors) => anchors.size > 0);
  if (clauses.length === 0 || clauses.some((anchors) => [...anchors].every((t) => df(t) === 0))) return [];
  // `auto` only: `walk` and `all` find the empty page the long way, so that tests comparing them check this (a reviewer).
  if (strategy === 'auto' && selfExcluding(plan, query.leafQuery)) return [];

  const q = query.queries[0] ?? '';
  // A filter to few items (research among decisions) is answered from those items. Read from the terms' postings,
  // every posting of another type was read and passed over: `service` in research, 2% of 100k items, took 450 ms,
  // `cache api` 370 ms (an attacker, 2026-11-28).
  if (strategy === 'auto' && (f.item_types?.length ?? 0) > 0) {
    const pageRows = new Map<string, PageRow>();
    const top = await filteredMatches(db, query, f, q, k, snippets > 0 ? pageRows : undefined);
    if (top) return withSnippets(db, top, query, snippets, pageRows);
  }
  if (strategy !== 'all' && oneLexeme(query)) {
    const top = await oneTerm(query.first, oneTermScore(query), k, { db, f });
    return withSnippets(db, top, query, snippets, query.first.page);
  }
  // A query every match of which holds one term that is its only one or a rare one is read from that term's postings.
  const anchor = strategy === 'auto' && !expanded ? anchorOf(query, clauses, k) : undefined;
  if (anchor !== undefined) {
    const page = new Map<string, PageRow>();
    const top = await anchorMatching(db, f, q, query, anchor, k, page, snippets > 0 ? SNIPPET_SOURCE_CHARS : 0);
    if (top) return withSnippets(db, top, query, snippets, page);
  }
  // Required words that are each common but seldom held together (fifteen of a project's most frequent: 33 items of
  // 100k) left the walk and scoreAll to read most of their postings: 870k postings, 0.7 s; 8.3M and 5 s for 32 words
  // (an attacker, 2026-11-28). Their matches come from the vectors' index instead, and every one is scored.
  if (strategy === 'auto' && postings(queryTerms, df) > 2 * k * CHECK_COST && fewExpected(leafClauses, lexemesOf, df, stats.docs)) {
    const pageRows = new Map<string, PageRow>();
    const top = await fewMatches(db, query, f, q, k, snippets > 0 ? pageRows : undefined);
    if (top) return withSnippets(db, top, query, snippets, pageRows);
  }
  const bound = impactBound(stats.ref_avgdl, stats.avgdl);
  const lists = new Map<string, TermList>();
  // The query's terms that make up a glossary group's lexemes are read as the group's one list (groupLists).
  const grouped = expanded ? await groupLists(db, f.project_id, query) : { lists: [], keyOf: new Map<string, string>() };
  for (const l of grouped.lists) lists.set(l.term, l);
  for (const t of queryTerms) {
    if (grouped.keyOf.has(t)) continue;
    const max = terms.get(t)?.max_impact ?? 0;
    const w = (weight.get(t) ?? 0) * (BM25.K1 + 1);
    lists.set(t, { term: t, worth: (impact) => w * bound(impact), impact: LIST_START, id: NIL, cap: max, done: df(t) === 0 || max <= 0 });
  }
  const potential = (l: TermList) => (l.done ? 0 : l.worth(l.cap));
  // Rarest first: a required clause whose anchors' lists are short beside the query's is read to its end at once, so
  // that only the items it holds are left to check (`closed`). Read by shares of their potential, the common lists
  // took the rounds, and items met in them that lacked the rare word were checked: 1,302 checks for one match.
  const everything = postings(queryTerms, df);
  const whole = shortClause(clauses, grouped.keyOf, df, everything);
  // A clause's anchor that a group's list reads is anchored by the group's key: every item holding it has a posting there.
  const anchored = clauses.map((anchors) => new Set([...anchors].map((t) => grouped.keyOf.get(t) ?? t)));
  const readOut = (anchors: Set<string>) => [...anchors].every((t) => lists.get(t)?.done);
  /** Whether no item outside those met can match: some required clause's anchors are all read to their end. */
  const closed = () => anchored.some(readOut);
  const unseenBound = () => (closed() ? 0 : [...lists.values()].reduce((sum, l) => sum + potential(l), 0));
  /**
   * What the lists can still add, per term and in all, and the required clauses read to their end: they change only
   * when postings are read, so they are worked out once per round (`round`), not per item met.
   */
  let round = { potential: new Map<string, number>(), total: 0, readOut: [] as Set<string>[] };
  const newRound = () => {
    const each = new Map([...lists.values()].map((l) => [l.term, potential(l)]));
    round = { potential: each, total: [...each.values()].reduce((a, b) => a + b, 0), readOut: anchored.filter(readOut) };
  };
  newRound();
  /** An item's bound: what it was read with (`known`), and what each list it was not met in can still add. */
  const upper = (p: Pending) => {
    let ub = p.known + round.total;
    for (const term of p.impacts.keys()) ub -= round.potential.get(term) ?? 0;
    return ub;
  };
  const holdsOne = (p: Pending, anchors: Set<string>) => {
    for (const t of anchors) if (p.impacts.has(t)) return true;
    return false;
  };
  /** An item holding no anchor of a required clause whose anchors are all read cannot match. */
  const excluded = (p: Pending) => round.readOut.some((anchors) => !holdsOne(p, anchors));

  const pending = new Map<string, Pending>();
  const checked = new Set<string>();
  const pageRows = new Map<string, PageRow>();
  // The page rows the statements bring along, when the answer has snippets to make of them.
  const rows = snippets > 0 ? pageRows : undefined;
  const top: Scored[] = [];
  let budget = Math.max(2 * k, 32);
  let checks = Math.max(2 * k, 32);
  // What the walk has cost, in postings (a check costs CHECK_COST of them, a score SCORE_COST more), against what
  // scoreAll would (every posting of the query's terms, then checks in score order): past half of that, scoreAll
  // answers. A walk that settles early costs what it reads; one that would not costs at most 1.5 × scoreAll's.
  // Sooner, when the rounds so far foretell that it would pass all of scoreAll's cost before it settles (`forecast`).
  let work = 0;
  /** The page's distance from settling (what an unmet item could still score above the page's last), a round ago. */
  let lastGap: number | undefined;
  let accepted = 0;
  const plain = plainWords(plan, lexemesOf, f);
  /**
   * Where the query excludes words or is filtered, and its matches have been rare among the items checked, its matches
   * read from the vectors' index (fewMatches, once), or undefined. fewExpected counts the required words only, and
   * words held by nearly every item with common ones excluded (`service data` and 28 of the most frequent words
   * excluded: 9 matches among 89k holders at 100k items) were walked, then scored whole, past 10 s (an attacker,
   * 2026-11-28). The index evaluates the exclusions too: 90 ms there. A system of five items (systems have no index
   * by project) under `service data` took 7–8 s, or the time-out (the same attacker).
   */
  let triedFew = strategy !== 'auto' || !(excludes(plan) || (f.system_ids?.length ?? 0) > 0 || (f.item_types?.length ?? 0) > 0);
  const rarelyMatching = async (): Promise<Scored[] | undefined> => {
    if (triedFew || checked.size < FEW_AFTER || accepted * FEW_SHARE > checked.size) return undefined;
    triedFew = true;
    return fewMatches(db, query, f, q, k, rows);
  };
  /** What reading the shortest required clause to its end would cost at most: each posting read, its item checked. */
  const closing = Math.min(...clauses.map((anchors) => postings(anchors, df))) * (1 + CHECK_COST);
  // Where scoring everything costs less than a walk's first round of checks (about 2k items), it answers.
  if (strategy === 'all' || strategy === 'sum' || (strategy === 'auto' && everything <= 2 * k * CHECK_COST)) {
    // `all` keeps every item holding a term: a reference for the anchors the walk and `auto`'s scoreAll rely on.
    return withSnippets(db, await scoreAll(db, query, f, q, k, strategy === 'all' ? [] : clauses, rows), query, snippets, pageRows);
  }
  /**
   * How many more rounds the walk needs, foreseen from `gap` (undefined before the page is full) and the last round's:
   * each round reads and checks about as much as every round before it, so it may close the gap by twice what the
   * last did, and r rounds close (2^(r+1) − 2) × the last's. Ors of common words (a glossary group's) that close it
   * by little each round foretell many rounds, and scoreAll answers them early. A page of flat common words closes
   * it by about as much each round, and this forecast is then too hopeful (decision 0057: a known loss).
   */
  const forecast = (gap: number | undefined): number => {
    const last = lastGap;
    lastGap = gap;
    if (gap === undefined || last === undefined || gap <= 0) return 0;
    return last > gap ? Math.min(Math.log2(gap / (last - gap) + 2) - 1, 32) : 32;
  };
  const threshold = () => (top.length >= k ? (top[k - 1] as Scored).score : Number.NEGATIVE_INFINITY);
  // An item that may score as much as the page's last (within TIE, the arithmetic's own error) may tie with it, and
  // a tie goes to the newer: it is checked. Before 2026-11-27 such an item was left out, and with the bound reached
  // exactly (impactBound) a page of items scored alike was cut by id, not by recency (a reviewer).
  const reaches = (ub: number) => threshold() <= ub * (1 + TIE);
  /** Whether the page is settled: no item met and unchecked, nor any not met yet, can still reach it. */
  const settled = () =>
    (closed() || [...lists.values()].every((l) => l.done) || (top.length >= k && !reaches(unseenBound()))) &&
    ![...pending.values()].some((p) => !excluded(p) && reaches(upper(p)));
  for (;;) {
    // A page settled by the last checks is answered before any switch is weighed (scoreAll would redo it).
    if (settled()) break;
    if (strategy === 'auto') {
      // scoreAll checks its best sums in score order: as many as the walk's share of matches suggests, or, where holding
      // an anchor of every clause is matching (plainWords), about the page: its sums hold only such items.
      const share = Math.max(accepted, 1) / Math.max(checked.size, 1);
      const wanted = Math.min(everything, Math.ceil((2 * k) / (plain ? 1 : share)));
      const allCost = everything + CHECK_COST * wanted + SCORE_COST * k;
      // What the walk still has to do, foreseen: with a full page, the rounds that close its gap; with a short one, the
      // checks that fill it at the walk's share so far, or fewer where a short clause's lists end first (`closing`).
      // What was spent is spent: the walk goes on unless what is left costs as much as scoreAll would, or it has
      // cost that (half of it while the page is short) without settling. Till 2026-11-28 `2 × work ≥ allCost`
      // alone switched an `a OR b` a round before it settled (28 -> 60 ms), and a walk share of 0.1% made scoreAll
      // look 5 times dearer than it was, so three words of mixed frequency walked on (70-100 ms, scoreAll 25).
      const full = top.length >= k;
      const remaining = full
        ? work * (2 ** forecast(unseenBound() - threshold()) - 1)
        : checked.size > 0
          ? Math.min(((k - top.length) / share) * CHECK_COST, closing)
          : 0;
      if (!full) forecast(undefined);
      if (remaining >= allCost || work >= (full ? allCost : allCost / 2)) {
        const few = await rarelyMatching();
        if (few) return withSnippets(db, few, query, snippets, pageRows);
        return withSnippets(db, await scoreAll(db, query, f, q, k, clauses, rows, wanted), query, snippets, pageRows);
      }
    }
    const open = [...lists.values()].filter((l) => !l.done);
    // Once a required clause's anchors are all read, every possible match has been met: only checks are left.
    if (open.length > 0 && !closed() && (top.length < k || reaches(unseenBound()))) {
      const total = open.reduce((sum, l) => sum + potential(l), 0);
      const shares = new Map(open.map((l) => [l.term, total > 0 ? Math.max(8, Math.ceil((budget * potential(l)) / total)) : budget]));
      // One more than the list holds: a read that returns fewer than its share marks the list done.
      for (const t of whole ?? []) if (shares.has(t)) shares.set(t, Math.max(shares.get(t) ?? 0, df(t) + 1));
      const { rows: read } = await db.executeQuery<{ ord: number; packed: string }>(
        CompiledQuery.raw(READ_POSTINGS, [open.map((l) => l.term), open.map((l) => l.impact), open.map((l) => l.id), open.map((l) => shares.get(l.term)), f.project_id]),
      );
      const counts = new Map<string, number>();
      for (const r of read) {
        const l = open[r.ord - 1] as TermList;
        const postings = readPacked(r.packed);
        work += postings.length;
        counts.set(l.term, postings.length);
        for (const [id, impact, dl] of postings) {
          l.impact = impact;
          l.cap = impact;
          l.id = id;
          if (checked.has(id)) continue;
          const met = pending.get(id);
          const worth = l.worth(impact);
          if (met) {
            met.impacts.set(l.term, impact);
            met.known += worth;
          } else pending.set(id, { impacts: new Map([[l.term, impact]]), known: worth, dl });
        }
      }
      for (const l of open) {
        if ((counts.get(l.term) ?? 0) < (shares.get(l.term) ?? 0)) {
          l.done = true;
          l.cap = 0;
        }
      }
      newRound();
      budget = Math.min(budget * 2, 4_000);
    }
    // The items that can still reach the page, best bound first.
    const candidates: { id: string; ub: number }[] = [];
    for (const [id, p] of pending) {
      if (excluded(p)) {
        pending.delete(id);
        continue;
      }
      const ub = upper(p);
      if (reaches(ub)) candidates.push({ id, ub });
      // Below the page for good: bounds only fall and the page's last score only rises.
      else pending.delete(id);
    }
    if (candidates.length === 0) {
      // Nothing met can reach the page; stop unless an item not met yet still could.
      if (closed() || [...lists.values()].every((l) => l.done) || (top.length >= k && !reaches(unseenBound()))) break;
      continue;
    }
    candidates.sort((a, b) => b.ub - a.ub);
    const batch = candidates.slice(0, checks).map((c) => c.id);
    const lengths = new Map<string, number>();
    for (const id of batch) {
      lengths.set(id, (pending.get(id) as Pending).dl);
      pending.delete(id);
      checked.add(id);
    }
    // A small batch brings its items' page rows along: the page is usually made of them, and withSnippets then needs
    // no statement of its own (a round trip of a search's five to seven). A large one would bring thousands of bodies.
    const scored = await scoreItems(db, query, batch, f, q, [], lengths, batch.length <= ROWS_WITH_CHECKS ? rows : undefined);
    work += CHECK_COST * batch.length + SCORE_COST * scored.size;
    accepted += scored.size;
    top.push(...scored.values());
    top.sort(byScore);
    top.length = Math.min(top.length, k);
    checks = Math.min(checks * 2, 2_000);
    const few = await rarelyMatching();
    if (few) return withSnippets(db, few, query, snippets, pageRows);
  }
  return withSnippets(db, top, query, snippets, pageRows);
}

/** Whether the query excludes anything at its top (`a -b`). */
function excludes(plan: TsPlan): boolean {
  return (plan.op === 'and' ? plan.args : [plan]).some((c) => c.op === 'not');
}

/**
 * Whether the query excludes what every match must hold (`cache contract -cache`): then nothing matches, and the walk
 * proved it by reading and checking every item holding the words, 200-600 ms at 100k items (2026-11-28). By the
 * leaves' own tsqueries, as the analysis wrote them: a required clause every alternative of which has the tsquery of a
 * leaf excluded at the top holds exactly the items that exclusion removes. Till 2026-11-28 by the text as typed, so
 * `service -SERVICE` and `service -services` walked every holder of `service` (1.3-1.6 s at 100k: an attacker).
 */
function selfExcluding(plan: TsPlan, leafQuery: ReadonlyMap<string, string>): boolean {
  const top = plan.op === 'and' ? plan.args : [plan];
  const excluded = new Set(top.flatMap((c) => (c.op === 'not' ? planLeaves(c.arg) : [])).map((l) => leafQuery.get(leafKey(l)) ?? ''));
  excluded.delete('');
  if (excluded.size === 0) return false;
  return positiveClauses(plan).some((clause) =>
    clause.every((leaf) => excluded.has(leafQuery.get(leafKey({ op: leaf.phrase ? 'phrase' : 'word', text: leaf.text })) ?? '')),
  );
}

/** How many postings the terms' lists hold in all. */
function postings(terms: Iterable<string>, df: (term: string) => number): number {
  let sum = 0;
  for (const t of terms) sum += df(t);
  return sum;
}

/** The most postings a short required clause's lists may hold to be read to their end at once (shortClause). */
const WHOLE_CLAUSE = 4_000;

/**
 * The required clause whose anchors' lists hold fewest postings, when they are few (WHOLE_CLAUSE) and a small part of
 * the query's (a quarter): every match holds one of its anchors. Not a clause a glossary group's list reads.
 */
function shortClause(clauses: readonly Set<string>[], grouped: ReadonlyMap<string, string>, df: (term: string) => number, everything: number): Set<string> | undefined {
  let best: { anchors: Set<string>; total: number } | undefined;
  for (const anchors of clauses) {
    if ([...anchors].some((t) => grouped.has(t))) continue;
    const total = postings(anchors, df);
    if (!best || total < best.total) best = { anchors, total };
  }
  return best && best.total <= WHOLE_CLAUSE && 4 * best.total <= everything ? best.anchors : undefined;
}

/**
 * Whether an item holding an anchor of every required clause matches: no exclusion, no phrase, each word one lexeme,
 * and no filter by type or system (research's time to live leaves out few).
 */
function plainWords(plan: TsPlan, lexemesOf: ReadonlyMap<string, string[]>, f: SearchFilters): boolean {
  if ((f.item_types?.length ?? 0) > 0 || (f.system_ids?.length ?? 0) > 0) return false;
  const plainLeaf = (p: TsPlan): boolean =>
    p.op === 'word' ? (lexemesOf.get(p.text)?.length ?? 0) <= 1 : p.op === 'or' || p.op === 'and' ? p.args.every(plainLeaf) : false;
  return plainLeaf(plan);
}

/**
 * The glossary groups whose lexemes are all among the query's terms (in the search's snapshot, as migration 0019
 * keeps them): each group's list reads its postings, whose impact V = Σ w × impact over the group's lexemes an item
 * holds (w: the lexeme's idf when the group was built). What those lexemes add to an item's score is at most
 * (K1 + 1) × max(idf / w) × V / min(1, ρ), ρ = ref / avgdl (impactBound's s ≤ i / min(1, ρ)), with a margin for
 * the reals V and the impacts are stored as. A term in two such groups is read by the first only (`keyOf`).
 */
async function groupLists(db: Kysely<Database>, project: string, query: PreparedQuery): Promise<{ lists: TermList[]; keyOf: Map<string, string> }> {
  const lists: TermList[] = [];
  const keyOf = new Map<string, string>();
  if (query.queryTerms.length < 2) return { lists, keyOf };
  const { rows } = await db.executeQuery<{ key: string; terms: string[]; w: number[]; cap: number | null }>(CompiledQuery.raw(GROUP_LISTS, [project, query.queryTerms]));
  const rho = Math.max(query.stats.ref_avgdl, 1) / Math.max(query.stats.avgdl, 1);
  for (const { key, terms, w, cap } of rows) {
    if (!terms.every((t) => query.queryTerms.includes(t) && !keyOf.has(t))) continue;
    const ratio = Math.max(...terms.map((t, i) => (query.weight.get(t) ?? 0) / Math.max(w[i] ?? 0, Number.MIN_VALUE)));
    // Weights gone stale (a group built while the project was small, its idfs since grown): the bound would read
    // thousands of items before it settled (an attacker: 10,200 checks), and the terms' own lists do better.
    if (ratio > MAX_GROUP_DRIFT) continue;
    const scale = ((BM25.K1 + 1) * ratio * (1 + 2 ** -20)) / Math.min(1, rho);
    for (const t of terms) keyOf.set(t, key);
    lists.push({ term: key, worth: (v) => scale * v, impact: LIST_START, id: NIL, cap: cap ?? 0, done: cap === null || cap <= 0 });
  }
  return { lists, keyOf };
}

/** How far a term's idf may have grown past the weight its group was built with for the group's list to be read. */
const MAX_GROUP_DRIFT = 1.5;

/**
 * groupLists' statement ($1 the project, $2 the query's terms), prepared by name: each group holding one of the
 * terms, its key, lexemes and weights, and its best posting's impact (null: it has none).
 */
const GROUP_LISTS = prepared(
  'search_group_lists',
  `select svc_search_group_key(g.group_id) as key, g.terms, g.w,
          (select s.impact::float8 from search_postings s where s.project_id = $1::uuid and s.term = svc_search_group_key(g.group_id)
           order by s.impact desc, s.item_id desc limit 1) as cap
   from (select t.group_id, array_agg(t.term order by t.term) as terms, array_agg(t.w::float8 order by t.term) as w
         from search_group_terms t
         where t.project_id = $1::uuid
           and t.group_id in (select x.group_id from search_group_terms x where x.project_id = $1::uuid and x.term = any ($2::text[]))
         group by t.group_id) g
   order by cardinality(g.terms) desc, g.group_id`,
);

/** How many items a check may have for it to read their page rows as well (scoreItems' `pageRows`). */
const ROWS_WITH_CHECKS = 64;

/**
 * oneTerm's statement after its first read ($1–$4 the filters, $5 the term, $6 and $7 the cursor (impact, item),
 * $8 how many to read), prepared by name: the term's postings best impact first, past the cursor, `n` of them, of the
 * items that pass the filters, each with what its score is made of and its item's updated_at in epoch milliseconds
 * (as pg reads a timestamp into a Date: whole milliseconds). Each posting's item is read by itemById: a plain join was
 * planned as a scan of the project's items per posting without statistics (PGlite, which has no autovacuum: 55 ms
 * for 42 postings of 3,000 items) or with many small projects.
 */
const READ_ONE_TERM = prepared(
  'search_read_one_term',
  `select s.item_id as id, s.impact::float8 as impact, s.tf::float8 as tf, s.dl,
          floor(extract(epoch from i.updated_at) * 1000)::float8 as at
   from search_postings s
   ${itemById('s.item_id', 'i.updated_at')}
   where s.project_id = $1::uuid and s.term = $5::text and (s.impact, s.item_id) < ($6::real, $7::uuid)
     and ${filterText(1)}
   order by s.impact desc, s.item_id desc
   limit $8::int`,
);

/**
 * anchorMatching's statement ($1–$4 the filters, $5 the term, $6 and $7 the cursor (impact, item), $8 how many postings
 * to read past it, $9 the query, $10 how many characters of each body a page row holds, $11 an impact known not to
 * reach the page (0 before it is full), $12 the query's terms when it has more than the one read, else null), prepared
 * by name: of the term's next $8 postings, best impact first, those of impact $11 at least whose items pass the
 * filters and match the query,
 * each with what its score (its posting's tf and dl, and with $12 the terms' occurrences in its title and in all, as a
 * check reads them)
 * is made of, its item's updated_at in epoch milliseconds and its page row; and one row with no id that says how many
 * postings were read (`dl`) and the last of them (`impact`, `last_id`), where a further read goes on. The postings are
 * read first and their items looked up after (`offset 0`), so that the statement reads $8 postings whatever share of
 * their items match: a query that excludes nearly every holder of its term would otherwise read the whole list.
 */
const READ_ANCHOR = prepared(
  'search_read_anchor',
  `with p as (
     select s.item_id, s.impact, s.tf, s.dl from search_postings s
     where s.project_id = $1::uuid and s.term = $5::text and (s.impact, s.item_id) < ($6::real, $7::uuid)
     order by s.impact desc, s.item_id desc
     limit $8::int offset 0
   )
   select p.item_id as id, p.impact::float8 as impact, p.tf::float8 as tf, p.dl, null::uuid as last_id,
          json_build_array(p.item_id, i.chain_id, i.item_type, i.title, left(i.body, $10::int), floor(extract(epoch from i.updated_at) * 1000)::float8) as row,
          case when $12::text[] is not null then ${occurrencesText('i.search', '$12', 'title')} end as title,
          case when $12::text[] is not null then ${occurrencesText('i.search', '$12', 'all')} end as all
   from p
   ${itemById('p.item_id', 'i.updated_at, i.search, i.chain_id, i.title, i.body')}
   where p.impact::float8 >= $11::float8 and ${filterText(1)} and i.search @@ $9::tsquery
   union all
   select null, x.impact::float8, null, (select count(*) from p)::int, x.item_id, null, null, null
   from (select 1) one left join lateral (select item_id, impact from p order by impact, item_id limit 1) x on true`,
);

/** What a one-lexeme query's scores are made of: its term, the term's idf, the average length and the impact bound. */
interface OneTermScore {
  term: string;
  idf: number;
  avgdl: number;
  bound: (impact: number) => number;
}

/** The OneTermScore of a query that is one lexeme (oneLexeme). */
function oneTermScore(query: PreparedQuery): OneTermScore {
  const term = query.queryTerms[0] as string;
  return { term, idf: query.weight.get(term) ?? 0, avgdl: query.stats.avgdl, bound: impactBound(query.stats.ref_avgdl, query.stats.avgdl) };
}

/**
 * The exact top `k` of a query that is one lexeme (a word, or an identifier the index holds as one term): an
 * item matches it exactly when it has a posting of the term, and its score is its posting's, so the walk needs no
 * checks. Postings are read best impact first, with the filters applied as they are read, in growing batches
 * (the first read by ANALYZE with the query's analysis: `first`), until the `k`-th score reaches the bound of
 * every posting not read (`bound` of the last impact read).
 */
async function oneTerm(first: FirstRead, score: OneTermScore, k: number, more: { db: Kysely<Database>; f: SearchFilters }): Promise<Scored[]>;
async function oneTerm(first: FirstRead, score: OneTermScore, k: number): Promise<Scored[] | undefined>;
async function oneTerm(first: FirstRead, { term, idf, avgdl, bound }: OneTermScore, k: number, more?: { db: Kysely<Database>; f: SearchFilters }): Promise<Scored[] | undefined> {
  const top: Scored[] = [];
  let { rows, n, read, last } = first;
  for (;;) {
    for (const [id, , tf, dl, at] of rows) top.push({ id, score: idf * bm25Tf(tf, dl, avgdl), updated_at: new Date(at) });
    top.sort(byScore);
    top.length = Math.min(top.length, k);
    if (!last || read < n) return top;
    const kth = top[k - 1];
    // As the walk: settled when no posting left can score as much as the page's last, within TIE (it could tie, and
    // a tie goes to the newer, which may be among them).
    if (kth && kth.score > idf * (BM25.K1 + 1) * bound(last[0]) * (1 + TIE)) return top;
    if (!more) return undefined;
    n = Math.min(n * 4, 4_000);
    const next = await more.db.executeQuery<{ id: string; impact: number; tf: number; dl: number; at: number }>(
      CompiledQuery.raw(READ_ONE_TERM, [...filterParams(more.f), term, last[0], last[1], n]),
    );
    rows = next.rows.map((r) => [r.id, r.impact, r.tf, r.dl, r.at]);
    read = rows.length;
    const end = rows[rows.length - 1];
    last = end ? [end[1], end[0]] : undefined;
  }
}

/**
 * The exact top `k` of a query every match of which holds one term, its `anchor`, read from that term's postings: a
 * query whose positive words hold one lexeme and that excludes others or asks for a phrase (`service -mysql`,
 * `"service services"`), or one that requires a rare word beside common ones (`service loteawaim`). The anchor's
 * postings are read best impact first, each item looked up and tested against the query `q` as it is read
 * (READ_ANCHOR) and scored: from its posting when the query has no other term, else from its vector as a
 * check scores it. An item not read holds the anchor with an impact at most the last read, and each other term at
 * most with that term's best impact: the reads stop once the `k`-th score reaches that bound, as oneTerm's do. They
 * grow with the share of the items read that matched; undefined, for the walk to answer, once the postings the page
 * still needs at that share pass MATCHING_BUDGET (a query that excludes nearly every holder of its term), or when a
 * query of several terms is not settled by its first read. `page` gets the page rows of the matches read.
 */
async function anchorMatching(
  db: Kysely<Database>,
  f: SearchFilters,
  q: string,
  query: PreparedQuery,
  anchor: string,
  k: number,
  page: Map<string, PageRow>,
  chars: number,
): Promise<Scored[] | undefined> {
  const { queryTerms, weight, terms, stats } = query;
  const avgdl = stats.avgdl;
  const bound = impactBound(stats.ref_avgdl, avgdl);
  const idf = weight.get(anchor) ?? 0;
  /** The most a posting of `term` with this impact can add to an item's score. */
  const worth = (term: string, impact: number) => (weight.get(term) ?? 0) * (BM25.K1 + 1) * bound(impact);
  const others = queryTerms.filter((t) => t !== anchor);
  // What the other terms add at most to the score of an item not read: each with its best impact.
  const rest = others.reduce((sum, t) => sum + worth(t, terms.get(t)?.max_impact ?? 0), 0);
  // One read settles a page only where the anchor's own scores spread wider than what the other terms may add: a
  // rare word beside common ones. Two words of like weight are left to the walk without a read (an attacker's
  // `zebra cache`, 600 items of 80 KB: the read, 42 of them scored from their vectors, cost a third of the search).
  if (others.length > 0 && rest > worth(anchor, terms.get(anchor)?.max_impact ?? 0) / 2) return undefined;
  const scoreOf = (r: { tf: number; dl: number; title: string | null; all: string | null }): number =>
    others.length === 0 ? idf * bm25Tf(r.tf, r.dl, avgdl) : vectorScore(query, r.title ?? '', r.all ?? '', r.dl);
  const top: Scored[] = [];
  const seen = new Set<string>();
  let cursor: [impact: number, id: string] = [LIST_START, NIL];
  // A word with exclusions reads past the items they exclude; a rare anchor's best postings mostly match, and each
  // is scored from its vector: twice the page.
  let n = others.length === 0 ? Math.max(4 * k, 64) : Math.max(2 * k, 32);
  let scanned = 0;
  let matched = 0;
  // The least impact whose bound reaches the page's last score: an item read below it is not looked up.
  let floor = 0;
  for (;;) {
    const { rows } = await db.executeQuery<{ id: string | null; impact: number; tf: number; dl: number; last_id: string | null; row: PageRow | null; title: string | null; all: string | null }>(
      CompiledQuery.raw(READ_ANCHOR, [...filterParams(f), anchor, cursor[0], cursor[1], n, q, chars, floor, others.length > 0 ? queryTerms : null]),
    );
    let read = 0;
    let last: [number, string] | undefined;
    for (const r of rows) {
      if (r.id === null) {
        read = r.dl;
        if (r.last_id !== null) last = [r.impact, r.last_id];
        continue;
      }
      matched++;
      // An item met twice (two postings of one item and term: not kept by any write, but no key forbids it) counts once.
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      if (r.row) page.set(r.id, r.row);
      top.push({ id: r.id, score: scoreOf(r), updated_at: new Date((r.row as PageRow)[5]) });
    }
    scanned += read;
    top.sort(byScore);
    top.length = Math.min(top.length, k);
    if (!last || read < n) return top;
    const kth = top[k - 1];
    const reaches = (impact: number) => kth === undefined || kth.score <= (worth(anchor, impact) + rest) * (1 + TIE);
    // As oneTerm: settled when no posting left can score as much as the page's last, within TIE.
    if (!reaches(last[0])) return top;
    // With other terms, one read only: what they may add to an item not read is bounded by their best impacts alone,
    // which a page of two fairly rare words seldom clears, and reading on scored every item of the anchor from its
    // vector (600 items of 80 KB: 240-480 ms, five times the walk's; an attacker, 2026-11-27). The walk bounds them
    // by their own lists.
    if (others.length > 0) return undefined;
    if (kth) {
      // Halve [0, last] down to the least impact that may reach the page: the postings below it are read, not looked up.
      let [lo, hi] = [0, last[0]];
      for (let i = 0; i < 40; i++) {
        const mid = (lo + hi) / 2;
        if (reaches(mid)) hi = mid;
        else lo = mid;
      }
      floor = lo;
    }
    // A full page not settled reads on as oneTerm does; a short one, as many as it lacks at the share seen so far.
    const wanted = kth ? 4 * n : Math.ceil(((k - top.length) * 1.5 * scanned) / Math.max(matched, 1));
    if (!kth && scanned + wanted > MATCHING_BUDGET) return undefined;
    n = Math.min(Math.max(wanted, 2 * n), 4_000);
    cursor = last;
  }
}

/**
 * The most matches fewMatches scores, each looked up and scored from its vector (CHECK_COST + SCORE_COST postings,
 * about 26 µs): 27 ms at most.
 */
const FEW_MATCHES = 1_024;

/**
 * The most items fewMatches may have to read whole to find a query's matches: those holding every word it requires,
 * whose vectors the index's read checks for the phrases' adjacency (a few µs each: 32,768 about 100 ms).
 */
const FEW_HOLDERS = 32_768;

/**
 * Whether a query of two required words or more is expected to be matched by few items (a quarter of FEW_MATCHES at
 * most), were the items holding each word independent of one another: the items holding every word (`holders`: a
 * clause of alternatives held by at most the sum of its anchors' document frequencies, a phrase's words each), of
 * which one in 8 holds each pair of a phrase's words adjacent, and no more than FEW_HOLDERS hold every word. Words that
 * go together are held together more often than that: fewMatches then finds too many and leaves the query to the walk,
 * having cost one read of the vectors' index. Phrases of common words (`"service data" "user deploy" "cache request"
 * database api config`: 3 matches) were left to the walk, which checked thousands of items failing the phrases:
 * 2.5–5.6 s at 100k items (an attacker, 2026-11-28).
 */
function fewExpected(clauses: readonly Leaf[][], lexemesOf: ReadonlyMap<string, string[]>, df: (term: string) => number, docs: number): boolean {
  const n = Math.max(docs, 1);
  let holders = n;
  let adjacent = 0;
  let words = 0;
  for (const clause of clauses) {
    const only = clause.length === 1 ? clause[0] : undefined;
    const phrase = only?.phrase ? [...new Set(lexemesOf.get(only.text) ?? [])] : [];
    if (phrase.length > 1) {
      for (const t of phrase) holders *= Math.min(1, df(t) / n);
      adjacent += phrase.length - 1;
      words += phrase.length;
      continue;
    }
    const anchors = clauseAnchors(clause, lexemesOf, df);
    if (anchors.size === 0) continue;
    holders *= Math.min(1, postings(anchors, df) / n);
    words += 1;
  }
  return words > 1 && holders <= FEW_HOLDERS && holders / 8 ** adjacent <= FEW_MATCHES / 4;
}

/**
 * The exact top `k` of a query matched by FEW_MATCHES items at most, or undefined for the walk to answer: its matches
 * are read from the items' own index (GIN over project and vector, which intersects the words' item lists without
 * reading their postings one by one: 20–35 ms for 8 to 32 of a 100k-item project's most frequent words), and every one
 * of them is scored from its vector, as a check scores it. A read over FEW_MATCHES is stopped there. The read is
 * planned for its query (`auto`) and for all its matches, so that the limit does not make a scan look cheap. Its cost
 * follows the postings of the words in the index, which holds every project's (btree_gin
 * over project and vector: at 1M items in the database 15 words took 50–80 ms where 100k took 20–35 ms). `pageRows`
 * gets the matches' page rows when they are few enough to be the page's.
 */
async function fewMatches(
  db: Kysely<Database>,
  query: PreparedQuery,
  f: SearchFilters,
  q: string,
  k: number,
  pageRows: Map<string, PageRow> | undefined,
): Promise<Scored[] | undefined> {
  await planMode(db, 'auto');
  // The matches are planned as a whole (a materialized CTE is planned for all its rows), then read until the limit.
  // With the limit in view PostgreSQL, which estimates a query's matches from the whole table where a project's words
  // may be rarer than elsewhere, took a scan stopped at the limit for cheap: it read every project's rows, 290–350 ms
  // over 500k rows for 86 matches, against 14 ms by the index (a reviewer, 2026-11-28).
  const { rows } = await sql<{ id: string }>`
    with m as materialized (select i.id from items i where ${filters(f)} and i.search @@ ${q}::tsquery)
    select id from m limit ${FEW_MATCHES + 1}`.execute(db);
  if (rows.length > FEW_MATCHES) return undefined;
  const ids = rows.map((r) => r.id);
  const scored = await scoreItems(db, query, ids, f, q, [], undefined, ids.length <= 2 * k ? pageRows : undefined);
  return [...scored.values()].sort(byScore).slice(0, k);
}

/**
 * The most current items of the filtered types (each type once) that filteredMatches reads to answer a query from them alone: each
 * looked up and matched (a few µs), and each match scored from its vector (about 20 µs): 8,192 all matching, about
 * 200 ms. Past it the filter's items are left to the postings' reads, which pass over the other types' postings. Till
 * 2026-11-28 2,048: types of 2,049 to 3,300 items (3% of 100k) took 1.4–6 s for a phrase or three words (an
 * attacker); a type of 5–10% took up to 1.2 s.
 */
const FILTERED_FEW = 8_192;

/**
 * filteredMatches' statement ($1–$4 the filters, $5 the query, $6 its terms, $7 how many characters of each body the
 * page rows read, $8 how many matches at most come with one), prepared by name: how many current items the item types
 * hold (`n`, to FILTERED_FEW + 1, counted in the index of their heads alone), and when they are FILTERED_FEW at most,
 * each of them that passes every filter and matches, as a check answers it (checkColumns; no row of them: none
 * matches). Each type is read by itself in its index's order, in a subquery the filters and the match cannot enter
 * (`offset 0`), so that a generic plan reads it from that index: with `item_type = any($2)` beside the match, the plan
 * read every item of the project holding the words from the vectors' index, or every current item, and filtered them
 * by type (0.2–0.9 s at 100k items).
 */
const FILTERED_CHECKS = prepared(
  'search_filtered_checks',
  `with t as materialized (
     select 1 from (select distinct unnest($2::text[])) as y(item_type)
     cross join lateral (
       select 1 from items i
       where i.project_id = $1::uuid and i.item_type = y.item_type and i.is_head and i.deleted_at is null
       order by i.updated_at desc
       limit ${FILTERED_FEW + 1}
     ) i
     limit ${FILTERED_FEW + 1}
   ), n as (select count(*)::int as n from t),
   m as (
     select i.* from n, (select distinct unnest($2::text[])) as y(item_type)
     cross join lateral (
       select ${CHECK_READS}, i.project_id, i.is_head, i.deleted_at, i.item_type, i.system_id, i.refreshed_at from items i
       where i.project_id = $1::uuid and i.item_type = y.item_type and i.is_head and i.deleted_at is null
       order by i.updated_at desc
       offset 0
     ) i
     where n.n <= ${FILTERED_FEW} and ${filterText(1)} and i.search @@ $5::tsquery
   ),
   c as (select count(*) as matches from m)
   select n.n, x.* from n left join lateral (
     select ${checkColumns({ terms: '$6', each: "'{}'", dl: 'true', chars: 'case when (select matches from c) <= $8::int then $7::int end' })}
     from m i
   ) x on true`,
);

/**
 * The exact top `k` of a query filtered by item types that hold FILTERED_FEW current items at most, or undefined
 * for the postings to answer: every item of those types is matched against the query and every match scored from
 * its vector, as a check scores it, in one statement, so the cost follows the filter's items and not the terms'
 * postings. `pageRows` gets the matches' page rows when they are few enough to be the page's.
 */
async function filteredMatches(
  db: Kysely<Database>,
  query: PreparedQuery,
  f: SearchFilters,
  q: string,
  k: number,
  pageRows: Map<string, PageRow> | undefined,
): Promise<Scored[] | undefined> {
  await planMode(db, 'force_generic_plan');
  const { rows } = await db.executeQuery<{ n: number } & (CheckRow | { [K in keyof CheckRow]: null })>(
    CompiledQuery.raw(FILTERED_CHECKS, [...filterParams(f), q, query.queryTerms, pageRows ? SNIPPET_SOURCE_CHARS : null, 2 * k]),
  );
  if ((rows[0]?.n ?? 0) > FILTERED_FEW) return undefined;
  const matches = rows.filter((r): r is { n: number } & CheckRow => r.id !== null);
  return [...checked(query, matches, undefined, pageRows).values()].sort(byScore).slice(0, k);
}

/**
 * The term anchorMatching reads for a query, if any: the query's one term, or else the rarest term that a required
 * clause holds in every alternative (a word, a phrase, or an OR of forms of one word: `zebra OR zebras`), so that
 * every match holds it, when it is held by few enough items (ANCHOR_ITEMS × k, at most ANCHOR_MOST) for reading them
 * all, each looked up and scored, to cost no more than a walk's first rounds, and the query's postings are too many
 * for scoreAll to answer at once; undefined for the walk to answer. A glossary's expansion is left to the walk, whose
 * group lists bound its synonyms.
 */
function anchorOf(query: PreparedQuery, clauses: Set<string>[], k: number): string | undefined {
  if (query.queryTerms.length === 1) return query.queryTerms[0];
  // Where scoreAll answers at once (a small project), it costs no more than the anchor's one read, and the anchor's
  // read, not settled, would cost a statement more.
  if (query.queryTerms.reduce((sum, t) => sum + query.df(t), 0) <= 2 * k * CHECK_COST) return undefined;
  let best: string | undefined;
  for (const anchors of clauses) {
    const [only] = anchors;
    if (anchors.size !== 1 || only === undefined) continue;
    if (best === undefined || query.df(only) < query.df(best)) best = only;
  }
  return best !== undefined && query.df(best) <= Math.min(ANCHOR_ITEMS * k, ANCHOR_MOST) ? best : undefined;
}

/**
 * How many items per page entry a rare anchor may be held by (anchorOf): 672 for a page of 20 (k = 21), about 7 ms
 * should every one be looked up and scored; a read of a rare word's best postings usually settles the page first.
 */
const ANCHOR_ITEMS = 32;

/**
 * The most items a rare anchor may be held by whatever the page's size: a page of 200, or the near misses' pool (a k of
 * thousands), would otherwise read and score thousands of items one by one where the walk bounds them better.
 */
const ANCHOR_MOST = 1_344;

/**
 * How many postings anchorMatching may foresee reading (each an item looked up and tested, about a check's cost)
 * before it leaves a short page to the walk, whose scoreAll scores every posting at once: about what a walk's first
 * two rounds check.
 */
const MATCHING_BUDGET = 2_000;

/**
 * What checking an item costs, in postings aggregated (about 0.4 µs each): its row and the match (about 7 µs),
 * and for an item that matches, its score from its vector (about 20 µs more). Measured at 100k items, 2026-11-26.
 */
const CHECK_COST = 16;
const SCORE_COST = 48;

/**
 * The exact top `k` by BM25F, scoring every posting of the query's terms at once (a hash aggregate over them,
 * tf and dl from the postings, which svc_search_postings wrote): for the queries whose threshold walk would read
 * and check most of their matches anyway (ORs of several common words, such as a glossary group's synonyms).
 * The best-scored items are then checked (filters, the query itself) in that order, `first` of them (8 × k unless
 * the caller knows better), four times as many again while too few of them match; an item outside those read
 * scores at most the last read. Each round is computed whole; a page that reaches down to the last score read is
 * read again with every item tied with it (a cut by id kept the older of two items scored alike and left out the
 * newer, which the page prefers: an attacker, 2026-11-27).
 */
async function scoreAll(
  db: Kysely<Database>,
  query: PreparedQuery,
  f: SearchFilters,
  q: string,
  k: number,
  clauses: readonly Set<string>[],
  pageRows: Map<string, PageRow> | undefined,
  first = 8 * k,
): Promise<Scored[]> {
  const terms = query.queryTerms.filter((t) => query.df(t) > 0);
  const w = terms.map((t) => (query.weight.get(t) ?? 0) * (BM25.K1 + 1));
  // Which required clauses each term anchors, as bits: an item none of whose postings sets a clause's bit holds none of
  // its anchors and cannot match, so the aggregate leaves it out rather than the checks (three words of mixed
  // frequency checked 30 of 88 best sums that matched, and the walk's share of such misses overrated what scoreAll
  // checks: 2026-11-28). Bits of 64: till 2026-11-28 they were of 32, and a query of more than 30 clauses kept every
  // item, so 32 common words read their 1.5M postings again for each round of checks (8.3M postings, 5 s at 100k).
  // An item holding no anchor of one of the first 63 clauses cannot match either: past them, no bits.
  const bits = clauses.slice(0, 63);
  const masks = terms.map((t) => bits.reduce((m, anchors, i) => (anchors.has(t) ? m | (1n << BigInt(i)) : m), 0n).toString());
  const full = ((1n << BigInt(bits.length)) - 1n).toString();
  // The aggregate's groups (one per item) are kept in memory rather than sorted on disk.
  await sql`select set_config('work_mem', '64MB', true), set_config('plan_cache_mode', 'auto', true)`.execute(db);
  notePlanMode(db, 'auto');
  for (let n = Math.max(first, k); ; n *= 4) {
    const round = async (text: string) => {
      const { rows } = await db.executeQuery<{ id: string | null; score: number | null; updated_at: Date | null; read: string; least: number | null; row: PageRow | null }>(
        CompiledQuery.raw(text, [terms, w, (BM25.K1 * BM25.B) / Math.max(query.stats.avgdl, 1), n, ...filterParams(f), q, pageRows ? k : 0, SNIPPET_SOURCE_CHARS, masks, full]),
      );
      const hits: Scored[] = [];
      for (const r of rows) {
        if (r.id === null || r.updated_at === null) continue;
        hits.push({ id: r.id, score: Number(r.score), updated_at: r.updated_at });
        if (r.row) pageRows?.set(r.id, r.row);
      }
      hits.sort(byScore);
      return { hits, read: Number(rows[0]?.read ?? 0), least: Number(rows[0]?.least ?? 0) };
    };
    let { hits, read, least } = await round(SCORE_ALL.cut);
    // Every item not read scores at most the last one read: k matches among those read settle the page.
    if (hits.length < k && read >= n) continue;
    // Unless the page reaches down to the last score read: then an item tied with it and cut (by id) may be newer
    // than one read, and the page prefers the newer. Rare (items scored alike at the cut): read again with every tie.
    const kth = hits[k - 1];
    if (read >= n && kth && kth.score <= least * (1 + TIE)) ({ hits, read, least } = await round(SCORE_ALL.ties));
    return hits.slice(0, k);
  }
}

/**
 * How many items the walk checks, at most one in FEW_SHARE of them matching, before it reads a query's matches from the
 * vectors' index instead (a query with exclusions, whose holders the analysis does not count: rarelyMatching).
 */
const FEW_AFTER = 1_024;
const FEW_SHARE = 128;

/**
 * scoreAll's statement ($1 the terms, $2 their weights idf × (K1 + 1), $3 K1 B / avgdl, $4 how many of the best
 * to read, $5–$8 the filters, $9 the query, $10 how many of the best matches come with their page rows, $11 how many
 * characters of each body those read, $12 each term's clause bits, $13 every clause's bits), prepared by name. One row at least: how many items were read and the
 * least score read, and each of them that matches (none: id null), the best $10 in the page's order (score, the
 * newer first, then id) with their page rows (snippetRows' columns; withSnippets reads any the page needs that it
 * lacks, should JavaScript order a near tie otherwise). The sum is bm25Tf's arithmetic:
 * w × tf / (tf + K1 (1 − B) + K1 B dl / avgdl). `cut` reads the best $4 (ties by id: a top-N heap sort), `ties` those
 * and every item tied with the last: within SAME_SQL of it, as the same item's sum differs in its last bits from one
 * aggregate to the next (`with ties` took exact ties only, and left out the newest of items scored alike: an
 * attacker, 2026-11-27). The aggregate is kept and read twice; only pages that reach down to the last score read
 * take this way.
 */
function scoreAllText(name: string, cut: 'cut' | 'ties'): string {
  const sum = `select p.item_id, sum(t.w * ${bm25TfSql('p.tf', 'p.dl', '$3::float8')}) as score
     from unnest($1::text[], $2::float8[], $12::int8[]) as t(term, w, mask)
     join search_postings p on p.project_id = $5::uuid and p.term = t.term
     group by p.item_id
     having bit_or(t.mask) = $13::int8`;
  // `ties`: every item within SAME_SQL of the $4-th score, which is a tie however the aggregate ordered its sum.
  const scored =
    cut === 'cut'
      ? `scored as (
     ${sum}
     order by score desc, p.item_id limit $4::int
   )`
      : `summed as materialized (
     ${sum}
   ),
   scored as (
     select * from summed
     where score >= (select min(x.score) from (select score from summed order by score desc limit $4::int) x) * (1 - ${SAME_SQL})
   )`;
  return prepared(
    name,
    `with ${scored},
   hits as (
     select s.item_id as id, s.score, i.updated_at, row_number() over (order by s.score desc, i.updated_at desc, s.item_id) as n
     from scored s
     ${itemById('s.item_id', 'i.updated_at, i.search')}
     where ${filterText(5)} and i.search @@ $9::tsquery
   )
   select h.id, h.score, h.updated_at, c.read, c.least,
          (select json_build_array(r.id, r.chain_id, r.item_type, r.title, left(r.body, $11::int), floor(extract(epoch from r.updated_at) * 1000)::float8)
           from items r where r.id = h.id and h.n <= $10::int) as row
   from (select count(*) as read, min(score)::float8 as least from scored) c left join hits h on true`,
  );
}
/** What `ties` counts as tied with the last score read: far above a sum's noise (SAME), far below TIE. */
const SAME_SQL = 1e-9;
const SCORE_ALL = {
  cut: scoreAllText('search_score_all', 'cut'),
  ties: scoreAllText('search_score_all_ties', 'ties'),
};

/**
 * Postings a near-miss search aggregates at most (NEAR_MISSES: every posting of the query's terms, or past this
 * many the best of each term's postings, and an honest cut). Decision 0061 measures what they cost.
 */
const NEAR_MISS_BUDGET = 100_000;

/**
 * The most items a near-miss search looks up (filters, the relaxed query, the words held) in one statement: the best
 * by words and score, and those tied with the last of them. A look-up is a read by primary key and a few tsquery
 * matches (about 2 µs on PostgreSQL), not a check's score from the vector.
 */
export const NEAR_MISS_ROWS = 4_096;

export interface NearMiss extends SearchHit {
  /** Whether the item holds each of the plan's words, in order. */
  held: boolean[];
}

/**
 * svc_item_search's near misses (docs/decisions/0032-search-rebuild-and-near-misses.md, 0061): the `want` best
 * current items, outside `exclude` (the strict answer), that match the relaxed query and hold at least half
 * (⌈n / 2⌉) but not all of the n required words the index keeps (stop words are neither counted nor missing: their
 * flag in `held` is true), most words first, then by BM25F over the relaxed query. Exact over every such item unless
 * `cut`:
 *
 * - Where at most one word must be held (two words, or one hyphen-joined), every match of the relaxed query outside
 *   the strict answer is a near miss, and its exact top (searchItems) is the list.
 * - Else every item holding a word holds one of its anchors. One aggregate over the postings of the query's terms
 *   (NEAR_MISSES) gives each item the words whose anchors it holds, at least as many as it holds (as many for a word
 *   of one lexeme), and its BM25F over the relaxed query; it keeps the items with at least ⌈n / 2⌉ such words that
 *   hold an anchor of every phrase or OR group the relaxed query requires. The best of them by (words, score) and
 *   those tied with the last are looked up (filters, the relaxed query, and the words held where an anchor does not
 *   say it), until `want` near misses rank above every item not looked up; after NEAR_MISS_ROWS, `cut`.
 * - Past `budget` postings, each term's best postings by impact are read instead (the rarest lists whole, the others
 *   an even share of what is left), the best NEAR_MISS_ROWS / 4 items met there looked up, the best of those by the words
 *   they hold scored from their vectors, and the answer is `cut`. Where
 *   every near miss holds as many words, they rank by score alone, and the relaxed query's top settles them when
 *   enough of its items score above its last.
 */
export async function searchNearMisses(
  db: Kysely<Database>,
  near: NearMissPlan,
  f: SearchFilters,
  want: number,
  exclude: ReadonlySet<string>,
  budget = NEAR_MISS_BUDGET,
): Promise<{ hits: NearMiss[]; cut: boolean }> {
  if (want <= 0) return { hits: [], cut: false };
  const asked = near.words;
  const query = await prepareQuery(db, [near.relaxed, ...asked.map((w) => w.plan), ...asked.map(heldBy)], f);
  if (!query || query === 'stop_words_only') return { hits: [], cut: false };
  const { lexemesOf, df } = query;
  const q = query.queries[0] ?? '';
  const cost = (anchors: Iterable<string>) => postings(anchors, df);
  // Every item holding a word holds one of its anchors: its plan's, or for a hyphen-joined word also the rarest of its
  // parts' (an item holding them all holds the word for the count: nearMissPlan).
  const anchorsOf = asked.map((w) => {
    const own = clauseAnchors(positiveClauses(w.plan)[0] ?? [], lexemesOf, df);
    const parts = w.parts ? positiveClauses(w.parts).map((c) => clauseAnchors(c, lexemesOf, df)).filter((a) => a.size > 0) : [];
    const rarest = parts.reduce<Set<string> | undefined>((a, b) => (a && cost(a) <= cost(b) ? a : b), undefined);
    return rarest ? new Set([...own, ...rarest]) : own;
  });
  // A word the index does not keep (a stop word such as `the` has no lexeme) is not required by the strict search
  // either: it counts neither toward the words an item holds nor as missing.
  const counted = anchorsOf.map((a) => a.size > 0);
  // Each counted word's tsquery and what holds it for the count (prepareQuery wrote them after the relaxed query's).
  const which = (from: number) => asked.flatMap((_, i) => (counted[i] ? [query.queries[from + i] ?? ''] : []));
  const plans = [...which(1), ...which(1 + asked.length)];
  const n = plans.length / 2;
  // An item may hold every word for the count and still lack one (a hyphen-joined word held by its parts): then the
  // counts start at n, else at n − 1 (an item holding all n is a strict match).
  const top = asked.some((w, i) => counted[i] && w.parts) ? n : n - 1;
  if (top < 1) return { hits: [], cut: false };
  const least = Math.ceil(n / 2);
  const found = new Map<string, Checked & { count: number }>();
  /** Keep the item if it is a near miss: `flags` says whether it matches each plan (the words, then what holds them for the count). */
  const keep = (h: Scored, flags: boolean[]) => {
    const held = flags.slice(0, n);
    const count = flags.slice(n).filter(Boolean).length;
    if (exclude.has(h.id) || count < least || held.every(Boolean)) return;
    // The counted words' flags spread back over every word, a word not counted held.
    let j = 0;
    found.set(h.id, { ...h, held: counted.map((c) => (c ? (held[j++] ?? false) : true)), count });
  };
  const check = async (ids: string[]) => {
    if (ids.length > 0) for (const h of (await scoreItems(db, query, ids, f, q, plans)).values()) keep(h, h.held);
  };

  const terms = query.queryTerms.filter((t) => df(t) > 0);
  const whole = postings(terms, df) <= budget;
  // searchItems reads a relaxed query of words, phrases and OR groups, not a hyphen-joined word's parts (an AND in an OR).
  if (!asked.some((w) => w.parts) && (least === 1 || (!whole && top === least))) {
    // One count only: the near misses rank by score alone, and the relaxed query's top settles them when enough of its
    // items score at least its last place (ties as in searchItems, broken among those read). Where one word is the
    // least to hold, every match outside the strict answer is a near miss, and it always does.
    const k = exclude.size + (least === 1 ? want : 3 * want);
    // Their ranks only: the pool's items get no snippets (the list's own get theirs below).
    const pool = await searchItems(db, near.relaxed, f, k, { snippets: 0 });
    await check(pool.filter((h) => !exclude.has(h.id)).map((h) => h.id));
    const last = pool[k]?.rank;
    const lowest = [...found.values()].sort(byScore);
    const cut = last !== undefined && !((lowest[want - 1]?.score ?? Number.NEGATIVE_INFINITY) >= last);
    return { hits: await nearMissHits(db, query, found, want), cut };
  }

  // Every near miss matches the relaxed query, so it holds an anchor of each phrase or OR group that query requires.
  const rest = near.relaxed.op === 'and' ? near.relaxed.args.slice(1) : [];
  const required = (rest.length > 0 ? positiveClauses({ op: 'and', args: rest }) : []).map((c) => clauseAnchors(c, lexemesOf, df)).filter((a) => a.size > 0);
  // Past the budget, each term's best postings: the rarest lists whole, the others an even share of what is left.
  const shares = whole ? terms.map(() => null) : evenShares(terms.map(df), budget);
  const readOut = new Set(terms.filter((t, i) => (shares[i] ?? df(t)) >= df(t)));
  const allRead = (anchors: ReadonlySet<string>) => [...anchors].every((t) => df(t) === 0 || readOut.has(t));
  // Each term's bits: the counted words it anchors (bit j for the j-th), and the required clauses read to their end
  // (from bit n on: an item met in none of a clause's lists read whole holds none of its anchors).
  const countedAnchors = anchorsOf.filter((_, i) => counted[i]);
  const kept = required.filter(allRead);
  const masks = terms.map((t) => {
    let mask = 0n;
    for (const [j, anchors] of countedAnchors.entries()) if (anchors.has(t)) mask |= 1n << BigInt(j);
    for (const [r, anchors] of kept.entries()) if (anchors.has(t)) mask |= 1n << BigInt(n + r);
    return mask.toString();
  });
  // An item may hold a word whose lists were not read whole without a bit for it: the least it must show is lower.
  const unread = countedAnchors.filter((a) => !allRead(a)).length;
  // An anchor says whether an item holds the word when the word is that one lexeme (not a glossary group, an identifier
  // of pieces or a hyphen-joined word) and its lists were read whole: then the aggregate's bits are the words held, and
  // no vector is read for them.
  const byAnchor =
    whole &&
    asked.every((w, i) => {
      if (!counted[i]) return true;
      const [only, ...others] = anchorsOf[i] ?? [];
      return !w.parts && w.plan.op === 'word' && others.length === 0 && query.queries[1 + i] === `'${(only ?? '').replaceAll("'", "''")}'`;
    });
  const read = async (m: number, most: number) => {
    const { rows } = await db.executeQuery<NearMissRow>(
      CompiledQuery.raw(whole ? NEAR_MISSES.all : NEAR_MISSES.best, [
        terms,
        terms.map((t) => (query.weight.get(t) ?? 0) * (BM25.K1 + 1)),
        masks,
        shares,
        (BM25.K1 * BM25.B) / Math.max(query.stats.avgdl, 1),
        f.project_id,
        ((1n << BigInt(n)) - 1n).toString(),
        Math.max(least - unread, 1),
        (((1n << BigInt(kept.length)) - 1n) << BigInt(n)).toString(),
        [...exclude],
        m,
        ...filterParams(f),
        q,
        byAnchor ? [] : plans,
        // Where anchors say the words held, an item holding every word is a strict match, not a near miss.
        byAnchor ? n - 1 : n,
        most,
      ]),
    );
    return rows;
  };
  // The aggregate's groups (one per item) are kept in memory rather than sorted on disk.
  await sql`select set_config('work_mem', '64MB', true), set_config('plan_cache_mode', 'auto', true)`.execute(db);
  notePlanMode(db, 'auto');
  const lookUp = (rows: NearMissRow[]) => {
    for (const r of rows) {
      if (r.id === null) continue;
      const bits = Number(r.bits);
      const byBits = Array.from({ length: n }, (_, j) => Math.floor(bits / 2 ** j) % 2 === 1);
      keep({ id: r.id, score: Number(r.score), updated_at: new Date(Number(r.at)) }, r.held ?? [...byBits, ...byBits]);
    }
  };
  if (!whole) {
    // The best 1,024 items met are looked up, each with the words it holds (4,096 cost 150 ms more at 100k items,
    // uncached), and the best of them by those words and their partial scores are then scored from their vectors. A
    // cut: items not met, or met low, may rank higher.
    lookUp(await read(NEAR_MISS_ROWS / 4, NEAR_MISS_ROWS / 4));
    const best = ranked(found).slice(0, Math.max(4 * want, 64));
    found.clear();
    await check(best.map((h) => h.id));
    return { hits: await nearMissHits(db, query, found, want), cut: true };
  }
  // The best 4 × want and their ties first; where filters or the relaxed query leave out too many of them, or ties
  // run past twice as many, once more the best NEAR_MISS_ROWS.
  for (const [m, most] of [
    [Math.max(4 * want, 64), Math.max(8 * want, 128)],
    [NEAR_MISS_ROWS, NEAR_MISS_ROWS],
  ] as const) {
    const rows = await read(m, most);
    lookUp(rows);
    // Every item not looked up ranks at most as the first of them (`next_c` words, `next_score`; none: all were).
    const next = rows[0]?.next_c ?? null;
    if (next === null) return { hits: await nearMissHits(db, query, found, want), cut: false };
    const kth = ranked(found)[want - 1];
    const below = Number(rows[0]?.next_score ?? 0);
    if (kth && (kth.count > next || (kth.count === next && kth.score - below > SAME * Math.abs(kth.score)))) {
      return { hits: await nearMissHits(db, query, found, want), cut: false };
    }
  }
  return { hits: await nearMissHits(db, query, found, want), cut: true };
}

/** NEAR_MISSES' row: a near miss looked up, or (id null) none; every row says how the first item not looked up ranks. */
interface NearMissRow {
  id: string | null;
  bits: number;
  score: number;
  at: number;
  held: boolean[] | null;
  next_c: number | null;
  next_score: number | null;
}

/** Near misses in the list's order: most words first, then by score. */
function ranked<T extends Scored & { count: number }>(found: ReadonlyMap<string, T>): T[] {
  return [...found.values()].sort((a, b) => b.count - a.count || byScore(a, b));
}

/** The best `want` near misses found, with their snippets. */
async function nearMissHits(db: Kysely<Database>, query: PreparedQuery, found: ReadonlyMap<string, Checked & { count: number }>, want: number): Promise<NearMiss[]> {
  const page = ranked(found).slice(0, want);
  const hits = await withSnippets(db, page, query, want);
  return hits.map((h, i) => ({ ...h, held: page[i]?.held ?? [] }));
}

/** How many of each list's postings `budget` reads: the shortest whole while an even share holds them, the others that share. */
function evenShares(sizes: readonly number[], budget: number): number[] {
  const out = sizes.map(() => 0);
  let left = budget;
  let lists = sizes.length;
  for (const i of sizes.map((_, i) => i).sort((a, b) => (sizes[a] as number) - (sizes[b] as number))) {
    const take = Math.min(sizes[i] as number, Math.floor(left / lists));
    out[i] = take;
    left -= take;
    lists--;
  }
  return out;
}

/**
 * searchNearMisses' statements, prepared by name: over every posting of the terms (`all`), or each term's best $4 by
 * impact (`best`; a plain join was 10-20% faster than that read with no limit). $1 the query's terms, $2 their weights
 * idf × (K1 + 1), $3 their bits (int8: the counted words and the required clauses each anchors), $5 K1 B / avgdl, $6
 * the project, $7 the words' bits, $8 how many words an item must show at least, $9 the required clauses' bits, $10
 * the items left out (the strict answer), $11 how many of the best to look up, $12–$15 the filters, $16 the relaxed
 * query, $17 the plans whose match is asked about (`held`; empty: none), $18 how many words an item may show at most,
 * $19 how many to look up at most with those tied with the $11-th.
 *
 * One aggregate over the postings (as scoreAll's: bm25Tf's arithmetic) gives each item the words whose anchors it
 * holds and its score. The best $11 by (words, score, id), and those after them with as many words and a score within
 * SAME_SQL of the $11-th's, at most $19 in all, are looked up by id, and those that pass the filters and match the
 * relaxed query are answered (id, their words' bits as a float8, score, updated_at in epoch milliseconds, `held`),
 * with one row at least that says how the first item not looked up ranks (`next_c`, `next_score`; null: none is left).
 */
function nearMissesText(name: string, postings: 'all' | 'best'): string {
  // Every posting of the terms, or each term's best $4 by impact.
  const read =
    postings === 'all'
      ? 'join search_postings p on p.project_id = $6::uuid and p.term = t.term'
      : `cross join lateral (
       select s.item_id, s.tf, s.dl from search_postings s
       where s.project_id = $6::uuid and s.term = t.term
       order by s.impact desc, s.item_id desc
       limit t.n
     ) p`;
  return prepared(
    name,
    `with groups as materialized (
     select p.item_id, bit_or(t.mask) & $7::int8 as bits, sum(t.w * ${bm25TfSql('p.tf::float8', 'p.dl', '$5::float8')}) as score
     from unnest($1::text[], $2::float8[], $3::int8[], $4::int[]) as t(term, w, mask, n)
     ${read}
     group by p.item_id
     having bit_count((bit_or(t.mask) & $7::int8)::bit(64)) between $8::int and $18::int
        and bit_or(t.mask) & $9::int8 = $9::int8
   ),
   best as (
     select g.item_id, g.bits, g.score, bit_count(g.bits::bit(64))::int as c
     from groups g
     -- Here, not in the aggregate's having, which the planner would test on every posting read.
     where not (g.item_id = any($10::uuid[]))
     order by bit_count(g.bits::bit(64)) desc, g.score desc, g.item_id
     limit $19::int + 1
   ),
   numbered as (
     select b.*, row_number() over (order by b.c desc, b.score desc, b.item_id) as n from best b
   ),
   chosen as (
     select x.* from numbered x
     where x.n <= $11::int
        or (x.n <= $19::int and (x.c, x.score) >= (select e.c, e.score * (1 - ${SAME_SQL}) from numbered e where e.n = $11::int))
   ),
   hits as (
     select x.item_id as id, x.bits::float8 as bits, x.score, floor(extract(epoch from i.updated_at) * 1000)::float8 as at,
            case when cardinality($17::tsquery[]) > 0 then
              array(select i.search @@ e.q from unnest($17::tsquery[]) with ordinality as e(q, n) order by e.n)
            end as held
     from chosen x
     ${itemById('x.item_id', 'i.updated_at, i.search')}
     where ${filterText(12)} and i.search @@ $16::tsquery
   )
   select h.*, b.c as next_c, b.score as next_score
   from (select 1) one
   left join numbered b on b.n = (select count(*) from chosen) + 1
   left join hits h on true`,
  );
}
const NEAR_MISSES = { all: nearMissesText('search_near_misses', 'all'), best: nearMissesText('search_near_misses_best', 'best') };

/** The search's statements that read items, by name: a test checks that each reads them by primary key. */
export const ITEM_READS = {
  analyze: ANALYZE,
  oneTerm: READ_ONE_TERM,
  anchorMatching: READ_ANCHOR,
  checkIds: CHECK_IDS,
  scoreAll: SCORE_ALL.cut,
  scoreAllTies: SCORE_ALL.ties,
  nearMisses: NEAR_MISSES.all,
  nearMissesBest: NEAR_MISSES.best,
} as const;

/**
 * The rows of the items `ids` (a condition on items `i`) with the first `chars` characters of each body, what
 * a snippet is made from, and updated_at in epoch milliseconds.
 */
function snippetRows(ids: string, chars: string): string {
  return `select i.id, i.chain_id, i.item_type, i.title, left(i.body, ${chars}) as body,
            floor(extract(epoch from i.updated_at) * 1000)::float8 as at
   from items i where ${ids}`;
}

/** A page's rows: id, chain, type, title, the start of the body and updated_at in epoch milliseconds (snippetRows). */
type PageRow = [id: string, chain_id: string, item_type: string, title: string, body: string, at: number];

/** The page's rows ($1 the ids, $2 how many characters of each body), prepared by name. */
const SNIPPET_ROWS = prepared('search_snippet_rows', snippetRows('i.id = any($1::uuid[])', '$2::int'));

/**
 * The hits for `top`, in its order, with snippets for the first `limit` only: domain's markSnippet over each body's
 * first characters, marking the query's lexemes (docs/decisions/0044-search-snippets.md). The rows are read unless
 * `known` holds them.
 */
async function withSnippets(
  db: Kysely<Database>,
  top: Scored[],
  query: Pick<PreparedQuery, 'queryTerms' | 'within'> | undefined,
  limit: number,
  known: ReadonlyMap<string, PageRow> = new Map(),
): Promise<SearchHit[]> {
  const missing = top.slice(0, limit).filter((s) => !known.has(s.id)).map((s) => s.id);
  if (missing.length === 0) return pageFrom(top, query, limit, known);
  const { rows } = await db.executeQuery<{ id: string; chain_id: string; item_type: string; title: string; body: string; at: number }>(
    CompiledQuery.raw(SNIPPET_ROWS, [missing, SNIPPET_SOURCE_CHARS]),
  );
  const all = new Map(known);
  for (const r of rows) all.set(r.id, [r.id, r.chain_id, r.item_type, r.title, r.body, r.at]);
  return pageFrom(top, query, limit, all);
}

/** withSnippets' hits from the page rows `known` (a hit whose row is not there keeps only its id, score and time). */
function pageFrom(top: Scored[], query: Pick<PreparedQuery, 'queryTerms' | 'within'> | undefined, limit: number, known: ReadonlyMap<string, PageRow>): SearchHit[] {
  const terms = new Set(query?.queryTerms);
  const within: Compounds = query?.within ?? new Map();
  return top.map((s, i) => {
    const r = i < limit ? known.get(s.id) : undefined;
    return {
      id: s.id,
      chain_id: r?.[1] ?? '',
      item_type: r?.[2] ?? '',
      title: r?.[3] ?? '',
      snippet: r ? markSnippet(r[4], terms, within) : '',
      rank: s.score,
      updated_at: iso(r ? new Date(r[5]) : s.updated_at),
    };
  });
}

/**
 * The page's order: score, the newer first, then id. Scores within SAME of each other are alike: the same item text
 * scores differently in its last bits by the order its terms were summed (scoreAll's aggregate against a check's
 * sum), and identical items were ordered by that noise rather than by time (a reviewer, 2026-11-27: 5.691971823920311
 * before 5.69197182392031, the older first). SAME is far below TIE, so every item that may tie is still checked.
 */
export function byScore(a: Scored, b: Scored): number {
  const d = b.score - a.score;
  if (Math.abs(d) > SAME * Math.max(Math.abs(a.score), Math.abs(b.score))) return d;
  return b.updated_at.getTime() - a.updated_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
const SAME = 1e-12;

/**
 * The glossary's synonyms in the project `project` (an expression) of the normalized terms `terms`, at most
 * `perTerm` per term, in name order, as rows (key, synonym). Distinct before numbering: a term in two groups (or a
 * synonym shared by them) is one synonym, and must not take the place of another, which would then be left out
 * without `expansion_cut` saying so. `spellings: 'one'` counts a synonym once by its normalized form (its first
 * spelling by name): `Cache` in one group and `cache` in another were two rows, expand to one word, and took the
 * place of a synonym left out with nothing said (a reviewer, 2026-11-27). `'each'` is the text svc_search_one was
 * created with (migration 0017), which asks only whether any row exists.
 */
function synonymRows(project: string, terms: string, perTerm: string, spellings: 'each' | 'one' = 'one'): string {
  const distinct =
    spellings === 'each'
      ? 'select distinct t.normalized as key, s.term as synonym'
      : 'select distinct on (t.normalized, s.normalized) t.normalized as key, s.term as synonym';
  const order = spellings === 'each' ? '' : `
       order by t.normalized, s.normalized, s.term`;
  return `select x.key, x.synonym
   from (
     select d.key, d.synonym, row_number() over (partition by d.key order by d.synonym) as n
     from (
       ${distinct}
       from glossary_terms t
       join glossary_terms s on s.group_id = t.group_id and s.status = 'accepted'
       where t.project_id = ${project} and t.status = 'accepted' and t.normalized = any(${terms})
         and not exists (select 1 from glossary_rejections r where r.group_id = s.group_id and r.normalized = s.normalized)${order}
     ) d
   ) x
   where x.n <= ${perTerm}`;
}

/** glossarySynonyms' statement ($1 the project, $2 the normalized terms, $3 how many synonyms per term), prepared by name. */
const GLOSSARY_SYNONYMS = prepared('glossary_synonyms', `${synonymRows('$1::uuid', '$2::text[]', '$3::int')} order by x.key, x.synonym`);

function synonymMap(rows: Iterable<readonly [string, string]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [key, synonym] of rows) out.set(key, [...(out.get(key) ?? []), synonym]);
  return out;
}

/**
 * Map normalized terms to the accepted terms of their glossary groups (rejected terms never expand), at most
 * `perTerm` of them per term in name order: a group may hold hundreds of terms, and the query the expansion
 * becomes has to stay bounded (domain's expandQuery decides how many are used).
 */
export async function glossarySynonyms(
  db: Kysely<Database>,
  projectId: string,
  terms: string[],
  perTerm = SYNONYMS_TO_READ,
): Promise<Map<string, string[]>> {
  if (terms.length === 0) return new Map();
  const { rows } = await db.executeQuery<{ key: string; synonym: string }>(CompiledQuery.raw(GLOSSARY_SYNONYMS, [projectId, terms, perTerm]));
  return synonymMap(rows.map((r) => [r.key, r.synonym] as const));
}

/**
 * openItemSearch's statement ($1 the slug, $2 the normalized terms, $3 how many synonyms per term), prepared by
 * name: one row, the project's columns (null when no project has the slug), its synonyms of the terms, and the
 * search's plan mode set (planMode).
 */
const OPEN_SEARCH = prepared(
  'search_open',
  `select ${PROJECT_COLUMNS.map((c) => `p.${c}`).join(', ')},
          set_config('plan_cache_mode', 'force_generic_plan', true) || set_config('jit', 'off', true) as mode,
          set_config('statement_timeout', $4::text, true) as timeout,
          (select json_agg(json_build_array(y.key, y.synonym) order by y.key, y.synonym)
           from (${synonymRows('p.id', '$2::text[]', '$3::int')}) y) as synonyms
   from (select 1) o left join projects p on p.slug = $1::text`,
);

/**
 * What an item search starts from, in one round trip where `projectRef` is a slug: the project (as resolveProject
 * finds it), the glossary synonyms of `terms` there (glossarySynonyms), and the plan mode of the search's
 * statements (planMode) and their time-out (`timeoutMs`, boundSearch). Four statements otherwise, or when no project
 * has that slug (an id or id prefix).
 */
export async function openItemSearch(
  db: Kysely<Database>,
  projectRef: string,
  terms: string[],
  timeoutMs: number,
  slugTried = false,
): Promise<{ project: Project; synonyms: Map<string, string[]> }> {
  const slug = slugOf(projectRef);
  if (slug !== undefined && !slugTried) {
    const { rows } = await db.executeQuery<ProjectRow & { synonyms: [string, string][] | null }>(CompiledQuery.raw(OPEN_SEARCH, [slug, terms, SYNONYMS_TO_READ, timeoutText(timeoutMs)]));
    notePlanMode(db, 'force_generic_plan');
    const row = rows[0];
    if (row?.id) return { project: toProject(row), synonyms: synonymMap(row.synonyms ?? []) };
  }
  await boundSearch(db, timeoutMs);
  const project = await resolveProject(db, projectRef);
  return { project, synonyms: await glossarySynonyms(db, project.id, terms) };
}

/** svc_search_one's answer: the project, whether the glossary expands the query, and its analysis when it does not. */
interface SearchOneRow {
  project: ProjectRow;
  synonyms: boolean;
  analysis?: AnalysisRow | null;
}

/**
 * Run `text` (a statement calling svc_search_one: SEARCH_ONE or OPEN_ANALYZED) for `plan` in the project named by its
 * slug or full id (`projectRef`), with research's time to live `ttl` and the page's size `k` (null: no first read).
 * `not_slug_or_id` without running it when `projectRef` is neither (an id prefix); `no_such_project` when none has it.
 */
async function callSearchOne(
  db: Kysely<Database>,
  text: string,
  projectRef: string,
  terms: string[],
  plan: TsPlan,
  ttl: number | null,
  k: number | null,
  ...more: unknown[]
): Promise<SearchOneRow | 'not_slug_or_id' | 'no_such_project'> {
  const slug = slugOf(projectRef);
  const id = slug === undefined && isUuid(projectRef.trim()) ? projectRef.trim() : undefined;
  if (slug === undefined && id === undefined) return 'not_slug_or_id';
  const { leafTexts, leaves } = queryLeaves([plan]);
  const { rows } = await db.executeQuery<{ r: SearchOneRow | null }>(
    CompiledQuery.raw(text, [slug ?? null, id ?? null, terms, SYNONYMS_TO_READ, leafTexts, ttl, ...leafParams(leaves, k), ...more]),
  );
  return rows[0]?.r ?? 'no_such_project';
}

/** A query's analysis read ahead of searchItems (openAnalyzedSearch), which then need not read it. */
export type SearchAnalysis = Analysis;

/**
 * openAnalyzedSearch's statement ($1–$10 as svc_search_one's parameters), prepared by name: svc_search_one, and the
 * search's plan mode set for the statements that follow (planMode; svc_search_one sets its own only while it runs).
 */
const OPEN_ANALYZED = prepared(
  'search_open_analyzed',
  `select svc_search_one($1::text, $2::uuid, $3::text[], $4::int, $5::text[], $6::int, $7::text[], $8::boolean[], $9::int, $10::int) as r,
          set_config('plan_cache_mode', 'force_generic_plan', true) || set_config('jit', 'off', true) as mode,
          set_config('statement_timeout', $11::text, true) as timeout`,
);

/**
 * What a search of several words or clauses (`plan`, before any glossary expansion) in its transaction starts from,
 * in one round trip: the project named by its slug or id (`projectRef`; an id prefix is not) and the query's analysis
 * (svc_search_one, without a first read), with the search's plan mode and time-out (`timeoutMs`) set. Undefined, and
 * the caller opens the search as openItemSearch does, when the glossary has synonyms for `terms` or the plan is one
 * word or phrase (whose analysis reads its first postings: the one statement's, decision 0050); `no_such_project` when
 * no project has that slug or id (openItemSearch, told `slugTried`, then looks for it as an id prefix without asking
 * for the slug again). Unfiltered searches only: the analysis is made without the item types and systems, which are
 * resolved in the project.
 */
export async function openAnalyzedSearch(
  db: Kysely<Database>,
  projectRef: string,
  terms: string[],
  plan: TsPlan,
  timeoutMs: number,
): Promise<{ project: Project; analysis: SearchAnalysis } | 'no_such_project' | undefined> {
  if (plan.op === 'word' || plan.op === 'phrase' || queryLeaves([plan]).leaves.length === 0) return undefined;
  const r = await callSearchOne(db, OPEN_ANALYZED, projectRef, terms, plan, null, null, timeoutText(timeoutMs));
  if (r === 'not_slug_or_id') return undefined;
  notePlanMode(db, 'force_generic_plan');
  if (r === 'no_such_project') return 'no_such_project';
  if (r.synonyms) return undefined;
  return { project: toProject(r.project), analysis: readAnalysis(r.analysis ?? null) };
}

/** Leave the search index alone for the rest of this transaction (bulk import), until rebuildSearchIndex. */
export async function deferSearchIndex(tx: Transaction<Database>): Promise<void> {
  await sql`select set_config('svc.search_deferred', 'on', true)`.execute(tx);
}

/** Rebuild a project's search index and statistics once from its current items, then refresh planner statistics. */
export async function rebuildSearchIndex(tx: Transaction<Database>, projectId: string): Promise<void> {
  await sql`select set_config('svc.search_deferred', 'off', true)`.execute(tx);
  await sql`select svc_search_rebuild(${projectId}::uuid)`.execute(tx);
  await sql`analyze items, search_postings, search_terms, search_stats`.execute(tx);
}
