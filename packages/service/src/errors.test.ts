import { SvcError } from '@svc/domain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromDatabase, fromZod } from './errors.js';

// Errors the way pg raises them; the cases a real server produces are also covered end to end (cli.test.ts,
// reliability). These are the ones no server on this machine produces on demand.
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('fromDatabase', () => {
  it("passes a pooler's refusal of the connection on with its reason, as unavailable", () => {
    const mapped = fromDatabase(pgError('08P01', 'unsupported startup parameter: statement_timeout'));
    expect(mapped).toEqual(new SvcError('unavailable', 'the database refused the connection: unsupported startup parameter: statement_timeout'));
  });

  it('keeps a broken connection a plain, retryable unavailable without the driver text', () => {
    for (const error of [pgError('08006', 'connection failure at 10.0.0.7'), pgError('57P01', 'terminating connection due to administrator command')]) {
      expect(fromDatabase(error)).toEqual(new SvcError('unavailable', 'the database is unavailable; try again shortly'));
    }
  });

  it("leaves a protocol error in one of svc's own statements unmapped (internal_error), not a refused connection", () => {
    for (const message of [
      'bind message has 4464 parameter formats but 0 parameters',
      'bind message supplies 3 parameters, but prepared statement "s1" requires 2',
      'insufficient data left in message',
    ]) {
      expect(fromDatabase(pgError('08P01', message)), message).toBeUndefined();
    }
  });

  it('tells a search vector over its limit (a text of too many distinct words) from other values too large to store', () => {
    const vector = fromDatabase(pgError('54000', 'string is too long for tsvector (1997408 bytes, max 1048575 bytes)'));
    expect(vector).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/distinct words than the search index can hold/) });
    expect(fromDatabase(pgError('54000', 'total size of jsonb array elements exceeds the maximum of 268435455 bytes'))).toMatchObject({ code: 'payload_too_large' });
  });
});

describe('fromZod', () => {
  it('says a missing field is required, naming it, instead of zod\'s "received undefined"', () => {
    const parsed = z.object({ project_id: z.string(), decisions: z.array(z.object({ title: z.string() })) }).safeParse({ decisions: [{}] });
    if (parsed.success) throw new Error('expected a failure');
    const error = fromZod(parsed.error);
    expect(error.message).toMatch(/^(project_id|decisions\[0\]\.title): is required \(string\)/);
    expect(error.message).not.toContain('received undefined');
    expect(error.details.field).toMatch(/^(project_id|decisions\[0\]\.title)$/);
  });

  it("says zod's bounds and choices in plain words, and keeps a schema's own message (a reviewer met 'Too small: expected string to have >=1 characters')", () => {
    const schema = z.object({
      id: z.string().min(1),
      name: z.string().max(3),
      ids: z.array(z.string()).max(2),
      n: z.number().min(1),
      limit: z.number().max(200, { error: 'at most 200; ask for fewer' }),
      type: z.enum(['depends', 'blocks']),
      signals: z.record(z.string(), z.unknown()).optional(),
      depth: z.number().int().optional(),
      email: z.email().optional(),
    });
    const message = (input: Record<string, unknown>) => {
      const parsed = schema.safeParse({ id: 'x', name: 'x', ids: [], n: 1, limit: 1, type: 'blocks', ...input });
      if (parsed.success) throw new Error('expected a failure');
      return fromZod(parsed.error).message;
    };
    expect(message({ id: '' })).toBe('id: must not be empty');
    expect(message({ name: 'long' })).toBe('name: must be at most 3 characters long');
    expect(message({ ids: ['a', 'b', 'c'] })).toBe('ids: must hold at most 2 values');
    expect(message({ n: 0 })).toBe('n: must be at least 1');
    expect(message({ limit: 201 })).toBe('limit: at most 200; ask for fewer');
    expect(message({ type: 'relates' })).toBe('type: must be one of: "depends", "blocks"');
    // A value of the wrong kind (an attacker sent limit: "5" and met "Invalid input: expected number, received string").
    expect(message({ limit: '5' })).toBe('limit: must be a number, not a string');
    expect(message({ ids: {} })).toBe('ids: must be an array, not a JSON object');
    expect(message({ id: null })).toBe('id: must be a string, not null');
    // A reviewer met "signals: must be a record, not an array".
    expect(message({ signals: [] })).toBe('signals: must be a JSON object, not an array');
    // An attacker met "depth: must be an int, not a number".
    expect(message({ depth: 2.5 })).toBe('depth: must be a whole number');
    expect(message({ depth: '2' })).toBe('depth: must be a number, not a string');
    expect(message({ email: 'bad' })).toBe('email: must be an email address (name@example.com)');
  });
});
