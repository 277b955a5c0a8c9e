import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import { type IdRef, isUuid, MIN_PREFIX_LENGTH, newSlugRefusal, parseIdRef, SHORT_ID_LENGTH, shortId } from './ids.js';

const HEX = '0123456789abcdef';

/** Any lowercase UUID-shaped string, not only RFC versions: every hex digit anywhere. */
const hexUuid = fc
  .array(fc.constantFrom(...HEX), { minLength: 32, maxLength: 32 })
  .map((d) => d.join(''))
  .map((h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);

function refusal(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SvcError);
    return error as SvcError;
  }
  throw new Error('expected an SvcError, nothing was thrown');
}

function asPrefix(ref: IdRef): { low: string; high: string } {
  if (ref.kind !== 'prefix') throw new Error(`expected a prefix reference, got ${ref.kind}`);
  return ref;
}

function within(id: string, range: { low: string; high: string }): boolean {
  return range.low <= id && id <= range.high;
}

describe('parseIdRef', () => {
  const id = '3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7b8';

  it('reads a full lowercase UUID as a uuid reference', () => {
    expect(parseIdRef(id)).toEqual({ kind: 'uuid', id, input: id, field: 'id' });
  });

  it('reads a full UUID in upper or mixed case as the same lowercase uuid reference', () => {
    expect(parseIdRef(id.toUpperCase())).toEqual({ kind: 'uuid', id, input: id, field: 'id' });
    expect(parseIdRef('3F2a9C1e-5B7d-4E2f-9A1b-C0d4E5f6A7b8')).toEqual({ kind: 'uuid', id, input: id, field: 'id' });
  });

  it('ignores surrounding whitespace', () => {
    expect(parseIdRef(`  ${id}\n`)).toEqual({ kind: 'uuid', id, input: id, field: 'id' });
    expect(asPrefix(parseIdRef(' 3f2a9c1e ')).low).toBe('3f2a9c1e-0000-0000-0000-000000000000');
  });

  it('turns an 8-character prefix into the inclusive range of UUIDs that start with it', () => {
    const ref = parseIdRef('3f2a9c1e');
    expect(ref).toEqual({
      kind: 'prefix',
      low: '3f2a9c1e-0000-0000-0000-000000000000',
      high: '3f2a9c1e-ffff-ffff-ffff-ffffffffffff',
      input: '3f2a9c1e',
      field: 'id',
    });
    const range = asPrefix(ref);
    expect(within(id, range)).toBe(true);
    expect(within('3f2a9c1d-ffff-ffff-ffff-ffffffffffff', range)).toBe(false);
    expect(within('3f2a9c1f-0000-0000-0000-000000000000', range)).toBe(false);
  });

  it('accepts a prefix of exactly the minimum length and an upper-case prefix', () => {
    expect(MIN_PREFIX_LENGTH).toBe(4);
    expect(asPrefix(parseIdRef('3f2a'))).toMatchObject({
      low: '3f2a0000-0000-0000-0000-000000000000',
      high: '3f2affff-ffff-ffff-ffff-ffffffffffff',
    });
    expect(asPrefix(parseIdRef('3F2A9C'))).toMatchObject({ low: '3f2a9c00-0000-0000-0000-000000000000' });
  });

  it('accepts prefixes with hyphens where a UUID has them, including a trailing one', () => {
    expect(asPrefix(parseIdRef('3f2a9c1e-'))).toMatchObject({
      low: '3f2a9c1e-0000-0000-0000-000000000000',
      high: '3f2a9c1e-ffff-ffff-ffff-ffffffffffff',
    });
    expect(asPrefix(parseIdRef('3f2a9c1e-5b'))).toMatchObject({
      low: '3f2a9c1e-5b00-0000-0000-000000000000',
      high: '3f2a9c1e-5bff-ffff-ffff-ffffffffffff',
    });
    expect(asPrefix(parseIdRef('3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7'))).toMatchObject({
      low: '3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a700',
      high: '3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7ff',
    });
  });

  it('places every UUID inside the range of each of its prefixes (4 to 36 characters)', () => {
    fc.assert(
      fc.property(hexUuid, fc.integer({ min: 4, max: 36 }), fc.boolean(), (uuid, length, upper) => {
        const prefix = uuid.slice(0, length);
        const ref = parseIdRef(upper ? prefix.toUpperCase() : prefix);
        if (length === 36) {
          expect(ref).toEqual({ kind: 'uuid', id: uuid, input: uuid, field: 'id' });
          return;
        }
        const range = asPrefix(ref);
        expect(within(uuid, range)).toBe(true);
        // The bounds are themselves UUIDs starting with the prefix, so they are the tightest bracket.
        expect(isUuid(range.low) && range.low.startsWith(prefix)).toBe(true);
        expect(isUuid(range.high) && range.high.startsWith(prefix)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every UUID with a different prefix outside the range', () => {
    fc.assert(
      fc.property(
        hexUuid,
        hexUuid,
        fc.integer({ min: 4, max: 35 }),
        fc.nat(),
        fc.integer({ min: 1, max: 15 }),
        (uuid, other, length, at, shift) => {
          const prefix = uuid.slice(0, length);
          // Make `other` differ from the prefix in one hex position inside it; the rest is random.
          const hexPositions = [...prefix].flatMap((ch, i) => (ch === '-' ? [] : [i]));
          const pos = hexPositions[at % hexPositions.length] as number;
          const digit = HEX[(HEX.indexOf(prefix[pos] as string) + shift) % 16] as string;
          const outsider = `${prefix.slice(0, pos)}${digit}${other.slice(pos + 1)}`;
          expect(isUuid(outsider)).toBe(true);
          expect(outsider.startsWith(prefix)).toBe(false);
          expect(within(outsider, asPrefix(parseIdRef(prefix)))).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['too short', 'abc', /too short/],
    ['whitespace only', '   ', /an id is required/],
    ['non-hex', '3f2g9c1e', /not a UUID or a prefix/],
    ['non-hex in a full-length id', '3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7bz', /not a UUID or a prefix/],
    ['a hyphen where a digit belongs', '3f2a-9c1e', /not a UUID or a prefix/],
    ['a hyphen missing where one belongs', '3f2a9c1e05b7d', /not a UUID or a prefix/],
    ['a doubled hyphen', '3f2a9c1e--5b7d', /not a UUID or a prefix/],
    ['a leading hyphen', '-3f2a9c1e', /not a UUID or a prefix/],
    ['longer than a UUID', `${'3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7b8'}0`, /not a UUID or a prefix/],
    ['an inner space', '3f2a 9c1e', /not a UUID or a prefix/],
    ['empty', '', /an id is required/],
  ])('refuses %s as invalid_input naming the field passed', (_label, raw, reason) => {
    const error = refusal(() => parseIdRef(raw, 'work_unit_id'));
    expect(error.code).toBe('invalid_input');
    expect(error.message.startsWith('work_unit_id: ')).toBe(true);
    expect(error.message).toMatch(reason);
    expect(error.details.field).toBe('work_unit_id');
  });

  it("names the field 'id' when no field is passed", () => {
    const error = refusal(() => parseIdRef('xyz'));
    expect(error.code).toBe('invalid_input');
    expect(error.message.startsWith('id: ')).toBe(true);
    expect(error.details.field).toBe('id');
  });

  it('refuses every string holding a character that is neither hex nor a hyphen', () => {
    fc.assert(
      fc.property(
        hexUuid,
        fc.integer({ min: 0, max: 35 }),
        fc.string({ minLength: 1, maxLength: 1 }).filter((c) => !/[0-9a-fA-F\-\s]/.test(c)),
        (uuid, pos, bad) => {
          const raw = `${uuid.slice(0, pos)}${bad}${uuid.slice(pos + 1)}`;
          expect(refusal(() => parseIdRef(raw, 'item_id')).code).toBe('invalid_input');
        },
      ),
    );
  });
});

describe('shortId', () => {
  it('shows the first eight characters of an id', () => {
    expect(SHORT_ID_LENGTH).toBe(8);
    expect(shortId('3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7b8')).toBe('3f2a9c1e');
  });

  it('gives a short id that parses back to a range holding the id', () => {
    fc.assert(
      fc.property(hexUuid, (uuid) => {
        expect(within(uuid, asPrefix(parseIdRef(shortId(uuid))))).toBe(true);
      }),
    );
  });
});

describe('newSlugRefusal', () => {
  it('refuses a slug that would hide a project by its short id, and keeps every other slug', () => {
    // Any project id's short id, or a longer prefix of it, or the whole id: refused, whatever the hex digits.
    fc.assert(
      fc.property(hexUuid, fc.integer({ min: SHORT_ID_LENGTH, max: 36 }), (uuid, n) => {
        const prefix = uuid.slice(0, n).replace(/-$/, '');
        expect(newSlugRefusal(prefix)).toMatch(/reads as a project id or id prefix \(8 or more hex digits\)/);
      }),
    );
    for (const kept of ['cafe', 'beef123', 'default', 'dead-beef', 'deadbeefx', '2024', 'g0000000', 'a1b2c3d4-e5f6-x']) {
      expect(newSlugRefusal(kept), kept).toBeUndefined();
    }
    expect(newSlugRefusal('Not A Slug')).toMatch(/^'Not A Slug' is not a valid slug/);
    expect(newSlugRefusal('')).toMatch(/is not a valid slug/);
  });
});
