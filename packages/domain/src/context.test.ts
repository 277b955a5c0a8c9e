import { describe, expect, it } from 'vitest';
import { validateContext, validateTypeSchema } from './context.js';
import { SvcError } from './errors.js';
import { QA_COVERAGES, SYSTEM_ITEM_TYPES, SYSTEM_TYPE_SCHEMAS, type SystemItemType } from './item-types.js';

function refusal(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SvcError);
    const svc = error as SvcError;
    expect(svc.code).toBe('invalid_input');
    return svc;
  }
  throw new Error('expected an SvcError, nothing was thrown');
}

function check(type: SystemItemType, context: unknown): void {
  validateContext(type, SYSTEM_TYPE_SCHEMAS[type].schema, context);
}

const uuid = '3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7b8';

describe('validateContext: task', () => {
  it('accepts an empty context and every known property with its type', () => {
    expect(() => check('task', {})).not.toThrow();
    expect(() => check('task', { sort_order: 3, summary: 'ship it', blocked_reason: 'waiting on review' })).not.toThrow();
  });

  it('refuses an unknown property, naming that property', () => {
    const error = refusal(() => check('task', { sort_order: 1, priority: 'high' }));
    expect(error.message).toContain("'priority'");
    expect(error.message).toContain("item type 'task'");
    expect(error.details).toMatchObject({ field: 'context.priority', item_type: 'task' });
  });

  it('names the field passed by the caller as the root of the path', () => {
    const error = refusal(() =>
      validateContext('task', SYSTEM_TYPE_SCHEMAS.task.schema, { owner: 'x' }, 'items[2].context'),
    );
    expect(error.details.field).toBe('items[2].context.owner');
    expect(error.message.startsWith('items[2].context.owner: ')).toBe(true);
  });

  it.each([
    ['a fraction', 1.5],
    ['a numeric string', '3'],
    ['null', null],
  ])('refuses sort_order given as %s: it must be an integer', (_label, sortOrder) => {
    const error = refusal(() => check('task', { sort_order: sortOrder }));
    expect(error.details.field).toBe('context.sort_order');
    expect(error.message).toMatch(/integer/);
  });

  it('accepts a negative or zero integer sort_order', () => {
    expect(() => check('task', { sort_order: 0 })).not.toThrow();
    expect(() => check('task', { sort_order: -7 })).not.toThrow();
  });

  it('refuses a non-string summary', () => {
    expect(refusal(() => check('task', { summary: 42 })).details.field).toBe('context.summary');
  });
});

describe('validateContext: qa_check', () => {
  it.each(QA_COVERAGES.map((c) => [c]))('accepts coverage %s', (coverage) => {
    expect(() => check('qa_check', { coverage })).not.toThrow();
  });

  it('refuses a coverage outside the enum, naming coverage', () => {
    const error = refusal(() => check('qa_check', { coverage: 'partial' }));
    expect(error.details.field).toBe('context.coverage');
    expect(error.message).toMatch(/allowed values/);
  });

  it('refuses an unknown property, naming that property', () => {
    const error = refusal(() => check('qa_check', { coverage: 'automated', owner: 'qa-team' }));
    expect(error.message).toContain("'owner'");
    expect(error.details.field).toBe('context.owner');
  });

  it('accepts target ids that are unique UUIDs and refuses malformed or repeated ones', () => {
    expect(() => check('qa_check', { target_task_ids: [uuid], target_item_ids: [], note: 'n' })).not.toThrow();
    expect(refusal(() => check('qa_check', { target_task_ids: ['3f2a9c1e'] })).details.field).toBe(
      'context.target_task_ids.0',
    );
    expect(refusal(() => check('qa_check', { target_item_ids: [uuid, uuid] })).details.field).toBe(
      'context.target_item_ids',
    );
  });
});

describe('validateContext: permissive types', () => {
  const permissive = SYSTEM_ITEM_TYPES.filter((t) => t !== 'task' && t !== 'qa_check');

  it('covers exactly decision, knowledge, policy, document and research', () => {
    expect([...permissive].sort()).toEqual(['decision', 'document', 'knowledge', 'policy', 'research']);
  });

  it.each(permissive.map((t) => [t]))('%s accepts arbitrary properties of any type', (type) => {
    expect(() =>
      check(type, { priority: 'high', sort_order: 'not a number', coverage: 'partial', nested: { a: [1, null] } }),
    ).not.toThrow();
  });
});

