import { invalidInput } from './errors.js';

/**
 * The search query dialect: bare words are required (AND); "a quoted phrase" matches adjacent words; OR
 * between terms forms a disjunction group; a leading - negates a word or a phrase. Any input within the
 * limits is legal but an exclusion of no word (`-!!!`), which would be dropped: what does not fit the grammar is
 * read as plain words, and what holds no word at all parses to nothing. A quoted single word is matched literally like a phrase: quotes opt out of glossary expansion.
 *
 * The parser yields an AST; `planQuery` expands it with the glossary into a plan of words and phrases that
 * the store turns into a tsquery built only from bound parameters (plainto_tsquery / phraseto_tsquery), so no
 * input can produce a tsquery syntax error or reach SQL as code.
 */
type Term = { kind: 'word'; text: string } | { kind: 'phrase'; text: string };

type Clause =
  | { kind: 'required'; term: Term }
  | { kind: 'any'; terms: Term[] }
  | { kind: 'not'; term: Term };

export interface QueryAst {
  clauses: Clause[];
}

export type TsPlan =
  | { op: 'word'; text: string }
  | { op: 'phrase'; text: string }
  | { op: 'and'; args: TsPlan[] }
  | { op: 'or'; args: TsPlan[] }
  | { op: 'not'; arg: TsPlan };

type Token =
  // `opens`/`closes`: the word starts a parenthesised group (`(redis`) or ends one (`pool)`), see groupingParentheses.
  | { kind: 'term'; term: Term; negated: boolean; opens?: boolean; closes?: boolean }
  | { kind: 'or' }
  // `NOT` in capitals between words: an operator of other dialects, not of this one (refused by the parser).
  | { kind: 'not-operator' }
  // A dash before something that holds no word (`-!!!`, `-""`): an exclusion of nothing, refused by the parser.
  | { kind: 'wordless-exclusion'; text: string };

/**
 * Longest query text (bounded work for any input). A longer one is refused, never cut: a dropped `-term` would
 * widen the results without a word (decision 0017). Tool schemas use this same number.
 */
export const MAX_QUERY_LENGTH = 1000;
/** Most clauses (required terms, OR groups, negations) in a query; more are refused likewise. */
export const MAX_CLAUSES = 32;

// Characters that carry a word: letters, digits and marks in any script. Everything else separates words.
// A mark alone (a lone combining accent) carries none: it only modifies the letter before it.
const WORDY = /[\p{L}\p{N}]/u;

function hasWord(text: string): boolean {
  return WORDY.test(text);
}

const QUOTES = /[\u201C\u201D\u201E\u201F\u00AB\u00BB\u301D\u301E\u300C\u300D\u300E\u300F]/g;
// A run of dashes (`--`, `—`) reads as punctuation between words, like a lone dash, not as an exclusion.
const DASHES = /^[\p{Pd}\u2212]*$/u;
// What excludes the word after it: the hyphen-minus, and the dashes and minus signs editors and assistants put in its
// place (`–friday`, `−friday` read as a word of their own, answering the items that hold it: a reviewer, 2026-11-27).
const EXCLUDES = /^[-\u2010-\u2015\u2212\u2E3A\u2E3B\uFE58\uFE63]$/u;

