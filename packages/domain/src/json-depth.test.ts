import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import { checkJsonDepth, checkJsonSize, jsonDepth, MAX_JSON_CHARS, MAX_JSON_DEPTH } from './json-depth.js';

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

describe('checkJsonDepth: prototype keys and NUL characters', () => {
  const refusal = (value: unknown, field: string): unknown => {
    try {
      checkJsonDepth(value, field);
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it('refuses an own __proto__ key at any depth, naming the field', () => {
    expect(refusal(JSON.parse('{"__proto__":{"x":1},"k":1}'), 'context')).toMatchObject({ code: 'invalid_input', details: { field: 'context' } });
    expect(refusal(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'), 'context')).toMatchObject({ code: 'invalid_input', details: { field: 'context.a.0.b' } });
    expect(String((refusal(JSON.parse('{"__proto__":1}'), 'signals') as Error).message)).toMatch(/^signals: .*__proto__/);
    // A key merely named like a prototype member is data.
    expect(refusal({ constructor: 1, toString: 'x', hasOwnProperty: [] }, 'context')).toBeUndefined();
  });

  it('refuses a NUL character in a string or a key at any depth, naming the field', () => {
    expect(refusal('a\u0000b', 'title')).toMatchObject({ code: 'invalid_input', details: { field: 'title' } });
    expect(refusal({ a: ['x', { b: 'c\u0000' }] }, 'context')).toMatchObject({ details: { field: 'context.a.1.b' }, message: expect.stringMatching(/^context\.a\.1\.b: holds a NUL/) });
    expect(refusal({ code: `${'a'.repeat(40)}\u0000` }, 'context')).toMatchObject({ details: { field: 'context.code' } });
    // A long key is the caller's text: the path echoes at most 64 characters of it.
    expect(refusal({ ['k'.repeat(5_000)]: '\u0000' }, 'context')).toMatchObject({ details: { field: `context.${'k'.repeat(64)}…` } });
    expect(refusal({ 'k\u0000': 1 }, 'context')).toMatchObject({ details: { field: 'context' } });
    expect(refusal({ a: ['x\u0001', 'é'] }, 'context')).toBeUndefined();
  });

  it('refuses a number that is not finite (JSON.parse makes 1e400 Infinity, JSON.stringify makes it null), naming its place', () => {
    expect(refusal(JSON.parse('{"a":{"b":1e400}}'), 'context')).toMatchObject({
      code: 'invalid_input',
      details: { field: 'context.a.b' },
      message: expect.stringMatching(/^context\.a\.b: .*finite/),
    });
    expect(refusal({ l: [1, -Infinity] }, 'signals')).toMatchObject({ details: { field: 'signals.l.1' } });
    expect(refusal(Number.NaN, 'limit')).toMatchObject({ details: { field: 'limit' } });
    expect(refusal({ big: 1.7976931348623157e308, small: -5e-324, zero: -0 }, 'context')).toBeUndefined();
  });

  it('walks a 100,000-level value without touching the stack', () => {
    expect(refusal(nested(100_000), 'context')).toMatchObject({ message: 'context: nested deeper than 64 levels' });
  });
});

describe('checkJsonSize', () => {
  /** An object whose JSON text is exactly `chars` characters long. */
  const sized = (chars: number) => ({ s: 'x'.repeat(chars - '{"s":""}'.length) });

  it('accepts 1 MiB of JSON and refuses one character more, naming the field and the limit', () => {
    expect(MAX_JSON_CHARS).toBe(1024 * 1024);
    expect(() => checkJsonSize(sized(MAX_JSON_CHARS), 'context')).not.toThrow();
    let error: unknown;
    try {
      checkJsonSize(sized(MAX_JSON_CHARS + 1), 'decisions[2].context');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'decisions[2].context', limit: MAX_JSON_CHARS } });
    expect((error as Error).message).toBe('decisions[2].context: is 1,048,577 characters as JSON; at most 1 MiB (1,048,576 characters) is stored');
  });
});
