import { describe, expect, it } from 'vitest';
import { shorten } from './graph.js';

describe('impact graph labels', () => {
  it('shortens by characters, never cutting an emoji in half', () => {
    const label = shorten(`${'G'.repeat(28)}😀😀😀`);
    // A lone surrogate is what a cut emoji leaves (rendered as U+FFFD).
    expect(label).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(label).toBe(`${'G'.repeat(28)}😀…`);
    expect(shorten('short 😀')).toBe('short 😀');
  });
});
