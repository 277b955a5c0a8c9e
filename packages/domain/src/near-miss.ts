import { normalizeTerm, type QueryAst, type TsPlan } from './query.js';

/** A required bare word of a query and the plan it expanded to (itself, or the OR of its glossary group). */
interface RequiredWord {
  word: string;
  plan: TsPlan;
}

export interface NearMissPlan {
  words: RequiredWord[];
  /**
   * The query with its required bare words relaxed to "any of them"; phrases, OR groups and exclusions kept. A near
   * miss holds at least half of the words its index keeps (store searchNearMisses: stop words are not counted).
   */
  relaxed: TsPlan;
}

// Sentence punctuation after a word and brackets or quotes around it: not part of the word a near miss lacks.
const SENTENCE_EDGES = /^[([{<«"'“‘「『]+|[)\]}>»"'”’」』]*[.,;:!?…)\]}>»"'”’」』。、]+$/gu;

/** A required word as `missing` names it: as typed, less the sentence around it (`retries?` is `retries`; `c++` stays). */
function shownWord(text: string): string {
  return text.replace(SENTENCE_EDGES, '') || text;
}

/** A word of letters and digits joined by hyphens (`rate-limit`, `self-hosted`, `RFC-0042`), without its sentence edges. */
const HYPHEN_COMPOUND = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+$/u;

/**
 * The near-miss form of a planned query (svc_item_search's `partial` list), or undefined when the query has
 * fewer than two required bare words (nothing to relax). `plan` must be planQuery(ast, …): one top-level part
 * per clause, in order. A required word of hyphen-joined parts counts its parts as words too: the index holds such a
 * word whole and by its parts, and the query requires the whole, so `rate-limit` alone left a text saying "rate
 * limiter" unlisted, an empty page with nothing to say why (a newcomer, 2026-11-27); it is now a near miss that
 * lacks `rate-limit`.
 */
export function nearMissPlan(ast: QueryAst, plan: TsPlan): NearMissPlan | undefined {
  const parts = ast.clauses.length === 1 ? [plan] : plan.op === 'and' ? plan.args : undefined;
  if (!parts || parts.length !== ast.clauses.length) return undefined;
  const words: RequiredWord[] = [];
  const kept: TsPlan[] = [];
  const seen = new Set<string>();
  ast.clauses.forEach((clause, i) => {
    const part = parts[i] as TsPlan;
    if (clause.kind === 'required' && clause.term.kind === 'word') {
      const key = normalizeTerm(clause.term.text);
      if (!seen.has(key)) {
        seen.add(key);
        words.push({ word: shownWord(clause.term.text), plan: part });
      }
    } else {
      kept.push(part);
    }
  });
  // The parts of hyphen-joined words, after the query's own words (a part the query also asks for is that word).
  for (const { word } of [...words]) {
    if (!HYPHEN_COMPOUND.test(word)) continue;
    for (const piece of word.split('-')) {
      const key = normalizeTerm(piece);
      if (seen.has(key)) continue;
      seen.add(key);
      words.push({ word: piece, plan: { op: 'word', text: piece } });
    }
  }
  if (words.length < 2) return undefined;
  const any: TsPlan = { op: 'or', args: words.map((w) => w.plan) };
  return { words, relaxed: kept.length === 0 ? any : { op: 'and', args: [any, ...kept] } };
}
