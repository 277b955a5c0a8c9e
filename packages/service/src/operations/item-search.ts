import { expandableTerms, expandQuery, invalidInput, isUuid, MAX_EXPANSIONS, MAX_SYNONYMS_PER_TERM, nearMissPlan, parseQuery, projectSettings, snippetMarkdown } from '@svc/domain';
import { listItemTypes, openAnalyzedSearch, openItemSearch, resolveSystem, type SearchHit, searchItems, searchNearMisses, searchOneStatement } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit, projectRef, searchQuery, truncation } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { timeLeft } from '../searches.js';
import { wordlessQuery } from './search-shared.js';

export const itemSearch = defineOperation({
  name: 'svc_item_search',
  surface: 'tool',
  title: 'Search items',
  description:
    "Search a project's current items by BM25 (title above body) over all matches of any age " +
    '(expired research with include_expired). Dialect: bare words are all required; "a phrase" matches ' +
    `adjacent words; \`a OR b\` (any case) either; a leading - excludes; type names are not words (use item_types). Words expand to glossary synonyms, ≤${MAX_SYNONYMS_PER_TERM} each and ≤${MAX_EXPANSIONS} ` +
    'in all (not phrases or exclusions). Captures appear once promoted. Returns {items: [{id, chain_id, ' +
    'item_type, title, snippet, rank, updated_at}], truncated, expansion_cut, partial?}; truncated: false or ' +
    'why cut (limit: more match; glossary_expansion: synonyms cut; partial: near misses cut); if ' +
    'fewer than limit hold every bare word, `partial` lists items holding at least half, most first, lacked words in `missing`.',
  input: z.object({
    project_id: projectRef,
    query: searchQuery('Search text in the dialect above'),
    item_types: z.array(z.string().max(40)).max(20).optional().describe('Only these item types (registered type keys; an unknown one is refused)'),
    system_ids: z.array(z.string().max(200)).max(50).optional().describe('Only these systems (ids, prefixes or names)'),
    include_expired: z.boolean().optional().describe('Include expired research (default false)'),
    limit,
  }),
  kind: 'read',
  search: true,
  annotations: { idempotentHint: true },
  // statistics and postings are read in several statements: one snapshot keeps them consistent
  snapshot: true,
  // A search of one word, without type or system filters, in a project named by its slug or id, in one
  // statement where its first postings settle the page (decision 0050); anything else in the transaction.
  async oneStatement(ctx, input) {
    if ((input.item_types?.length ?? 0) > 0 || (input.system_ids?.length ?? 0) > 0) return undefined;
    const ast = parseQuery(input.query);
    if (ast.clauses.length !== 1) return undefined;
    // Without synonyms: the statement answers only when the glossary has none for the query's words. A word only: a
    // quoted phrase of one lexeme is rare, and of more its first read would be made twice (an attacker, 2026-11-27).
    const { plan } = expandQuery(ast, new Map());
    if (plan?.op !== 'word') return undefined;
    // Research's time to live is the project's setting; the statement filters by a guess (the last seen for this
    // project, else the default) and the answer is kept only when the guess was the project's.
    const guess = input.include_expired ? undefined : (seenTtl(input.project_id) ?? DEFAULT_TTL);
    const max = boundedLimit(input.limit);
    const found = await searchOneStatement(ctx.db, input.project_id, expandableTerms(ast), plan, guess, max);
    if (!found) return undefined;
    const { ttl_days } = found.project.settings.research;
    rememberTtl(found.project, ttl_days);
    return input.include_expired || guess === ttl_days ? strictAnswer(found.hits, max, false) : undefined;
  },
  async run(ctx, input) {
    const ast = parseQuery(input.query);
    // A query of no word is named before anything else is looked up, as capture and idea search name it.
    if (ast.clauses.length === 0) throw wordlessQuery();
    // The project and the query's glossary synonyms, in one round trip where the project is named by its slug; with the
    // query's analysis too, when the query is more than one word, has no synonyms and no type or system filter.
    const filtered = (input.item_types?.length ?? 0) > 0 || (input.system_ids?.length ?? 0) > 0;
    const bare = filtered ? undefined : expandQuery(ast, new Map()).plan;
    const tried = bare ? await openAnalyzedSearch(ctx.db, input.project_id, expandableTerms(ast), bare, timeLeft(ctx)) : undefined;
    const opened = typeof tried === 'object' ? tried : undefined;
    // No project by that slug or id: openItemSearch looks for an id prefix (or refuses) without asking again.
    const { project, synonyms } = opened
      ? { project: opened.project, synonyms: new Map<string, string[]>() }
      : await openItemSearch(ctx.db, input.project_id, expandableTerms(ast), timeLeft(ctx), tried === 'no_such_project');
    const systemIds = [];
    for (const [i, ref] of (input.system_ids ?? []).entries()) {
      systemIds.push((await resolveSystem(ctx.db, project.id, ref, `system_ids[${i}]`)).id);
    }
    if (input.item_types && input.item_types.length > 0) {
      // A misspelt type would filter everything out and answer [] as if nothing matched.
      const known = (await listItemTypes(ctx.db)).map((t) => t.key);
      for (const [i, key] of input.item_types.entries()) {
        if (!known.includes(key)) {
          throw invalidInput(`item_types[${i}]`, `unknown item type '${key}'; registered types: ${known.join(', ')}`, { known });
        }
      }
    }
    const { plan, expansion_cut } = expandQuery(ast, synonyms);
    if (!plan) throw wordlessQuery();
    const max = boundedLimit(input.limit);
    const filters = {
      project_id: project.id,
      item_types: input.item_types,
      system_ids: systemIds,
      research_ttl_days: input.include_expired ? undefined : project.settings.research.ttl_days,
    };
    rememberTtl(project, project.settings.research.ttl_days);
    const hits = await searchItems(ctx.db, plan, filters, max, { analysis: opened?.analysis, expanded: synonyms.size > 0 });
    const strict = strictAnswer(hits, max, expansion_cut);
    const { items } = strict;
    const near = items.length < max ? nearMissPlan(ast, plan) : undefined;
    if (!near) return strict;
    // Near misses: items holding at least half but not all of the bare words, most words first, then by rank;
    // exact over every such item, or `truncated` says `partial` (docs/decisions/0032).
    // One more than the places left: more near misses than fit are cut by the limit, and `truncated` says so (an
    // attacker saw 1 of 3 near misses answered with truncated: false).
    const places = max - items.length;
    const { hits: nearHits, cut } = await searchNearMisses(ctx.db, near, filters, places + 1, new Set(items.map((h) => h.id)));
    const page = nearHits
      .slice(0, places)
      .map(({ held, ...hit }) => ({ ...hit, snippet: snippetMarkdown(hit.snippet), missing: near.words.filter((_, i) => !held[i]).map((w) => w.word) }));
    const all = truncation({ limit: hits.length > max || nearHits.length > places, glossary_expansion: expansion_cut, partial: cut });
    return page.length > 0 ? { items, truncated: all, expansion_cut, partial: page } : { items, truncated: all, expansion_cut };
  },
});

