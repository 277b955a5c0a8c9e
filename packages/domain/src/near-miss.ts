import { normalizeTerm, type QueryAst, type TsPlan } from './query.js';

/** A required bare word of a query and the plan it expanded to (itself, or the OR of its glossary group). */
export interface RequiredWord {
  word: string;
  plan: TsPlan;
  /**
   * For a hyphen-joined word (`rate-limit`), the AND of its parts: for the count of words held, an item holding them
   * but not the whole holds the word as one holding the whole does (it is still named as lacking it).
   */
  parts?: TsPlan;
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

/** What holds a word for the count of words a near miss holds: its plan, or, for a hyphen-joined word, its parts too. */
export function heldBy(w: RequiredWord): TsPlan {
  return w.parts ? { op: 'or', args: [w.plan, w.parts] } : w.plan;
}

/**
 * The near-miss form of a planned query (svc_item_search's `partial` list), or undefined when the query has
 * fewer than two required bare words, or one that is not hyphen-joined (nothing to relax). `plan` must be planQuery(ast, …): one top-level part
 * per clause, in order. A required word of hyphen-joined parts is held, for the count, by an item holding all its parts:
 * the index holds such a word whole and by its parts, and the query requires the whole, so `rate-limit` alone left a
 * text saying "rate limiter" unlisted, an empty page with nothing to say why (a newcomer, 2026-11-27); it is now a near
 * miss that lacks `rate-limit`. The words counted are the query's own: counting the parts as words of their own
 * raised the half an item must hold, so `rate-limit cache` listed an item holding neither word and left out one
 * holding `cache` (a reviewer, 2026-11-28; decision 0055).
 */
export function nearMissPlan(ast: QueryAst, plan: TsPlan): NearMissPlan | undefined {
  const top = ast.clauses.length === 1 ? [plan] : plan.op === 'and' ? plan.args : undefined;
  if (!top || top.length !== ast.clauses.length) return undefined;
  const words: RequiredWord[] = [];
  const kept: TsPlan[] = [];
  const seen = new Set<string>();
  ast.clauses.forEach((clause, i) => {
    const part = top[i] as TsPlan;
    if (clause.kind === 'required' && clause.term.kind === 'word') {
      const key = normalizeTerm(clause.term.text);
      if (!seen.has(key)) {
        seen.add(key);
        const word = shownWord(clause.term.text);
        const parts: TsPlan = { op: 'and', args: word.split('-').map((text): TsPlan => ({ op: 'word', text })) };
        words.push(HYPHEN_COMPOUND.test(word) ? { word, plan: part, parts } : { word, plan: part });
      }
    } else {
      kept.push(part);
    }
  });
  // One word is enough to relax when it has parts: the items holding them are its near misses.
  if (words.length < (words.some((w) => w.parts) ? 1 : 2)) return undefined;
  const any: TsPlan = { op: 'or', args: words.map(heldBy) };
  return { words, relaxed: kept.length === 0 ? any : { op: 'and', args: [any, ...kept] } };
}
