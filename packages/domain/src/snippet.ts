import { stem } from 'porter2';

/**
 * The marks markSnippet puts around each matched word of a search snippet. Control characters, stripped from the
 * body before it is read, so a body's own asterisks can never pass for
 * a match (with `**` as the marks, a body's `**bold**` word read exactly like a matched one).
 */
export const MATCH_START = '\u0002';
export const MATCH_STOP = '\u0003';

/** A backslash is doubled only where it would otherwise escape what follows it. */
const ESCAPABLE = new Set(['\\', '*', MATCH_START, MATCH_STOP]);

/**
 * A snippet as svc_item_search answers it, from the store's marked one: markdown where `**word**` marks a match,
 * every asterisk of the body is `\*`, and a backslash of the body before a backslash, an asterisk or a mark is
 * `\\`. Everything else is as the body wrote it, so a snippet without asterisks reads as before.
 */
export function snippetMarkdown(marked: string): string {
  let out = '';
  for (let i = 0; i < marked.length; i++) {
    const c = marked[i] as string;
    if (c === MATCH_START || c === MATCH_STOP) out += '**';
    else if (c === '*') out += '\\*';
    else if (c === '\\' && ESCAPABLE.has(marked[i + 1] ?? '')) out += '\\\\';
    else out += c;
  }
  return out;
}

export interface SnippetPart {
  text: string;
  match: boolean;
}

/**
 * A snippet of svc_item_search read back: its text, with the runs `**…**` marked as matches and the escapes
 * `\*` and `\\` undone. A `**` left open at the end is text.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  const push = (text: string, match: boolean) => {
    const last = parts[parts.length - 1];
    if (text === '') return;
    if (!match && last && !last.match) last.text += text;
    else parts.push({ text, match });
  };
  let run = '';
  let inMatch = false;
  for (let i = 0; i < snippet.length; i++) {
    const c = snippet[i] as string;
    const next = snippet[i + 1];
    if (c === '\\' && (next === '\\' || next === '*')) {
      run += next;
      i++;
    } else if (c === '*' && next === '*') {
      push(run, inMatch);
      run = '';
      inMatch = !inMatch;
      i++;
    } else {
      run += c;
    }
  }
  push(inMatch ? `**${run}` : run, false);
  return parts;
}

/** How much of a body a snippet is taken from, its length in words, and its length when nothing in it matches. */
export const SNIPPET_SOURCE_CHARS = 4_000;
const SNIPPET_WORDS = 30;
const SNIPPET_WORDS_UNMATCHED = 12;