/** The answer's items from the store's hits (`max` + 1 of them at most, the last saying whether more match). */
function strictAnswer(
  hits: SearchHit[],
  max: number,
  expansion_cut: boolean,
): { items: SearchHit[]; truncated: ReturnType<typeof truncation>; expansion_cut: boolean; partial?: undefined } {
  // The store marks matches with control characters; the answer says them as markdown, the body's own * escaped.
  const items = hits.slice(0, max).map((h) => ({ ...h, snippet: snippetMarkdown(h.snippet) }));
  return { items, truncated: truncation({ limit: hits.length > max, glossary_expansion: expansion_cut }), expansion_cut };
}

const DEFAULT_TTL = projectSettings({}).research.ttl_days;

/**
 * Research's time to live last seen per project in this process, by slug and by id apart (a slug may be spelt as
 * another project's id: one map let each overwrite the other's guess, an attacker, 2026-11-27), whatever the
 * database: the guess for oneStatement, checked there. At most 1,000 projects, the longest unused leaving first.
 */
const ttlSeen = { slug: new Map<string, number>(), id: new Map<string, number>() };

function seenTtl(projectRef: string): number | undefined {
  const ref = projectRef.trim().toLowerCase();
  return isUuid(ref) ? ttlSeen.id.get(ref) : ttlSeen.slug.get(ref);
}

function rememberTtl(project: { id: string; slug: string }, ttl: number): void {
  for (const [names, name] of [
    [ttlSeen.slug, project.slug],
    [ttlSeen.id, project.id],
  ] as const) {
    names.delete(name);
    names.set(name, ttl);
    if (names.size > 1_000) names.delete(names.keys().next().value as string);
  }
}
