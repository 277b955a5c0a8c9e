import { describe, expect, it } from 'vitest';
import { REDACTED, redactContext, redactSourceUrl } from './redaction.js';

describe('redactContext', () => {
  it('masks every string at any depth, keeping keys, numbers, booleans, nulls and shape', () => {
    const context = JSON.parse('{"a":"s","n":1,"b":[true,null,"x",{"c":"y","__proto__":"z"}],"d":{}}') as Record<string, unknown>;
    const redacted = redactContext('knowledge', context);
    expect(JSON.stringify(redacted)).toBe(JSON.stringify(JSON.parse('{"a":"[redacted]","n":1,"b":[true,null,"[redacted]",{"c":"[redacted]","__proto__":"[redacted]"}],"d":{}}')));
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
    // Only the system type's fields are structure: a custom type's field of that name is text.
    expect(redactContext('ticket', { coverage: 'mixed' })).toEqual({ coverage: REDACTED });
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