const NOT_ALNUM_EDGES = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
const PIECES = /[\p{L}\p{N}][\p{L}\p{N}._-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;
const SUBWORDS = /[\p{L}\p{N}]+/gu;
/** A word of letters and digits only: it has no parts to match apart from its whole. */
const PLAIN = /^[\p{L}\p{N}]+$/u;
const STEMS = new Map<string, string>();
const STEMS_KEPT = 50_000;

/**
 * A word's lexeme as PostgreSQL's `english` configuration makes it, for the words a snippet marks: a word with a
 * digit is kept lowercased (the `simple` dictionary), any other stemmed by Porter2 (Snowball `english`, which
 * `english_stem` runs). Stop words come out as themselves and never equal a query's lexeme (the query has none).
 */
function lexeme(word: string): string {
  const lower = word.toLowerCase();
  let out = STEMS.get(lower);
  if (out === undefined) {
    out = /\d/.test(lower) || !/^[\p{L}'-]+$/u.test(lower) ? lower : stem(lower);
    // Words repeat across bodies and calls: kept for the process, forgotten whole past a bound.
    if (STEMS.size >= STEMS_KEPT) STEMS.clear();
    STEMS.set(lower, out);
  }
  return out;
}

interface Word {
  start: number;
  end: number;
  /** Its matched spans, [from, to) in the text, and the lexeme each matched. */
  marks: [number, number][];
  terms: string[];
}

/** The lexeme `piece` matches whole (as written, lowercased, or stemmed), if the query holds it. */
function wholeMatch(piece: string, lexemes: ReadonlySet<string>): string | undefined {
  const lower = piece.toLowerCase();
  if (lexemes.has(lower)) return lower;
  const key = lexeme(piece);
  return lexemes.has(key) ? key : undefined;
}

function addMark(word: Word, from: number, length: number, term: string): void {
  word.marks.push([from, from + length]);
  word.terms.push(term);
}

/** Mark `run` (the text of `word`): whole when the query holds it whole, else its identifier pieces or their parts. */
function markWord(text: string, run: string, word: Word, lexemes: ReadonlySet<string>): void {
  if (PLAIN.test(run)) {
    const key = lexeme(run);
    if (lexemes.has(key)) addMark(word, word.start, run.length, key);
    return;
  }
  const core = run.replace(NOT_ALNUM_EDGES, '');
  if (core === '') return;
  const at = word.start + run.indexOf(core);
  // A path is indexed with its leading slash (`/v1/orders`).
  const rooted = at > word.start && text[at - 1] === '/' ? wholeMatch(`/${core}`, lexemes) : undefined;
  if (rooted !== undefined) {
    addMark(word, at - 1, core.length + 1, rooted);
    return;
  }
  const all = wholeMatch(core, lexemes);
  if (all !== undefined) {
    addMark(word, at, core.length, all);
    return;
  }
  if (PLAIN.test(core)) return;
  for (const piece of core.matchAll(PIECES)) {
    const hit = piece[0] !== core ? wholeMatch(piece[0], lexemes) : undefined;
    if (hit !== undefined) {
      addMark(word, at + piece.index, piece[0].length, hit);
      continue;
    }
    for (const sub of piece[0].matchAll(SUBWORDS)) {
      const key = lexeme(sub[0]);
      if (lexemes.has(key)) addMark(word, at + piece.index + sub.index, sub[0].length, key);
    }
  }
}

/**
 * A search snippet made in the process, from the body and the query's lexemes (as the index analysed them,
 * docs/decisions/0044-search-snippets.md): the body's first SNIPPET_SOURCE_CHARS characters, marks stripped, cut to
 * the SNIPPET_WORDS words holding the most distinct matched lexemes (then the most matches; the first such), with
 * each matched word between MATCH_START and MATCH_STOP. A word matches whole (an identifier such as
 * `svc_item_search`, `LISTEN/NOTIFY`, `pg.Pool`, `v0.8.1`, or a hyphenated word) or by its parts (`notify`,
 * `item`), as the index holds both. Nothing matched: the first SNIPPET_WORDS_UNMATCHED words.
 */
export function markSnippet(body: string, lexemes: ReadonlySet<string>): string {
  const text = body.slice(0, SNIPPET_SOURCE_CHARS).replaceAll(MATCH_START, '').replaceAll(MATCH_STOP, '');
  const words: Word[] = [];
  for (const run of text.matchAll(/\S+/g)) {
    const word: Word = { start: run.index, end: run.index + run[0].length, marks: [], terms: [] };
    words.push(word);
    if (lexemes.size > 0) markWord(text, run[0], word, lexemes);
  }
  if (words.length === 0) return '';
  const matched = words.flatMap((w, i) => (w.terms.length > 0 ? [i] : []));
  let from = 0;
  let to = Math.min(words.length, SNIPPET_WORDS_UNMATCHED);
  if (matched.length > 0) {
    // The window of SNIPPET_WORDS words from each matched word: most distinct lexemes, then most matches.
    let best = { first: matched[0] as number, last: matched[0] as number, distinct: 0, count: 0 };
    for (const [j, first] of matched.entries()) {
      const seen = new Set<string>();
      let count = 0;
      let last = first;
      for (let k = j; k < matched.length && (matched[k] as number) < first + SNIPPET_WORDS; k++) {
        last = matched[k] as number;
        for (const t of (words[last] as Word).terms) seen.add(t);
        count += 1;
      }
      if (seen.size > best.distinct || (seen.size === best.distinct && count > best.count)) best = { first, last, distinct: seen.size, count };
    }
    // Centred on the matched span, as far as the body allows.
    const spare = SNIPPET_WORDS - (best.last - best.first + 1);
    from = Math.max(0, best.first - Math.floor(spare / 2));
    to = Math.min(words.length, from + SNIPPET_WORDS);
    from = Math.max(0, to - SNIPPET_WORDS);
  }
  let out = '';
  let cursor = (words[from] as Word).start;
  for (let i = from; i < to; i++) {
    for (const [a, b] of (words[i] as Word).marks) {
      out += `${text.slice(cursor, a)}${MATCH_START}${text.slice(a, b)}${MATCH_STOP}`;
      cursor = b;
    }
  }
  return out + text.slice(cursor, (words[to - 1] as Word).end);
}
