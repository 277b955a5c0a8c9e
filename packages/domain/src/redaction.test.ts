import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SYSTEM_ITEM_TYPES } from './item-types.js';
import { REDACTED, redactContext, redactSourceUrl } from './redaction.js';

describe('redactContext', () => {
  it("empties the context of every type without a strict schema: keys, numbers, booleans and nulls go with the strings", () => {
    const context = JSON.parse('{"a":"s","n":1,"b":[true,null,"x",{"c":"y","__proto__":"z"}],"d":{},"t0k3n":42}') as Record<string, unknown>;
    for (const type of ['knowledge', 'decision', 'policy', 'document', 'research', 'ticket', 'constructor', '__proto__']) {
      expect(redactContext(type, context), type).toEqual({});
    }
    expect(context.a).toBe('s');
  });

  it("keeps a QA check's coverage and targets and a task's sort order, masking their free text", () => {
    expect(redactContext('qa_check', { coverage: 'mixed', target_task_ids: ['t'], target_item_ids: ['i'], note: 'n' })).toEqual({
      coverage: 'mixed',
      target_task_ids: ['t'],
      target_item_ids: ['i'],
      note: REDACTED,
    });
    expect(redactContext('task', { sort_order: 3, summary: 's', blocked_reason: 'b' })).toEqual({ sort_order: 3, summary: REDACTED, blocked_reason: REDACTED });
    expect(redactContext('task', { sort_order: 3 })).toEqual({ sort_order: 3 });
    // Only the system type's fields are structure: a custom type's field of that name is the caller's.
    expect(redactContext('ticket', { coverage: 'mixed', sort_order: 3 })).toEqual({});
  });

  it('keeps no key or value of any context but the fields a strict system schema declares, free text masked', () => {
    const declared: Record<string, { kept: string[]; masked: string[] }> = {
      task: { kept: ['sort_order'], masked: ['summary', 'blocked_reason'] },
      qa_check: { kept: ['coverage', 'target_task_ids', 'target_item_ids'], masked: ['note'] },
    };
    const field = fc.constantFrom('sort_order', 'summary', 'blocked_reason', 'coverage', 'target_task_ids', 'target_item_ids', 'note');
    const context = fc.dictionary(fc.oneof(fc.string(), field), fc.jsonValue());
    fc.assert(
      fc.property(fc.constantFrom(...SYSTEM_ITEM_TYPES, 'ticket'), context, (type, given) => {
        const { kept = [], masked = [] } = declared[type] ?? {};
        const expected = Object.fromEntries(
          Object.keys(given)
            .filter((k) => kept.includes(k) || masked.includes(k))
            .map((k) => [k, kept.includes(k) ? given[k] : REDACTED]),
        );
        expect(redactContext(type, given)).toEqual(expected);
      }),
    );
  });
});

describe('redactSourceUrl', () => {
  it('keeps the origin only', () => {
    expect(redactSourceUrl('https://u:p@example.test:8443/a/b?token=x#f')).toBe('https://example.test:8443/');
    expect(redactSourceUrl('mailto:someone@example.test')).toBe(REDACTED);
    expect(redactSourceUrl('not a url')).toBe(REDACTED);
    expect(redactSourceUrl(null)).toBeNull();
  });
});
