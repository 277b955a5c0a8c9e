import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandableTerms, MAX_CLAUSES, parseQuery, planQuery, type TsPlan } from './query.js';

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
});