describe('validateContext: shape', () => {
  it.each(
    SYSTEM_ITEM_TYPES.flatMap((type) =>
      (
        [
          ['an array', []],
          ['null', null],
          ['a string', '{}'],
          ['a number', 1],
          ['undefined', undefined],
        ] as const
      ).map(([label, value]) => [type, label, value] as const),
    ),
  )('%s refuses a context that is %s', (type, _label, value) => {
    const error = refusal(() => check(type, value));
    expect(error.details.field).toBe('context');
    expect(error.message).toMatch(/must be a JSON object/);
  });
});

describe('validateTypeSchema', () => {
  it.each([
    ['null', null],
    ['an array', [{ type: 'object' }]],
    ['a string', 'object'],
    ['a boolean schema', true],
  ])('refuses %s as not a JSON Schema object', (_label, schema) => {
    const error = refusal(() => validateTypeSchema(schema));
    expect(error.details.field).toBe('schema');
  });

  it("refuses a schema whose type is not 'object', naming schema.type", () => {
    const error = refusal(() => validateTypeSchema({ type: 'string' }, 'item_type.schema'));
    expect(error.details.field).toBe('item_type.schema.type');
    expect(error.message).toMatch(/'object'/);
    expect(refusal(() => validateTypeSchema({ type: ['object', 'null'] })).details.field).toBe('schema.type');
  });

  it('refuses a schema that refers to itself without descending into the value, which made every write of the type an internal error (an attacker, 2026-11-27)', () => {
    for (const [schema, field] of [
      [{ allOf: [{ $ref: '#' }] }, 'schema'],
      [{ type: 'object', $ref: '#' }, 'schema'],
      [{ $defs: { a: { $ref: '#/$defs/b' }, b: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' }, 'schema.$defs.a'],
      [{ type: 'object', properties: { a: { not: { $ref: '#/properties/a' } } } }, 'schema.properties.a'],
      [{ definitions: { x: { $ref: '#/definitions/x' } } }, 'schema.definitions.x'],
      // Found by a second look: an empty reference, and references by `$id` (absolute, relative, in a subschema).
      [{ type: 'object', allOf: [{ $ref: '' }] }, 'schema'],
      [{ $id: 'https://e.x/s', type: 'object', allOf: [{ $ref: 'https://e.x/s' }] }, 'schema'],
      [{ $id: 'https://e.x/dir/v', type: 'object', allOf: [{ $ref: 'v' }] }, 'schema'],
      [{ type: 'object', $defs: { a: { $id: 'https://e.x/w', allOf: [{ $ref: 'https://e.x/w' }] } }, properties: { p: { $ref: '#/$defs/a' } } }, 'schema.$defs.a'],
      [{ type: 'object', $defs: { a: { $anchor: 'here', not: { $ref: '#here' } } } }, 'schema.$defs.a'],
      [{ type: 'object', $defs: { 'a/b': { allOf: [{ $ref: '#/$defs/a~1b' }] } } }, 'schema.$defs.a~1b'],
    ] as const) {
      const error = refusal(() => validateTypeSchema(schema));
      expect(error.code, JSON.stringify(schema)).toBe('invalid_input');
      expect(error.message, JSON.stringify(schema)).toMatch(/refers to itself without descending into the value/);
      expect(error.details.field, JSON.stringify(schema)).toBe(field);
    }
    // Recursion through properties or items descends each time, and ends with the value: accepted.
    const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } };
    expect(validateTypeSchema(tree)).toBe(tree);
    const nodes = { $defs: { node: { anyOf: [{ type: 'string' }, { type: 'object', properties: { x: { $ref: '#/$defs/node' } } }] } }, type: 'object', properties: { root: { $ref: '#/$defs/node' } } };
    expect(validateTypeSchema(nodes)).toBe(nodes);
    const byId = { $id: 'https://e.x/t', type: 'object', properties: { c: { $ref: 'https://e.x/t' } } };
    expect(validateTypeSchema(byId)).toBe(byId);
    expect(() => validateContext('tree', tree, { name: 'a', children: [{ name: 'b', children: [] }] })).not.toThrow();
  });

  it('refuses a write against a looping schema stored before the check in words, not as an internal error', () => {
    const error = refusal(() => validateContext('loopy', { allOf: [{ $ref: '#' }] } as never, { a: 1 }));
    expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'item_type', item_type: 'loopy' } });
    expect(error.message).toBe("item type 'loopy': its schema cannot be used: it refers to itself without end");
  });

  it('refuses a schema that is not valid JSON Schema', () => {
    const error = refusal(() => validateTypeSchema({ type: 'object', properties: 5 }));
    expect(error.message).toMatch(/^schema: not a valid JSON Schema/);
    expect(error.details.field).toBe('schema');
  });

  it('refuses a schema with unknown keywords (strict mode)', () => {
    expect(refusal(() => validateTypeSchema({ type: 'object', propertees: {} })).message).toMatch(
      /not a valid JSON Schema/,
    );
  });

  it('accepts and returns a normal object schema, which then validates contexts', () => {
    const schema = {
      type: 'object',
      required: ['owner'],
      additionalProperties: false,
      properties: { owner: { type: 'string' }, weight: { type: 'number', minimum: 0 } },
    };
    expect(validateTypeSchema(schema)).toBe(schema);
    expect(() => validateContext('review', schema, { owner: 'ann', weight: 2 })).not.toThrow();
    expect(refusal(() => validateContext('review', schema, { owner: 'ann', weight: -1 })).details).toMatchObject({
      field: 'context.weight',
      item_type: 'review',
    });
  });

  it('accepts every system type schema', () => {
    for (const type of SYSTEM_ITEM_TYPES) {
      expect(() => validateTypeSchema(SYSTEM_TYPE_SCHEMAS[type].schema)).not.toThrow();
    }
  });
});

