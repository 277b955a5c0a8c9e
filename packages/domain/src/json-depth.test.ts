import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import { checkJsonDepth, jsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('jsonDepth', () => {
  it('counts objects and arrays, the value itself as the first level; scalars have none', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ a: [1, { b: 2 }], c: 'd' })).toBe(3);
    for (const levels of [1, 2, 10, MAX_JSON_DEPTH]) expect(jsonDepth(nested(levels))).toBe(levels);
  });

  it('walks 100,000 levels without touching the stack, and stops one level past the limit', () => {
    expect(jsonDepth(nested(100_000))).toBe(MAX_JSON_DEPTH + 1);
    expect(jsonDepth(nested(100_000), 100_000)).toBe(100_000);
  });
});

describe('checkJsonDepth', () => {
  it('accepts 64 levels and refuses 65 with invalid_input naming the field', () => {
    expect(() => checkJsonDepth(nested(MAX_JSON_DEPTH), 'context')).not.toThrow();
    let error: unknown;
    try {
      checkJsonDepth(nested(MAX_JSON_DEPTH + 1), 'context');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'invalid_input', message: 'context: nested deeper than 64 levels', details: { field: 'context' } });
  });
});
