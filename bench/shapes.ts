import type { Shape } from './measure.js';

/**
 * The query shapes, from the vocabulary's ranks: the most frequent words are the expensive cases (they match
 * nearly every item), so most shapes use them; a mid-frequency and a rare word show the ordinary case.
 */
export function shapes(w: readonly string[]): Shape[] {
  const at = (k: number) => w[k] as string;
  return [
    { name: 'one word, most frequent', query: at(0) },
    { name: 'one word, rank 100', query: at(100) },
    { name: 'one word, rank 2000 (rare)', query: at(2000) },
    { name: 'frequent word + rare word', query: `${at(0)} ${at(1500)}` },
    { name: 'three words, most frequent', query: `${at(0)} ${at(1)} ${at(2)}` },
    { name: 'phrase, two most frequent', query: `"${at(0)} ${at(1)}"` },
    { name: 'OR, two frequent words', query: `${at(1)} OR ${at(3)}` },
    { name: 'negation', query: `${at(0)} -${at(1)}` },
    { name: 'glossary-expanded (4 terms, one a phrase)', query: at(4) },
    { name: 'glossary-expanded OR of two groups', query: `${at(4)} OR ${at(9)}` },
  ];
}

/**
 * Harder than the shapes: phrases and exclusions over the most frequent words that leave few true
 * matches. The index must list every item holding the words, so it is cheap only if the recency window
 * fills the page; the last shape leaves too few recent matches for that and shows the fallback's cost.
 */
export function stressShapes(w: readonly string[]): Shape[] {
  const at = (k: number) => w[k] as string;
  const stress = [
    { name: 'stress: phrase of frequent words, rarely adjacent', query: `"${at(3)} ${at(2)}"` },
    { name: 'stress: exclusions leaving few matches', query: `${at(0)} -${at(1)} -${at(2)}` },
    {
      name: 'stress: exclusions leaving almost none recent (index fallback)',
      query: `${at(0)} -${at(1)} -${at(2)} -${at(3)} -${at(5)} -${at(10)}`,
    },
    // An attacker's shapes (2026-11-28): a filter to few items, many exclusions, many ORs (docs/decisions/0064, 0062).
    { name: 'stress: most frequent word, item_types research (2% of items, most of them expired)', query: at(0), itemTypes: ['research'] },
    {
      name: 'stress: three most frequent words, item_types research and task (3% of items at 100k)',
      query: `${at(0)} ${at(1)} ${at(2)}`,
      itemTypes: ['research', 'task'],
    },
    {
      name: 'stress: two frequent words, the next 28 excluded',
      query: [at(0), at(1), ...Array.from({ length: 28 }, (_, i) => `-${at(i + 2)}`)].join(' '),
    },
    // Ranks the glossary does not expand (glossary() below).
    { name: 'stress: OR of eight frequent words', query: [0, 1, 2, 3, 6, 12, 13, 14].map(at).join(' OR ') },
  ];
  return stress.map((shape) => ({ ...shape, stress: true }));
}

/** The measured project's glossary: the glossary-expanded shapes turn into ORs of frequent words and a phrase. */
export function glossary(w: readonly string[]): Record<string, string[]> {
  const at = (k: number) => w[k] as string;
  return {
    stack: [at(4), at(5), at(7), `${at(8)} ${at(10)}`],
    operations: [at(9), at(11), at(15)],
  };
}