describe('schema patterns run on a linear-time engine', () => {
  const catastrophic = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } };

  it('validates a catastrophic input against ^(a+)+$ as a normal write (a backtracking engine would take hours)', () => {
    validateTypeSchema(catastrophic);
    expect(() => validateContext('ticket', catastrophic, { code: 'aaaa' })).not.toThrow();
    const error = refusal(() => validateContext('ticket', catastrophic, { code: `${'a'.repeat(40)}!` }));
    expect(error.details).toMatchObject({ field: 'context.code' });
  });

  it('runs patternProperties on the same engine, registering and validating', () => {
    const schema = {
      type: 'object',
      properties: { [`${'a'.repeat(40)}!`]: { type: 'string' } },
      patternProperties: { '^(a+)+$': { type: 'number' } },
    };
    expect(() => validateTypeSchema(schema)).not.toThrow();
    expect(() => validateContext('ticket', schema, { [`${'a'.repeat(40)}!`]: 'x', aaa: 1 })).not.toThrow();
    expect(refusal(() => validateContext('ticket', schema, { aaa: 'x' })).details).toMatchObject({ field: 'context.aaa' });
  });

  it('keeps JavaScript spellings JSON Schemas use: \\u escapes, named groups, classes', () => {
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(?<first>[\\u00c0-\\u017f\\w]+) \\d{2}$' } } };
    validateTypeSchema(schema);
    expect(() => validateContext('ticket', schema, { name: 'Zoë 42' })).not.toThrow();
    refusal(() => validateContext('ticket', schema, { name: 'Zoë 4' }));
  });

  it('refuses at registration a pattern the engine cannot run, naming where it is in the schema', () => {
    const backreference = refusal(() =>
      validateTypeSchema({ type: 'object', properties: { pair: { type: 'string', pattern: '^(a)\\1$' } } }),
    );
    expect(backreference.details.field).toBe('schema.properties.pair.pattern');
    expect(backreference.message).toMatch(/^schema\.properties\.pair\.pattern: the pattern '\^\(a\)\\1\$' cannot run on the linear-time engine \(RE2\)/);
    const lookahead = refusal(() => validateTypeSchema({ type: 'object', patternProperties: { '^(?=x)': {} } }));
    expect(lookahead.details.field).toBe('schema.patternProperties');
    expect(lookahead.message).toContain('lookaround');
  });

  it('reads a pattern inside const, enum, default and examples as data, not as a schema', () => {
    expect(() =>
      validateTypeSchema({ type: 'object', properties: { p: { const: { pattern: '(a)\\1' }, default: { pattern: '(?=x)' } } } }),
    ).not.toThrow();
  });

  it('refuses a schema nested deeper than 64 levels, as the input gate would', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) schema = { type: 'object', properties: { a: schema } };
    expect(refusal(() => validateTypeSchema(schema)).message).toBe('schema: nested deeper than 64 levels');
  });
});