function clean(text: string): string {
  // Drop lone surrogates and control characters (NUL included): they cannot be indexed and must not reach
  // the database as parameters. Matching them is the point here. Each separates words, except right after a dash:
  // there a space would leave the dash alone, and `cache -\udc00mysql` would require mysql instead of excluding it
  // (an attacker, 2026-11-27). Invisible format characters (BOM, zero-width space and joiner, soft hyphen) are
  // nothing at all.
  return text.replace(/\p{Cf}/gu, '').replace(INVALID, (_, offset: number, whole: string) => (EXCLUDES.test(whole[offset - 1] ?? '') ? '' : ' '));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what clean removes
const INVALID = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function tokenize(input: string): Token[] {
  // Compatibility-composed (NFKC), as glossary terms are folded: a decomposed `cafe\u0301` is the `café` the texts
  // hold, full-width `ｃａｃｈｅ` is `cache`, `ｔｈｅ` the stop word it is (an attacker, 2026-11-27).
  // Typographic double quotes (“…”, „…“, «…») quote a phrase as " does: editors and assistants put them in its
  // place, and read as letters they made `“eviction cache”` two loose words (an attacker, 2026-11-27).
  const text = clean(input).normalize('NFKC').replace(QUOTES, '"');
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    let negated = false;
    let start = i;
    if (EXCLUDES.test(ch) && i + 1 < text.length && !/\s/.test(text[i + 1] as string)) {
      negated = true;
      start = i + 1;
    }
    if (text[start] === '"') {
      const close = text.indexOf('"', start + 1);
      const end = close === -1 ? text.length : close;
      const phrase = text.slice(start + 1, end).trim();
      i = close === -1 ? text.length : close + 1;
      if (hasWord(phrase)) {
        // Quoted means literal, one word or several: the glossary never expands a phrase.
        const term: Term = { kind: 'phrase', text: phrase.split(/\s+/).join(' ') };
        tokens.push({ kind: 'term', term, negated });
      } else if (negated) {
        tokens.push({ kind: 'wordless-exclusion', text: text.slice(start - 1, i) });
      }
      continue;
    }
    let end = start;
    while (end < text.length && !/\s/.test(text[end] as string) && text[end] !== '"') end++;
    const word = text.slice(start, end);
    i = end === start ? start + 1 : end;
    // `or` in any case: the search's English configuration makes the word a stop word, found in no index, so `pool or
    // redis` used to require both words without a word said (a newcomer, 2026-11-27); PostgreSQL's websearch syntax
    // reads it so too (decision 0056).
    if (!negated && word.toLowerCase() === 'or') {
      tokens.push({ kind: 'or' });
    } else if (!negated && word === 'NOT') {
      tokens.push({ kind: 'not-operator' });
    } else if (hasWord(word)) {
      tokens.push({ kind: 'term', term: { kind: 'word', text: word }, negated, ...parenthesised(word) });
    } else if (negated && !DASHES.test(word)) {
      tokens.push({ kind: 'wordless-exclusion', text: `-${word}` });
    }
  }
  return tokens;
}

/**
 * Whether a word opens a parenthesised group (`(redis`: it starts with `(` and holds more `(` than `)`) or closes one
 * (`pool)`: it ends with `)` and holds more `)`), as other dialects group words. A call such as `fn(x)` or `(k8s)`
 * does neither.
 */
function parenthesised(word: string): { opens?: true; closes?: true } {
  const open = word.split('(').length - 1;
  const close = word.split(')').length - 1;
  return { ...(word.startsWith('(') && open > close ? { opens: true } : {}), ...(word.endsWith(')') && close > open ? { closes: true } : {}) };
}

/**
 * Whether parentheses group words where that would change the answer. The dialect has no grouping: OR joins the two
 * terms beside it and a dash excludes the word it touches, so `notify OR (redis pool)` was answered as
 * `(notify OR redis) pool`, and `-(redis pool)` as `-redis pool`, without a word (a newcomer, 2026-11-28). A group
 * changes the answer when it holds two clauses or more (terms not joined by OR) and an OR stands right outside it, or
 * a dash before it. Any other group reads as the dialect reads it (`(x OR y) z`, `(redis pool) timeout`), and its
 * parentheses stay punctuation, as before.
 */
function groupingParentheses(tokens: readonly Token[]): boolean {
  let open: number | undefined;
  for (const [j, t] of tokens.entries()) {
    if (t.kind !== 'term') continue;
    if (t.opens) open = j;
    else if (t.closes && open !== undefined) {
      const inside = tokens.slice(open, j + 1);
      const clauses = inside.filter((x, k) => x.kind === 'term' && inside[k - 1]?.kind !== 'or').length;
      const first = tokens[open] as Token;
      if (clauses >= 2 && (tokens[open - 1]?.kind === 'or' || tokens[j + 1]?.kind === 'or' || (first.kind === 'term' && first.negated))) return true;
      open = undefined;
    }
  }
  return false;
}

/**
 * Parse a query. Over MAX_QUERY_LENGTH characters or MAX_CLAUSES clauses it is refused with invalid_input
 * naming `field`, so no part of what the caller asked for is silently ignored.
 */
