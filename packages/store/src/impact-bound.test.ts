import { describe, expect, it } from 'vitest';
import { BM25, bm25Tf, impactBound } from './search.js';

/** A posting's impact as svc_search_postings works it out (migration 0013), at the reference length `ref`, stored as a real. */
const impact = (tf: number, dl: number, ref: number) => Math.fround(tf / (tf + BM25.K1 * (0.25 + (0.75 * dl) / Math.max(ref, 1))));
/** What the item scores for the term at the project's average length, without idf and K1 + 1. */
const score = (tf: number, dl: number, avgdl: number) => bm25Tf(tf, dl, avgdl) / (BM25.K1 + 1);

function* postings(): Generator<[number, number]> {
  for (const tf of [1, 2, 3, 4, 5, 7, 10, 25, 100]) for (const dl of [1, 2, 5, 13, 40, 64, 200, 1_000, 20_000]) yield [tf, dl];
}

describe('impactBound', () => {
  it('bounds every score from its impact alone, whether the texts grew longer or shorter than the reference', () => {
    for (const ref of [1, 20, 48.7, 64, 300, 5_000]) {
      for (const avgdl of [1, 10, 48.7, 64, 100, 1_000]) {
        const bound = impactBound(ref, avgdl);
        for (const [tf, dl] of postings()) {
          const i = impact(tf, dl, ref);
          // Not even within the rounding of a real: the walk's tie tolerance is no part of the bound.
          expect(score(tf, dl, avgdl), `ref ${ref} avgdl ${avgdl} tf ${tf} dl ${dl}`).toBeLessThanOrEqual(bound(i));
        }
      }
    }
  });

  it('is reached, so it is as tight as an impact allows: by tf 1 when texts are shorter, and never above the impact', () => {
    // The 5,000-item bench project: reference 64, average 48.7. A single body occurrence scores the bound exactly.
    const bound = impactBound(64, 48.7);
    for (const dl of [5, 13, 40, 200]) expect(bound(impact(1, dl, 64))).toBeCloseTo(score(1, dl, 48.7), 6);
    // The bound before 2026-11-27 was the impact itself here: reading stopped only when the k-th score reached it.
    const i = impact(1, 50, 64);
    expect(bound(i)).toBeLessThan(0.91 * i);
    // Longer texts than the reference: the bound is approached as tf grows (the formula kept from before).
    const longer = impactBound(64, 128);
    expect(longer(impact(1_000_000, 10_000_000, 64))).toBeCloseTo(score(1_000_000, 10_000_000, 128), 6);
    expect(bound(0)).toBe(0);
  });
});
