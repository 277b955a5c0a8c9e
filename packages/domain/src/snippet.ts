import { stem } from 'porter2';

/**
 * The marks markSnippet puts around each matched word of a search snippet. Control characters, stripped from the
 * body before it is read, so a body's own asterisks can never pass for
 * a match (with `**` as the marks, a body's `**bold**` word read exactly like a matched one).
 */
export const MATCH_START = '\u0002';
export const MATCH_STOP = '\u0003';

/** What snippetMarkdown rewrites: a mark, an asterisk, and a backslash before a backslash, an asterisk or a mark. */
const MARKDOWN_SPECIAL = new RegExp(`[${MATCH_START}${MATCH_STOP}*]|\\\\(?=[\\\\*${MATCH_START}${MATCH_STOP}])`, 'g');

/**
 * A snippet as svc_item_search answers it, from the store's marked one: markdown where `**word**` marks a match,
 * every asterisk of the body is `\*`, and a backslash of the body before a backslash, an asterisk or a mark is
 * `\\`. Everything else is as the body wrote it, so a snippet without asterisks reads as before. One native pass:
 * built a character at a time, it was a sixth of what a one-word search allocated.
 */
export function snippetMarkdown(marked: string): string {
  return marked.replace(MARKDOWN_SPECIAL, (c) => (c === MATCH_START || c === MATCH_STOP ? '**' : c === '*' ? '\\*' : '\\\\'));
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

/** How much of a body a snippet is taken from, its length in words and at most in characters, and its length when nothing in it matches. */
export const SNIPPET_SOURCE_CHARS = 4_000;
const SNIPPET_WORDS = 30;
const SNIPPET_MAX_CHARS = 320;
const SNIPPET_WORDS_UNMATCHED = 12;

const ALNUM = /[\p{L}\p{N}]/u;
const PIECES = /[\p{L}\p{N}][\p{L}\p{N}._-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;
/** A piece's parts: an identifier joined by `_` or `-` (which the index holds whole too), or a run of letters and digits. */
const PARTS = /[\p{L}\p{N}]+(?:[_-]+[\p{L}\p{N}]+)*/gu;
const SUBWORDS = /[\p{L}\p{N}]+/gu;
/** A word of letters and digits only: it has no parts to match apart from its whole. */
const PLAIN = /^[\p{L}\p{N}]+$/u;
/**
 * PostgreSQL's `english` stop words (tsearch_data/english.stop): the index holds none of them, so none is marked even
 * where its stem is a query's lexeme (`own` for `owned`, `in` for `check-ins`).
 */
const STOP = new Set(
  'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now'.split(' '),
);
const STEMS = new Map<string, string>();
const STEMS_KEPT = 50_000;

/**
 * A word's lexeme as PostgreSQL's `english` configuration makes it, for the words a snippet marks: a word with a
 * digit is kept lowercased (the `simple` dictionary), any other stemmed by Porter2 (Snowball `english`, which
 * `english_stem` runs).
 */
function lexeme(word: string): string {
  const lower = word.toLowerCase();
  let out = STEMS.get(lower);
  if (out === undefined) {
    out = /\d/.test(lower) || !/^[\p{L}'-]+$/u.test(lower) ? lower : stem(lower);
    // Words repeat across bodies and calls: kept for the process (short ones only), forgotten whole past a bound.
    if (STEMS.size >= STEMS_KEPT) STEMS.clear();
    if (lower.length <= 64) STEMS.set(lower, out);
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

/** The lexeme `piece` matches whole (as written, lowercased, or stemmed), if the query holds it; a stop word never does. */
function wholeMatch(piece: string, lexemes: ReadonlySet<string>): string | undefined {
  const lower = piece.toLowerCase();
  if (STOP.has(lower)) return undefined;
  if (lexemes.has(lower)) return lower;
  const key = lexeme(piece);
  return lexemes.has(key) ? key : undefined;
}

/** Mark [from, from + length) as matching `term`; a mark that starts where the last one ended extends it (`**RFC-0042**`). */
function addMark(word: Word, from: number, length: number, term: string): void {
  const last = word.marks[word.marks.length - 1];
  if (last !== undefined && last[1] === from) last[1] = from + length;
  else word.marks.push([from, from + length]);
  word.terms.push(term);
}

/** The character (a whole code point) of `text` that ends at `end`. */
function charBefore(text: string, end: number): string {
  const low = text.charCodeAt(end - 1);
  return low >= 0xdc00 && low <= 0xdfff && end >= 2 ? text.slice(end - 2, end) : text.slice(end - 1, end);
}

/** `run` without what is not a letter or digit at either end, as [from, to): one pass, linear in the run. */
function trimEdges(run: string): [number, number] {
  let from = 0;
  while (from < run.length) {
    const c = String.fromCodePoint(run.codePointAt(from) as number);
    if (ALNUM.test(c)) break;
    from += c.length;
  }
  let to = run.length;
  while (to > from) {
    const c = charBefore(run, to);
    if (ALNUM.test(c)) break;
    to -= c.length;
  }
  return [from, to];
}

/** The `_`-separated pieces of an identifier (a piece may hold `-`), and the `/ . @ :`-separated pieces of a path or host. */
const UNDERSCORE_PIECES = /[^_]+/g;
const PATH_PIECES = /[^/.@:]+/g;

/**
 * The runs of two to four pieces of `joined` (split by `pieces`), shorter than it, that the query holds whole (the
 * index holds each such run: migration 0016, svc_joined_runs), longest first from the left, as [from, to, lexeme]. A
 * run from the first piece also tries to start at the very beginning, so that a leading separator counts
 * (`/v1/orders` in `/v1/orders/42`, which the index holds as its first part is empty), and a run after a `/` with it
 * (`/v1/orders` in `/api/v1/orders/42`).
 */
function joinedRuns(joined: string, pieces: RegExp, lexemes: ReadonlySet<string>): [number, number, string][] {
  const found = [...joined.matchAll(pieces)];
  const count = found.length + ((found[0]?.index ?? 0) > 0 ? 1 : 0);
  const out: [number, number, string][] = [];
  for (let i = 0; i < found.length; ) {
    let took = 1;
    for (let len = Math.min(4, count - 1, found.length - i); len >= 2 && took === 1; len--) {
      const last = found[i + len - 1] as RegExpExecArray;
      const to = last.index + last[0].length;
      const at = (found[i] as RegExpExecArray).index;
      // From the very beginning (a leading separator), or from the `/` before the piece (`/v1/orders` in `/api/v1/orders/42`).
      const starts = i === 0 && at > 0 ? [0, at] : i > 0 && joined[at - 1] === '/' ? [at - 1, at] : [at];
      for (const from of starts) {
        if (from === 0 && to === joined.length) continue;
        const key = wholeMatch(joined.slice(from, to), lexemes);
        if (key !== undefined) {
          out.push([from, to, key]);
          took = len;
          break;
        }
      }
    }
    i += took;
  }
  return out;
}

/** Mark `run` (the text of `word`): whole when the query holds it whole, else its identifier pieces, their parts, or their words. */
function markWord(text: string, run: string, word: Word, lexemes: ReadonlySet<string>): void {
  if (PLAIN.test(run)) {
    const key = wholeMatch(run, lexemes);
    if (key !== undefined) addMark(word, word.start, run.length, key);
    return;
  }
  const [from, to] = trimEdges(run);
  if (from >= to) return;
  const core = run.slice(from, to);
  const at = word.start + from;
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
  // Runs of a path's or host's pieces (`search.ts`, `prod.example.com`, `/v1/orders`), from the slash before it, and
  // versions by either spelling (`v0.8.1` for 0.8.1, `v4.4.4` in `v4.4.4-beta`), read in the whole run as the index
  // reads them (`.v1.2.3` holds none).
  const lead = at > word.start && text[at - 1] === '/' ? 1 : 0;
  const paths = /[/.@:]/.test(core) ? joinedRuns(text.slice(at - lead, at + core.length), PATH_PIECES, lexemes) : [];
  for (const [a, b, key] of versionSpellings(run, lexemes)) {
    const [x, y] = [a - from + lead, b - from + lead];
    // A path's run may be the version itself (`/v1.2.3/x`): marked once.
    if (!paths.some(([p, q]) => x < q && y > p)) paths.push([x, y, key]);
  }
  for (const [a, b, key] of paths) addMark(word, at - lead + a, b - a, key);
  for (const piece of core.matchAll(PIECES)) {
    if (paths.some(([a, b]) => piece.index + lead < b && piece.index + piece[0].length + lead > a)) continue;
    const hit = piece[0] !== core ? wholeMatch(piece[0], lexemes) : undefined;
    if (hit !== undefined) {
      addMark(word, at + piece.index, piece[0].length, hit);
      continue;
    }
    // The piece's marks, [from, to) in the piece, put in order at its end: a joined decimal spans two parts.
    const marks: [number, number, string][] = [...joinedDecimals(piece[0], lexemes)];
    const inMark = (from: number) => marks.some(([a, b]) => from >= a && from < b);
    for (const part of piece[0].matchAll(PARTS)) {
      if (inMark(part.index)) continue;
      const joined = part[0] !== piece[0] && /[_-]/.test(part[0]) ? wholeMatch(part[0], lexemes) : undefined;
      if (joined !== undefined) {
        marks.push([part.index, part.index + part[0].length, joined]);
        continue;
      }
      const runs = part[0].includes('_') ? joinedRuns(part[0], UNDERSCORE_PIECES, lexemes) : [];
      for (const [from, to, key] of runs) marks.push([part.index + from, part.index + to, key]);
      for (const sub of part[0].matchAll(SUBWORDS)) {
        const from = part.index + sub.index;
        if (runs.some(([a, b]) => sub.index >= a && sub.index < b) || inMark(from)) continue;
        const key = wholeMatch(sub[0], lexemes);
        if (key !== undefined) marks.push([from, from + sub[0].length, key]);
        else if (sub.index > 0 && part[0][sub.index - 1] === '-' && /^\d/.test(sub[0])) {
          // The parser reads a number after a word and a hyphen as signed (`RFC-0042`: rfc, -0042).
          const signed = wholeMatch(`-${sub[0]}`, lexemes);
          if (signed !== undefined) marks.push([from - 1, from + sub[0].length, signed]);
        }
      }
    }
    for (const [from, to, key] of marks.sort((a, b) => a[0] - b[0])) addMark(word, at + piece.index + from, to - from, key);
  }
  if (paths.length > 0) {
    // The path runs were marked first: the word's marks in order again, touching ones merged.
    const sorted = word.marks.sort((a, b) => a[0] - b[0]);
    word.marks = sorted.reduce<[number, number][]>((out, m) => {
      const last = out[out.length - 1];
      if (last !== undefined && last[1] === m[0]) last[1] = m[1];
      else out.push(m);
      return out;
    }, []);
  }
}

/**
 * A version as the index holds it (migration 0018): by both spellings, with its `v` and without (a bare one with a
 * `v` only of three parts or more). It starts a token and ends it, as svc_tsvector_pieces reads it in a run without
 * spaces; a letter or digit is one of PostgreSQL's `[[:alnum:]]` (decimal digits: `²` or `½` is none).
 */
const VERSION = /(?<![\p{L}\p{Nd}.])([vV]?)(\d+(?:\.\d+)+)(?!\.?[\p{L}\p{Nd}])/gu;

/** The versions of `run` (no spaces) the query holds by either spelling (`v0.8.1` for 0.8.1 or v0.8.1), as [from, to, lexeme]. */
function versionSpellings(run: string, lexemes: ReadonlySet<string>): [number, number, string][] {
  if (!/\d\.\d/.test(run)) return [];
  const out: [number, number, string][] = [];
  for (const m of run.matchAll(VERSION)) {
    const digits = m[2] as string;
    const prefixed = m[1] !== '' || /\.\d+\./.test(digits) ? `v${digits}` : undefined;
    const key = lexemes.has(digits) ? digits : prefixed !== undefined && lexemes.has(prefixed) ? prefixed : undefined;
    if (key !== undefined) out.push([m.index, m.index + m[0].length, key]);
  }
  return out;
}

/** A decimal joined to what precedes it by a hyphen (`node-20.1`, `v-1.5e3`): the parser reads it as a signed float. */
const JOINED_DECIMAL = /(?<=[\p{L}\p{N}])-(\d+(?:\.\d+)+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)(?![\p{L}\p{N}])/gu;

/** The joined decimals of `piece` the query holds, unsigned (`20.1`) or signed (`-20.1`), as [from, to, lexeme]. */
function joinedDecimals(piece: string, lexemes: ReadonlySet<string>): [number, number, string][] {
  if (!piece.includes('-')) return [];
  const out: [number, number, string][] = [];
  for (const m of piece.matchAll(JOINED_DECIMAL)) {
    const number = m[1] as string;
    const unsigned = wholeMatch(number, lexemes);
    if (unsigned !== undefined) out.push([m.index + 1, m.index + m[0].length, unsigned]);
    else {
      const signed = wholeMatch(`-${number}`, lexemes);
      if (signed !== undefined) out.push([m.index, m.index + m[0].length, signed]);
    }
  }
  return out;
}

/** A lexeme's first two code points (the whole of a shorter one). */
const head = (lexeme: string) => Array.from(lexeme).slice(0, 2).join('');

/**
 * The first two characters of each lexeme: a word can match a lexeme only if, lowercased, it holds them (a stem keeps
 * its word's first two letters: Snowball english changes endings, turns `y` to `i` only past a consonant that is not
 * the first letter, and of its exceptions only dying, lying and tying change one, to `i`; a part, run, signed number or
 * path is a piece of the word as written; a version is also held by its other spelling, `v0.8.1` by 0.8.1, which
 * begins with the characters after its `v`). Most words of a body hold none, and are passed over without being
 * analysed (one character was too weak a filter: every word with an `s` was analysed for `service`).
 */
function lexemeHeads(lexemes: ReadonlySet<string>): string[] {
  const heads = [...lexemes].map(head);
  for (const l of lexemes) {
    if (/^v\d/.test(l)) heads.push(head(l.slice(1)));
    // Snowball's exceptions dying → die, lying → lie, tying → tie: the word spells its second letter `y`.
    const [first = '', second] = Array.from(l);
    if (second === 'i') heads.push(`${first}y`);
  }
  return [...new Set(heads)].filter((h) => h !== '');
}

/**
 * Where in `text` a head starts, in order, from the text lowercased once (a word holds a head only where the text
 * does); undefined, and each word is lowercased alone, when lowercasing the whole could differ from lowercasing each
 * word: it changes the text's length (`İ`), or the text holds a capital sigma, whose lowercase (σ or final ς) depends
 * on the letters around it, read past an apostrophe, a dot or U+FEFF into the next word (a reviewer, 2026-11-27).
 */
function headsAt(text: string, heads: readonly string[]): number[] | undefined {
  if (text.includes('Σ')) return undefined;
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return undefined;
  const at: number[] = [];
  for (const h of heads) for (let k = lower.indexOf(h); k >= 0; k = lower.indexOf(h, k + 1)) at.push(k);
  return at.sort((a, b) => a - b);
}

/** Whether a UTF-16 code unit is one `\s` matches: ECMAScript's white space and line terminators. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** Where the next word of `text` starts at or after `at` (text.length if none). */
function nextWord(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/**
 * A search snippet made in the process, from the body and the query's lexemes (as the index analysed them,
 * docs/decisions/0044-search-snippets-in-process.md): the body's first SNIPPET_SOURCE_CHARS characters, marks
 * stripped, cut to the SNIPPET_WORDS words holding the most distinct matched lexemes (then the most matches; the first
 * such), at most SNIPPET_MAX_CHARS characters of them, with each matched word between MATCH_START and MATCH_STOP. A word matches whole (an identifier such as
 * `svc_item_search`, `LISTEN/NOTIFY`, `pg.Pool`, `v0.8.1`, or a hyphenated word) or by its parts (`notify`,
 * `item`), as the index holds both. Nothing matched: the first SNIPPET_WORDS_UNMATCHED words.
 */
export function markSnippet(body: string, lexemes: ReadonlySet<string>, within: Compounds = new Map()): string {
  // The first SNIPPET_SOURCE_CHARS characters, never half of a pair of surrogates.
  const cut = body.slice(0, isHighSurrogate(body.charCodeAt(SNIPPET_SOURCE_CHARS - 1)) ? SNIPPET_SOURCE_CHARS - 1 : SNIPPET_SOURCE_CHARS);
  const text = cut.replaceAll(MATCH_START, '').replaceAll(MATCH_STOP, '');
  // Every word's span; a Word only for the words matched (a body's hundreds of others allocate nothing more: a search
  // marks twenty bodies per call).
  const starts: number[] = [];
  const ends: number[] = [];
  const hits = new Map<number, Word>();
  let scratch: Word = { start: 0, end: 0, marks: [], terms: [] };
  const heads = lexemeHeads(lexemes);
  const found = headsAt(text, heads);
  let next = 0;
  // The words (runs of what `\S` matches) by their character codes: a word is cut out of the text only when it may
  // hold a lexeme. Read by `matchAll(/\S+/g)`, every word of twenty 4,000-character bodies was a match object and a
  // string, 60% of what a one-word search allocated; their collection was most of its slowest calls (2026-11-28).
  for (let at = nextWord(text, 0); at < text.length; at = nextWord(text, at)) {
    const start = at;
    while (at < text.length && !isSpace(text.charCodeAt(at))) at++;
    const i = starts.length;
    starts.push(start);
    ends.push(at);
    if (found === undefined) {
      if (heads.length === 0 || !heads.some((h) => text.slice(start, at).toLowerCase().includes(h))) continue;
    } else {
      while (next < found.length && (found[next] as number) < start) next++;
      if (next === found.length || (found[next] as number) >= at) continue;
    }
    const run = text.slice(start, at);
    scratch.start = start;
    scratch.end = at;
    markWord(text, run, scratch, lexemes);
    const idle = within.size === 0 ? [] : unheld(scratch.terms, within);
    if (idle.length > 0) {
      // Parts of a compound asked for, in a word that does not hold it (`db` of `db-02` for `db-01`): marked again without them.
      const rest = new Set(lexemes);
      for (const lexeme of idle) rest.delete(lexeme);
      scratch = { start, end: at, marks: [], terms: [] };
      markWord(text, run, scratch, rest);
    }
    if (scratch.terms.length > 0) {
      hits.set(i, scratch);
      scratch = { start: 0, end: 0, marks: [], terms: [] };
    }
  }
  if (starts.length === 0) return '';
  const matched = [...hits.keys()];
  let from = 0;
  let to = Math.min(starts.length, SNIPPET_WORDS_UNMATCHED);
  if (matched.length > 0) {
    // The window of SNIPPET_WORDS words from each matched word: most distinct lexemes, then most matches.
    let best = { first: matched[0] as number, last: matched[0] as number, distinct: 0, count: 0 };
    for (const [j, first] of matched.entries()) {
      const seen = new Set<string>();
      let count = 0;
      let last = first;
      for (let k = j; k < matched.length && (matched[k] as number) < first + SNIPPET_WORDS; k++) {
        last = matched[k] as number;
        for (const t of (hits.get(last) as Word).terms) seen.add(t);
        count += 1;
      }
      if (seen.size > best.distinct || (seen.size === best.distinct && count > best.count)) best = { first, last, distinct: seen.size, count };
    }
    // Centred on the matched span, as far as the body allows.
    const spare = SNIPPET_WORDS - (best.last - best.first + 1);
    from = Math.max(0, best.first - Math.floor(spare / 2));
    to = Math.min(starts.length, from + SNIPPET_WORDS);
    from = Math.max(0, to - SNIPPET_WORDS);
  }
  let start = starts[from] as number;
  let end = ends[to - 1] as number;
  if (end - start > SNIPPET_MAX_CHARS) {
    // Words too long to show thirty of (JSON, a path, minified code): the characters around the window's first
    // match, cut between whole code points.
    const first = hits.get(matched.find((i) => i >= from && i < to) ?? -1)?.marks[0]?.[0] ?? start;
    const least = start;
    start = Math.max(least, first - Math.floor(SNIPPET_MAX_CHARS / 3));
    end = Math.min(end, start + SNIPPET_MAX_CHARS);
    start = Math.max(least, end - SNIPPET_MAX_CHARS);
    if (isLowSurrogate(text.charCodeAt(start))) start += 1;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  }
  let out = '';
  let cursor = start;
  for (let i = from; i < to; i++) {
    for (const [a, b] of hits.get(i)?.marks ?? []) {
      const [x, y] = [Math.max(a, start), Math.min(b, end)];
      if (x >= y) continue;
      out += `${text.slice(cursor, x)}${MATCH_START}${text.slice(x, y)}${MATCH_STOP}`;
      cursor = y;
    }
  }
  return out + text.slice(cursor, end);
}

/**
 * The query's lexemes that it holds only as parts of hyphenated compounds, each with the lexemes of every such
 * compound (`db-01`: db and -01, each with [db, -01]; `self-hosted`: self-host, self and host).
 */
export type Compounds = ReadonlyMap<string, readonly (readonly string[])[]>;

/** A lexeme joining two parts (`self-host`, `check-in`): matched, it stands for its compound whole. */
const JOINED = /[\p{L}\p{N}]-[\p{L}\p{N}]/u;

/**
 * Of the lexemes a body word matched (`terms`), those held only inside compounds the word does not hold: a compound
 * is held when the word matched every lexeme of it, or a joined one (`self-hosting` for `self-hosted`), so `db-01`
 * marks nothing in `db-02`.
 */
function unheld(terms: readonly string[], within: Compounds): string[] {
  const out: string[] = [];
  for (const term of terms) {
    const compounds = within.get(term);
    if (compounds === undefined) continue;
    const held = compounds.some((c) => c.every((l) => terms.includes(l)) || c.some((l) => JOINED.test(l) && terms.includes(l)));
    if (!held) out.push(term);
  }
  return out;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