export function parseQuery(input: string, field = 'query'): QueryAst {
  if (input.length > MAX_QUERY_LENGTH) {
    throw invalidInput(field, `is ${input.length} characters long; a query may have at most ${MAX_QUERY_LENGTH}`, {
      limit: MAX_QUERY_LENGTH,
    });
  }
  const tokens = tokenize(input);
  // Operators of other dialects that this one would read as words, answering something else than asked
  // (decision 0058): refused, saying how to write it here.
  if (tokens.some((t) => t.kind === 'not-operator')) {
    throw invalidInput(
      field,
      'has NOT, which is not an operator here: exclude a word or "phrase" with a leading dash (`pool -redis`); to search the word itself, write it in lower case or quote it ("NOT NULL")',
    );
  }
  if (groupingParentheses(tokens)) {
    throw invalidInput(
      field,
      'groups words in parentheses, which this dialect does not: OR joins only the two terms beside it (`a b OR c` is a and (b or c)) and a dash excludes only the word it touches; write the query without them, several queries if need be',
    );
  }
  const clauses: Clause[] = [];
  let group: Term[] | undefined; // the open OR group, whose last term may still be joined
  let pendingOr = false;
  // An OR after an exclusion, refused if a term follows it (ignored at the end).
  let orAfterExclusion = false;
  for (const token of tokens) {
    if (token.kind === 'wordless-exclusion') {
      // Dropping it would answer as if it were not there, without a word (an attacker, 2026-11-27: `cache -!!!`).
      throw invalidInput(
        field,
        `excludes no word (${token.text}): a leading - excludes the word or "phrase" after it; write the word, or leave the dash out`,
      );
    }
    if (token.kind === 'not-operator') continue; // refused above
    if (token.kind === 'or') {
      // OR joins the previous positive term with the next one; at either end or twice in a row it has nothing to
      // join and is ignored. Between an exclusion and a term it is refused: read as `a -b`, `a OR -b` would
      // answer less than asked, without a word (a SPEC reader, 2026-11-27).
      const last = clauses.at(-1);
      if (last?.kind === 'not') orAfterExclusion = true;
      if (last && (last.kind === 'required' || last.kind === 'any')) pendingOr = true;
      continue;
    }
    if (orAfterExclusion) throw orBesideExclusion(field);
    if (token.negated) {
      if (pendingOr) throw orBesideExclusion(field);
      clauses.push({ kind: 'not', term: token.term });
      pendingOr = false;
      group = undefined;
      continue;
    }
    const last = clauses.at(-1);
    if (pendingOr && last && (last.kind === 'required' || last.kind === 'any')) {
      if (last.kind === 'required') {
        group = [last.term, token.term];
        clauses[clauses.length - 1] = { kind: 'any', terms: group };
      } else {
        last.terms.push(token.term);
      }
    } else {
      clauses.push({ kind: 'required', term: token.term });
      group = undefined;
    }
    pendingOr = false;
  }
  if (clauses.length > MAX_CLAUSES) {
    throw invalidInput(
      field,
      `has ${clauses.length} clauses (required words, OR groups, exclusions); a query may have at most ${MAX_CLAUSES}`,
      { limit: MAX_CLAUSES },
    );
  }
  return { clauses };
}

const orBesideExclusion = (field: string) =>
  invalidInput(field, 'has OR next to an exclusion (a OR -b): an exclusion cannot be an alternative; write `a -b` for a without b, or `a OR b`');

