import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import {
  expandableTerms,
  expandQuery,
  glossaryKeys,
  MAX_CLAUSES,
  MAX_EXPANSIONS,
  MAX_QUERY_LENGTH,
  MAX_SYNONYMS_PER_TERM,
  parseQuery,
  planQuery,
  SYNONYMS_TO_READ,
  type TsPlan,
} from './query.js';

const word = (text: string) => ({ kind: 'word', text }) as const;

function refusal(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
const phrase = (text: string) => ({ kind: 'phrase', text }) as const;

describe('parseQuery', () => {
  it('reads bare words as required terms', () => {
    expect(parseQuery('deploy release').clauses).toEqual([
      { kind: 'required', term: word('deploy') },
      { kind: 'required', term: word('release') },
    ]);
  });

  it('reads a quoted phrase as one phrase term, and a one-word quote as a phrase too (literal)', () => {
    expect(parseQuery('"release train" "solo"').clauses).toEqual([
      { kind: 'required', term: phrase('release train') },
      { kind: 'required', term: phrase('solo') },
    ]);
  });

  it('joins terms around OR into one group, however long the chain', () => {
    expect(parseQuery('cache OR queue OR "message bus" deploy').clauses).toEqual([
      { kind: 'any', terms: [word('cache'), word('queue'), phrase('message bus')] },
      { kind: 'required', term: word('deploy') },
    ]);
  });

  it('negates a word or a phrase with a leading dash', () => {
    expect(parseQuery('deploy -friday -"code freeze"').clauses).toEqual([
      { kind: 'required', term: word('deploy') },
      { kind: 'not', term: word('friday') },
      { kind: 'not', term: phrase('code freeze') },
    ]);
  });

  it('reads or in any case as OR: the word is a stop word, found in no index (a newcomer typed `pool or redis`)', () => {
    const either = [{ kind: 'any', terms: [word('pool'), word('redis')] }];
    for (const q of ['pool or redis', 'pool Or redis', 'pool oR redis']) expect(parseQuery(q).clauses, q).toEqual(either);
    expect(parseQuery('"pool or redis"').clauses).toEqual([{ kind: 'required', term: phrase('pool or redis') }]);
    expect(parseQuery('or pool or').clauses).toEqual([{ kind: 'required', term: word('pool') }]);
    expect(() => parseQuery('pool or -redis')).toThrow(/^query: has OR next to an exclusion/);
  });

  it('ignores OR at either end or doubled, and a lone dash', () => {
    expect(parseQuery('OR a OR OR b OR').clauses).toEqual([{ kind: 'any', terms: [word('a'), word('b')] }]);
    expect(parseQuery('- a -').clauses).toEqual([{ kind: 'required', term: word('a') }]);
  });

  it('refuses OR next to an exclusion, which it used to drop (a OR -b answered a -b), naming the field', () => {
    for (const q of ['a OR -b', '-a OR b', 'a -b OR c', 'a OR -"b c"', 'x a OR OR -b']) {
      expect(() => parseQuery(q), q).toThrow(/^query: has OR next to an exclusion/);
    }
    expect(() => parseQuery('a OR -b', 'text')).toThrow(/^text: /);
    // At either end it joins nothing and is ignored, as elsewhere.
    expect(parseQuery('-a OR').clauses).toEqual([{ kind: 'not', term: word('a') }]);
    expect(parseQuery('OR -a b').clauses).toEqual([
      { kind: 'not', term: word('a') },
      { kind: 'required', term: word('b') },
    ]);
    expect(parseQuery('a OR b -c').clauses).toEqual([
      { kind: 'any', terms: [word('a'), word('b')] },
      { kind: 'not', term: word('c') },
    ]);
  });

  it('refuses an exclusion of no word, which it used to drop (an attacker, 2026-11-27: `cache -!!!`), naming the field', () => {
    for (const [q, shown] of [
      ['cache -!!!', '-!!!'],
      ['cache -""', '-""'],
      ['-"!?" cache', '-"!?"'],
      ['cache -"', '-"'],
    ] as const) {
      const error = refusal(() => parseQuery(q));
      expect(error.details.field, q).toBe('query');
      expect(error.message, q).toBe(
        `query: excludes no word (${shown}): a leading - excludes the word or "phrase" after it; write the word, or leave the dash out`,
      );
    }
    expect(() => parseQuery('a -!!!', 'text')).toThrow(/^text: excludes no word/);
    // A lone combining accent is no word either (it was taken for one, and refused as a stop word).
    expect(() => parseQuery('cache -\u0301')).toThrow(/^query: excludes no word/);
    // A lone dash or a run of dashes between words is punctuation, as before.
    expect(parseQuery('cache -- redis — queue -').clauses).toEqual([
      { kind: 'required', term: word('cache') },
      { kind: 'required', term: word('redis') },
      { kind: 'required', term: word('queue') },
    ]);
  });

  it('refuses NOT in capitals, which it read as a stop word (a newcomer, 2026-11-28: `pool NOT redis` answered the redis item), naming the field', () => {
    for (const q of ['pool NOT redis', 'NOT redis pool', 'pool AND NOT redis', 'cache OR NOT redis']) {
      const error = refusal(() => parseQuery(q));
      expect(error.details.field, q).toBe('query');
      expect(error.message, q).toMatch(/^query: has NOT, which is not an operator here: exclude a word or "phrase" with a leading dash/);
    }
    expect(() => parseQuery('pool NOT redis', 'text')).toThrow(/^text: has NOT/);
    // Written otherwise it is the word, a stop word as before: in lower case, in a phrase, or part of a word.
    expect(parseQuery('pool not redis').clauses).toEqual([
      { kind: 'required', term: word('pool') },
      { kind: 'required', term: word('not') },
      { kind: 'required', term: word('redis') },
    ]);
    expect(parseQuery('"NOT NULL" column').clauses).toEqual([
      { kind: 'required', term: phrase('NOT NULL') },
      { kind: 'required', term: word('column') },
    ]);
    expect(parseQuery('NOTIFY Not').clauses).toEqual([
      { kind: 'required', term: word('NOTIFY') },
      { kind: 'required', term: word('Not') },
    ]);
  });

  it('refuses parentheses that would group words under OR or a dash, which it dropped (`notify OR (redis pool)` answered (notify OR redis) pool)', () => {
    for (const q of ['notify OR (redis pool)', 'cache -(redis pool)', '(a b) or c', 'x OR ((a b))', 'x OR (a b c) OR y']) {
      const error = refusal(() => parseQuery(q));
      expect(error.details.field, q).toBe('query');
      expect(error.message, q).toMatch(/^query: groups words in parentheses, which this dialect does not: OR joins only the two terms beside it/);
    }
    // A group read as the dialect reads it anyway is punctuation, as before: one OR chain, or words without OR or a dash.
    expect(parseQuery('(notify OR redis) pool').clauses).toEqual([
      { kind: 'any', terms: [word('(notify'), word('redis)')] },
      { kind: 'required', term: word('pool') },
    ]);
    expect(parseQuery('(redis pool) timeout').clauses).toEqual([
      { kind: 'required', term: word('(redis') },
      { kind: 'required', term: word('pool)') },
      { kind: 'required', term: word('timeout') },
    ]);
    // Calls and one parenthesised word are no groups.
    expect(parseQuery('fn(a) OR (k8s) OR g(x, y)').clauses).toEqual([
      { kind: 'any', terms: [word('fn(a)'), word('(k8s)'), word('g(x,')] },
      { kind: 'required', term: word('y)') },
    ]);
    expect(parseQuery('-(k8s) pool').clauses).toEqual([
      { kind: 'not', term: word('(k8s)') },
      { kind: 'required', term: word('pool') },
    ]);
  });

  it('reads a query compatibility-composed (NFKC), as the glossary folds its terms', () => {
    expect(parseQuery('cafe\u0301 ｃａｃｈｅ ＂ｒｅｌｅａｓｅ ｔｒａｉｎ＂ －ｆｒｉｄａｙ').clauses).toEqual([
      { kind: 'required', term: word('café') },
      { kind: 'required', term: word('cache') },
      { kind: 'required', term: phrase('release train') },
      { kind: 'not', term: word('friday') },
    ]);
  });

  it('reads a leading en dash, em dash or minus sign as the dash that excludes (a reviewer: `cache –friday` answered friday)', () => {
    for (const dash of ['\u2010', '\u2011', '\u2013', '\u2014', '\u2212', '\u2E3A', '\uFE63']) {
      expect(parseQuery(`cache ${dash}friday`).clauses, dash).toEqual([
        { kind: 'required', term: word('cache') },
        { kind: 'not', term: word('friday') },
      ]);
    }
    // Between words, alone or in a run, it is punctuation as before.
    expect(parseQuery('cache – friday −− x').clauses).toHaveLength(3);
  });

  it('reads typographic double quotes as quotes, and an exclusion through invisible or invalid characters as one (an attacker, 2026-11-27)', () => {
    for (const q of ['“eviction cache”', '„eviction cache“', '«eviction cache»', '＂eviction cache＂', '「eviction cache」']) {
      expect(parseQuery(q).clauses, q).toEqual([{ kind: 'required', term: phrase('eviction cache') }]);
    }
    for (const q of ['cache -\udc00mysql', 'cache -\ufeffmysql', 'cache -\u200bmysql', 'cache -\u0001mysql', 'cache \u2013\ud800mysql']) {
      expect(parseQuery(q).clauses, JSON.stringify(q)).toEqual([
        { kind: 'required', term: word('cache') },
        { kind: 'not', term: word('mysql') },
      ]);
    }
    // Elsewhere they still separate words; a soft hyphen inside a word is nothing.
    expect(parseQuery('a\udc00b my\u00adsql').clauses).toEqual([
      { kind: 'required', term: word('a') },
      { kind: 'required', term: word('b') },
      { kind: 'required', term: word('mysql') },
    ]);
  });

  it('reads an unbalanced quote as a phrase to the end', () => {
    expect(parseQuery('x "open ended').clauses).toEqual([
      { kind: 'required', term: word('x') },
      { kind: 'required', term: phrase('open ended') },
    ]);
  });

  it('drops tokens with no letters or digits and control characters', () => {
    expect(parseQuery('& | ! ( ) : * \' \\ ""').clauses).toEqual([]);
    expect(parseQuery('a\u0000b').clauses).toEqual([
      { kind: 'required', term: word('a') },
      { kind: 'required', term: word('b') },
    ]);
  });

  it('refuses a query over the length limit naming the field and the limit, instead of cutting it', () => {
    // The excluded word sits past the old cut-off: cutting would have dropped it and widened the results.
    const long = `${'deploy '.repeat(Math.ceil(MAX_QUERY_LENGTH / 7))}-friday`;
    const error = refusal(() => parseQuery(long));
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'query', limit: MAX_QUERY_LENGTH } });
    expect(error.message).toMatch(new RegExp(`^query: .*at most ${MAX_QUERY_LENGTH}`));
    expect(refusal(() => parseQuery('x'.repeat(MAX_QUERY_LENGTH + 1), 'keyword')).details.field).toBe('keyword');
    expect(parseQuery('x'.repeat(MAX_QUERY_LENGTH)).clauses).toHaveLength(1);
  });

  it('refuses a query over the clause limit naming the field and the limit', () => {
    const words = Array.from({ length: MAX_CLAUSES }, (_, i) => `w${i}`);
    expect(parseQuery(words.join(' ')).clauses).toHaveLength(MAX_CLAUSES);
    const error = refusal(() => parseQuery(`${words.join(' ')} -friday`));
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'query', limit: MAX_CLAUSES } });
    expect(error.message).toMatch(new RegExp(`^query: has ${MAX_CLAUSES + 1} clauses.*at most ${MAX_CLAUSES}`));
  });

  it('never cuts: any input is either parsed whole or refused as invalid_input on query', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 1500 }), (input) => {
        let ast: ReturnType<typeof parseQuery>;
        try {
          ast = parseQuery(input);
        } catch (error) {
          expect(error).toBeInstanceOf(SvcError);
          expect((error as SvcError).details.field).toBe('query');
          return;
        }
        expect(input.length).toBeLessThanOrEqual(MAX_QUERY_LENGTH);
        expect(ast.clauses.length).toBeLessThanOrEqual(MAX_CLAUSES);
        for (const clause of ast.clauses) {
          const terms = clause.kind === 'any' ? clause.terms : [clause.term];
          for (const t of terms) expect(t.text).toMatch(/[\p{L}\p{N}\p{M}]/u);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('planQuery', () => {
  const synonyms = new Map([
    ['k8s', ['k8s', 'kubernetes']],
    ['kubernetes', ['k8s', 'kubernetes']],
    ['db', ['db', 'relational database']],
  ]);

  it('expands required and OR-group words, multi-word synonyms as phrases', () => {
    expect(planQuery(parseQuery('k8s'), synonyms)).toEqual<TsPlan>({
      op: 'or',
      args: [
        { op: 'word', text: 'k8s' },
        { op: 'word', text: 'kubernetes' },
      ],
    });
    expect(planQuery(parseQuery('db OR cache'), synonyms)).toEqual<TsPlan>({
      op: 'or',
      args: [
        {
          op: 'or',
          args: [
            { op: 'word', text: 'db' },
            { op: 'phrase', text: 'relational database' },
          ],
        },
        { op: 'word', text: 'cache' },
      ],
    });
  });

  it('looks a word up in the glossary without its leading and trailing punctuation, a punctuated term as written first', () => {
    const wordsOr = (...texts: string[]): TsPlan => ({ op: 'or', args: texts.map((text) => ({ op: 'word', text })) });
    for (const q of ['k8s,', '(k8s)', 'K8S.', 'k8s;']) {
      expect(planQuery(parseQuery(q), synonyms), q).toEqual(wordsOr(q, 'kubernetes'));
    }
    expect(expandableTerms(parseQuery('k8s, (db)'))).toEqual(['k8s,', 'k8s', '(db)', 'db']);
    expect(glossaryKeys('C++')).toEqual(['c++', 'c']);
    const withPunctuated = new Map([['c++', ['c++', 'cpp']]]);
    expect(planQuery(parseQuery('C++'), withPunctuated)).toEqual(wordsOr('C++', 'cpp'));
    expect(glossaryKeys('...')).toEqual(['...']);
    // A possessive names its word (a newcomer, 2026-11-27); a word that merely ends in s stays as it is.
    expect(glossaryKeys("Postgres's")).toEqual(["postgres's", 'postgres']);
    expect(glossaryKeys('(pg’s)')).toEqual(['(pg’s)', 'pg’s', 'pg']);
    expect(glossaryKeys('redis')).toEqual(['redis']);
    expect(glossaryKeys("'s")).toEqual(["'s", 's']);
    // A contraction is not a possessive: `it's` is not `IT` (an attacker, 2026-11-27).
    expect(glossaryKeys("it's")).toEqual(["it's"]);
    expect(glossaryKeys("That’s")).toEqual(['that’s']);
    const withPostgres = new Map([['postgres', ['pg', 'postgres']]]);
    expect(planQuery(parseQuery("postgres's"), withPostgres)).toEqual(wordsOr("postgres's", 'pg'));
  });

  it('keeps a quoted single word literal: never expanded, never offered for expansion', () => {
    expect(planQuery(parseQuery('"k8s"'), synonyms)).toEqual<TsPlan>({ op: 'phrase', text: 'k8s' });
    expect(planQuery(parseQuery('"k8s" OR cache'), synonyms)).toEqual<TsPlan>({
      op: 'or',
      args: [
        { op: 'phrase', text: 'k8s' },
        { op: 'word', text: 'cache' },
      ],
    });
    expect(expandableTerms(parseQuery('"k8s" "Db" db'))).toEqual(['db']);
    // Generated: whatever word is quoted, the plan holds no synonym of it.
    fc.assert(
      fc.property(fc.constantFrom('k8s', 'K8S', 'db', 'DB'), fc.constantFrom('', ' ', '  '), (w, pad) => {
        const plan = planQuery(parseQuery(`"${pad}${w}${pad}"`), synonyms);
        expect(plan).toEqual({ op: 'phrase', text: w });
      }),
    );
  });

  it('keeps phrases and negations literal', () => {
    expect(planQuery(parseQuery('"k8s cluster" -k8s'), synonyms)).toEqual<TsPlan>({
      op: 'and',
      args: [
        { op: 'phrase', text: 'k8s cluster' },
        { op: 'not', arg: { op: 'word', text: 'k8s' } },
      ],
    });
    expect(expandableTerms(parseQuery('"k8s cluster" -k8s Db'))).toEqual(['db']);
  });

  it('looks for a relative path without its ./, ../ or ~/, as every vector holding it holds it', () => {
    expect(planQuery(parseQuery('./scripts/build.sh'))).toEqual<TsPlan>({ op: 'word', text: 'scripts/build.sh' });
    expect(planQuery(parseQuery('../../lib/x.ts -~/.cache'))).toEqual<TsPlan>({
      op: 'and',
      args: [
        { op: 'word', text: 'lib/x.ts' },
        { op: 'not', arg: { op: 'word', text: '~/.cache' } },
      ],
    });
    // Phrases, one-part paths, and paths the parser may read otherwise stay as typed (an attacker, 2026-11-27).
    for (const typed of ['./out', './test.py:12', './café', '~/a', './user@host', '.env', '~user']) {
      expect(planQuery(parseQuery(typed)), typed).toEqual<TsPlan>({ op: 'word', text: typed });
    }
    expect(planQuery(parseQuery('"./deploy/run.sh"'))).toEqual<TsPlan>({ op: 'phrase', text: './deploy/run.sh' });
    expect(planQuery(parseQuery('./node_modules/.bin/tsc'))).toEqual<TsPlan>({ op: 'word', text: 'node_modules/.bin/tsc' });
  });

  it('returns nothing for a query without terms', () => {
    expect(planQuery(parseQuery('  OR - "" '))).toBeUndefined();
  });

  const leaves = (plan: TsPlan | undefined): string[] => {
    if (!plan) return [];
    if (plan.op === 'word' || plan.op === 'phrase') return [plan.text];
    if (plan.op === 'not') return leaves(plan.arg);
    return plan.args.flatMap(leaves);
  };
  const group = (size: number) => Array.from({ length: size }, (_, i) => `term${String(i).padStart(3, '0')}`);

  it(`expands a word to at most ${MAX_SYNONYMS_PER_TERM} synonyms and says when its group held more`, () => {
    const full = new Map([['term000', group(MAX_SYNONYMS_PER_TERM + 1)]]);
    const exact = expandQuery(parseQuery('term000'), full);
    expect(leaves(exact.plan)).toEqual(group(MAX_SYNONYMS_PER_TERM + 1));
    expect(exact.expansion_cut).toBe(false);
    // What the store reads for a group of 500: the first SYNONYMS_TO_READ, the word itself not among them.
    const big = new Map([['term499', group(SYNONYMS_TO_READ)]]);
    const cut = expandQuery(parseQuery('term499'), big);
    expect(leaves(cut.plan)).toEqual(['term499', ...group(MAX_SYNONYMS_PER_TERM)]);
    expect(cut.expansion_cut).toBe(true);
  });

  it(`expands a whole query to at most ${MAX_EXPANSIONS} synonyms, keeping every word of the query`, () => {
    const ast = parseQuery(group(30).join(' OR '));
    const words = expandableTerms(ast);
    expect(words.length).toBeGreaterThan(MAX_EXPANSIONS / MAX_SYNONYMS_PER_TERM);
    const synonyms = new Map(words.map((w) => [w, [w, ...group(SYNONYMS_TO_READ).map((g) => `${w}x${g}`)]]));
    const { plan, expansion_cut } = expandQuery(ast, synonyms);
    const all = leaves(plan);
    expect(all.length).toBe(words.length + MAX_EXPANSIONS);
    for (const w of words) expect(all).toContain(w);
    expect(expansion_cut).toBe(true);
    expect(planQuery(ast, synonyms)).toEqual(plan);
  });
});
