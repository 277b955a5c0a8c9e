import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  expandableTerms,
  expandQuery,
  MAX_CLAUSES,
  MAX_EXPANSIONS,
  MAX_SYNONYMS_PER_TERM,
  parseQuery,
  planQuery,
  SYNONYMS_TO_READ,
  type TsPlan,
} from './query.js';

const word = (text: string) => ({ kind: 'word', text }) as const;
const phrase = (text: string) => ({ kind: 'phrase', text }) as const;

describe('parseQuery', () => {
  it('reads bare words as required terms', () => {
    expect(parseQuery('deploy release').clauses).toEqual([
      { kind: 'required', term: word('deploy') },
      { kind: 'required', term: word('release') },
    ]);
  });

  it('reads a quoted phrase as one phrase term, and a one-word quote as a word', () => {
    expect(parseQuery('"release train" "solo"').clauses).toEqual([
      { kind: 'required', term: phrase('release train') },
      { kind: 'required', term: word('solo') },
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

  it('ignores OR at either end, doubled, or next to a negation, and a lone dash', () => {
    expect(parseQuery('OR a OR OR b OR').clauses).toEqual([{ kind: 'any', terms: [word('a'), word('b')] }]);
    expect(parseQuery('a OR -b').clauses).toEqual([
      { kind: 'required', term: word('a') },
      { kind: 'not', term: word('b') },
    ]);
    expect(parseQuery('- a -').clauses).toEqual([{ kind: 'required', term: word('a') }]);
  });

  it('treats lowercase or as a word and an unbalanced quote as a phrase to the end', () => {
    expect(parseQuery('a or b').clauses).toHaveLength(3);
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

  it('never throws and stays bounded for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 1500 }), (input) => {
        const ast = parseQuery(input);
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
    const ast = parseQuery(group(200).join(' OR '));
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