/** The key a glossary term is stored and looked up by: case and spacing folded. */
export function normalizeTerm(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

function leaf(term: Term): TsPlan {
  return term.kind === 'word' ? { op: 'word', text: asIndexed(term.text) } : { op: 'phrase', text: term.text };
}

/**
 * A relative path as the index always holds it: without its leading `./`, `../` or `~/`. PostgreSQL's parser reads
 * `./scripts/build.sh` after a space as `.` and `/scripts/build.sh`, and as one token only at the start of a text, so
 * the whole with its prefix is in some items' vectors and not others'; every item holding the path holds
 * `scripts/build.sh` (migration 0016's runs). A reviewer found `./scripts/build.sh`, `../lib/x.ts` and
 * `~/.config/svc.toml` missing the items that said them (2026-11-27).
 */
function asIndexed(word: string): string {
  const path = RELATIVE_PATH.exec(word);
  return path ? (path[1] as string) : word;
}
/**
 * A plain relative path: a prefix, then two parts or more of ASCII letters, digits, `_`, `.` and `-` joined by `/`.
 * Anything else keeps its prefix, as the parser may read what follows otherwise (`./test.py:12`, `./café`), and a
 * one-part path (`./out`) would leave a stop word (an attacker, 2026-11-27). A phrase is taken as typed.
 */
const RELATIVE_PATH = /^(?:\.\.?\/|~\/)+([\w.-]+(?:\/[\w.-]+)+)$/;

const EDGE_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/**
 * The glossary keys a query word is looked up by, best first: the word as the glossary folds terms
 * (normalizeTerm), then without leading and trailing punctuation, so `k8s,` or `(k8s)` finds the term `k8s`
 * while a term that keeps its punctuation (`c++`, `.net`) is still found as written.
 */
export function glossaryKeys(word: string): string[] {
  const folded = normalizeTerm(word);
  const bare = folded.replace(EDGE_PUNCTUATION, '');
  // A possessive (`postgres's`, `pg’s`) names the word: a newcomer's `postgres's` lost every synonym of postgres.
  // Not a contraction (`it's`, `that's`): `it's broken` expanded `IT` and required `information technology`.
  const owner = bare.replace(POSSESSIVE, '').replace(EDGE_PUNCTUATION, '');
  return [...new Set([folded, bare, CONTRACTED.has(owner) ? '' : owner])].filter((k, i) => i === 0 || k !== '');
}
const POSSESSIVE = /['’]s$/u;
/** Words whose `'s` is usually `is`, `has` or `us`, not a possessive. */
const CONTRACTED = new Set(['it', 'that', 'he', 'she', 'there', 'here', 'what', 'who', 'where', 'when', 'why', 'how', 'let', 'this', 'everyone', 'nobody', 'somebody', 'someone']);

/** Terms the glossary may expand: bare words (required or in an OR group) and multi-word glossary phrases are not. */
export function expandableTerms(ast: QueryAst): string[] {
  const out = new Set<string>();
  const add = (term: Term) => {
    if (term.kind === 'word') for (const key of glossaryKeys(term.text)) out.add(key);
  };
  for (const clause of ast.clauses) {
    if (clause.kind === 'required') add(clause.term);
    if (clause.kind === 'any') for (const t of clause.terms) add(t);
  }
  return [...out];
}

/** Most glossary synonyms one word expands to (besides itself); a group's terms are taken in name order. */
export const MAX_SYNONYMS_PER_TERM = 16;
/** Most glossary synonyms one query expands to in all, so a query's size stays bounded whatever the glossary. */
export const MAX_EXPANSIONS = 64;
/**
 * How many of a word's group terms to read from the glossary: the word itself may be among them, and one more
 * than can be used tells that the group was cut.
 */
export const SYNONYMS_TO_READ = MAX_SYNONYMS_PER_TERM + 2;

export interface QueryPlan {
  /** undefined when the query holds no word. */
  plan: TsPlan | undefined;
  /** True when a glossary group had more synonyms than MAX_SYNONYMS_PER_TERM, or the query more than MAX_EXPANSIONS. */
  expansion_cut: boolean;
}

/**
 * Expand required words and OR-group words to the OR of their glossary group's accepted terms (multi-word
 * terms as phrases), at most MAX_SYNONYMS_PER_TERM synonyms per word and MAX_EXPANSIONS per query (the
 * query's own words are always kept). Phrases and negations stay literal. `synonyms` maps a normalized term to the accepted
 * terms of its group(s), the term itself included.
 */
export function expandQuery(ast: QueryAst, synonyms: ReadonlyMap<string, readonly string[]> = new Map()): QueryPlan {
  let budget = MAX_EXPANSIONS;
  let cut = false;
  const expand = (term: Term): TsPlan => {
    if (term.kind !== 'word') return leaf(term);
    const key = glossaryKeys(term.text).find((k) => (synonyms.get(k)?.length ?? 0) > 0);
    if (key === undefined) return leaf(term);
    const group = synonyms.get(key) as readonly string[];
    const alternatives = new Map<string, TsPlan>([[key, leaf(term)]]);
    for (const synonym of group) {
      const key = normalizeTerm(synonym);
      if (alternatives.has(key) || !hasWord(synonym)) continue;
      if (alternatives.size > MAX_SYNONYMS_PER_TERM || budget === 0) {
        cut = true;
        break;
      }
      alternatives.set(key, synonym.includes(' ') ? { op: 'phrase', text: synonym } : { op: 'word', text: synonym });
      budget--;
    }
    const args = [...alternatives.values()];
    return args.length === 1 ? (args[0] as TsPlan) : { op: 'or', args };
  };
  const parts: TsPlan[] = [];
  for (const clause of ast.clauses) {
    switch (clause.kind) {
      case 'required':
        parts.push(expand(clause.term));
        break;
      case 'any': {
        const args = clause.terms.map(expand);
        parts.push(args.length === 1 ? (args[0] as TsPlan) : { op: 'or', args });
        break;
      }
      case 'not':
        parts.push({ op: 'not', arg: leaf(clause.term) });
        break;
    }
  }
  const plan = parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { op: 'and' as const, args: parts };
  return { plan, expansion_cut: cut };
}

/** The plan alone, for callers that do not report a cut expansion. */
export function planQuery(ast: QueryAst, synonyms: ReadonlyMap<string, readonly string[]> = new Map()): TsPlan | undefined {
  return expandQuery(ast, synonyms).plan;
}

/** Every positive leaf of a plan (the words and phrases whose terms score), wherever it sits outside a negation. */
export function positiveLeaves(plan: TsPlan, acc: string[] = []): string[] {
  if (plan.op === 'word' || plan.op === 'phrase') acc.push(plan.text);
  else if (plan.op === 'and' || plan.op === 'or') for (const a of plan.args) positiveLeaves(a, acc);
  return acc;
}
