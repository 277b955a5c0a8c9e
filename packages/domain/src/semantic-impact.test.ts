import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifySemanticImpact,
  isSemanticImpact,
  rewritesContent,
  SEMANTIC_IMPACTS,
  type SemanticImpact,
  type VersionFacts,
} from './semantic-impact.js';

const UUID_A = '3f2a9c1e-5b7d-4e2f-9a1b-c0d4e5f6a7b8';
const UUID_B = '9d8c7b6a-1234-4abc-8def-0123456789ab';

function facts(overrides: Partial<VersionFacts> = {}): VersionFacts {
  return {
    item_type: 'policy',
    title: 'Service limits',
    body: 'Requests time out after timeout 30s.',
    context: {},
    status: null,
    system_id: null,
    work_unit_id: null,
    source_url: null,
    ...overrides,
  };
}

function classify(before: Partial<VersionFacts>, after: Partial<VersionFacts>): SemanticImpact[] {
  return classifySemanticImpact(facts(before), facts(after));
}

describe('classifySemanticImpact', () => {
  it('has the seven categories, the two named in the spec among them', () => {
    expect(SEMANTIC_IMPACTS).toHaveLength(7);
    expect(new Set(SEMANTIC_IMPACTS).size).toBe(7);
    expect(isSemanticImpact('numeric_change')).toBe(true);
    expect(isSemanticImpact('rule_addition')).toBe(true);
    expect(isSemanticImpact('typo_fix')).toBe(false);
  });

  it('labels identical versions with nothing', () => {
    expect(classify({}, {})).toEqual([]);
    const rich = {
      status: 'in_progress',
      system_id: UUID_A,
      work_unit_id: UUID_B,
      context: { sort_order: 2, summary: 's' },
      source_url: 'https://example.com/a',
    };
    expect(classify(rich, { ...rich, context: { ...rich.context } })).toEqual([]);
  });

  it("labels 'timeout 30s' → 'timeout 45s' as exactly numeric_change (spec acceptance)", () => {
    expect(
      classify({ body: 'Requests time out after timeout 30s.' }, { body: 'Requests time out after timeout 45s.' }),
    ).toEqual(['numeric_change']);
  });

  it('labels a changed number in the title as numeric_change', () => {
    expect(classify({ title: 'Limit of 10 items' }, { title: 'Limit of 20 items' })).toEqual(['numeric_change']);
  });

  it('labels a changed number inside a rule sentence as numeric_change, not a rule added and removed', () => {
    expect(
      classify({ body: 'Retries must not exceed 3.' }, { body: 'Retries must not exceed 5.' }),
    ).toEqual(['numeric_change']);
  });

  it("labels an appended rule sentence 'All writes must be audited.' as rule_addition, not numeric_change", () => {
    const impacts = classify(
      { body: 'Requests time out after timeout 30s.' },
      { body: 'Requests time out after timeout 30s. All writes must be audited.' },
    );
    expect(impacts).toContain('rule_addition');
    expect(impacts).not.toContain('numeric_change');
    expect(impacts).toEqual(['rule_addition']);
  });

  it('labels a removed rule sentence as rule_removal', () => {
    expect(
      classify(
        { body: 'Requests time out after timeout 30s. All writes must be audited.' },
        { body: 'Requests time out after timeout 30s.' },
      ),
    ).toEqual(['rule_removal']);
  });

  it('labels a reworded sentence that states no rule as wording_change', () => {
    expect(
      classify(
        { body: 'The cache sits in front of the database. All writes must be audited.' },
        { body: 'A cache sits before the database. All writes must be audited.' },
      ),
    ).toEqual(['wording_change']);
  });

  it('labels a reworded rule sentence (same number of rules) as wording_change', () => {
    expect(
      classify({ body: 'All writes must be audited.' }, { body: 'Every write must be audited.' }),
    ).toEqual(['wording_change']);
  });

  it('labels a whitespace-only or sentence-order-only text change as wording_change', () => {
    expect(classify({ body: 'One fact. Another fact.' }, { body: 'One fact.   Another fact.' })).toEqual([
      'wording_change',
    ]);
    expect(classify({ body: 'One fact. Another fact.' }, { body: 'Another fact. One fact.' })).toEqual([
      'wording_change',
    ]);
  });

  it('keeps wording_change for a whitespace-only text change that comes with a status change', () => {
    expect(
      classify({ status: 'proposed', body: 'One fact. Another fact.' }, { status: 'done', body: 'One fact.\nAnother fact.' }),
    ).toEqual(['status_change', 'wording_change']);
  });

  it('labels a status change as status_change', () => {
    expect(classify({ status: 'proposed' }, { status: 'in_progress' })).toEqual(['status_change']);
    expect(classify({ status: null }, { status: 'pending' })).toEqual(['status_change']);
  });

  it.each([
    ['system_id', { system_id: null }, { system_id: UUID_A }],
    ['system_id', { system_id: UUID_A }, { system_id: UUID_B }],
    ['work_unit_id', { work_unit_id: UUID_A }, { work_unit_id: null }],
    ['item_type', { item_type: 'policy' }, { item_type: 'decision' }],
  ] as const)('labels a changed %s as scope_change', (_field, before, after) => {
    expect(classify(before, after)).toEqual(['scope_change']);
  });

  it.each(['target_task_ids', 'target_item_ids'])(
    'labels a changed QA %s as scope_change, not context_change',
    (key) => {
      const base = { item_type: 'qa_check', status: 'pending', context: { coverage: 'automated', [key]: [UUID_A] } };
      expect(classify(base, { ...base, context: { coverage: 'automated', [key]: [UUID_A, UUID_B] } })).toEqual([
        'scope_change',
      ]);
      expect(classify(base, { ...base, context: { coverage: 'automated' } })).toEqual(['scope_change']);
    },
  );

  it('labels any other changed, added or removed context property as context_change', () => {
    expect(classify({ context: { sort_order: 1 } }, { context: { sort_order: 2 } })).toEqual(['context_change']);
    expect(classify({ context: {} }, { context: { note: 'x' } })).toEqual(['context_change']);
    expect(classify({ context: { note: 'x' } }, { context: {} })).toEqual(['context_change']);
    expect(classify({ context: { nested: { a: [1, 2] } } }, { context: { nested: { a: [2, 1] } } })).toEqual([
      'context_change',
    ]);
  });

  it('labels a changed source_url as context_change, treating null and empty as the same', () => {
    expect(classify({ source_url: null }, { source_url: 'https://example.com/x' })).toEqual(['context_change']);
    expect(classify({ source_url: null }, { source_url: '' })).toEqual([]);
  });

  it('does not count a different key order in context as a change', () => {
    expect(
      classify({ context: { a: 1, b: { x: 1, y: 2 } } }, { context: { b: { y: 2, x: 1 }, a: 1 } }),
    ).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Generated edits. A base version is built from sentences of three kinds; an edit changes one dimension and
// carries the label it must produce. Non-text edits are independent of each other and of one text edit, so
// the labels of a combination are the union of the labels of its parts.

const RULES = [
  'All writes must be audited.',
  'Secrets must never be logged.',
  'Deploys shall not happen on Fridays.',
  'Backups are mandatory for every database.',
  'Migrations are required before release.',
];
const NEUTRALS = [
  'The cache sits in front of the database.',
  'Reports are generated nightly.',
  'The team prefers small pull requests.',
  'Logs go to the central collector.',
];
const NUMERICS = [
  'Requests time out after timeout 30s.',
  'Retries back off for 200 ms.',
  'The pool holds 10 connections.',
];
const NEW_RULE = 'Every export must be signed.';
const NEW_NEUTRAL = 'The dashboard shows weekly totals.';

interface Base {
  rules: string[];
  neutrals: string[];
  numerics: string[];
  status: string | null;
  context: Record<string, unknown>;
}

const baseArb: fc.Arbitrary<Base> = fc.record({
  rules: fc.shuffledSubarray(RULES, { minLength: 1 }),
  neutrals: fc.shuffledSubarray(NEUTRALS, { minLength: 1 }),
  numerics: fc.shuffledSubarray(NUMERICS, { minLength: 1 }),
  status: fc.constantFrom(null, 'proposed', 'pending'),
  context: fc.record({ note: fc.constantFrom('a', 'b'), target_task_ids: fc.constant([UUID_A]) }),
});

function bodyOf(sentences: string[], separator = ' '): string {
  return sentences.join(separator);
}

function baseFacts(b: Base): VersionFacts {
  return facts({
    status: b.status,
    context: b.context,
    body: bodyOf([...b.rules, ...b.neutrals, ...b.numerics]),
  });
}

type Edit = { name: string; label: SemanticImpact | null; apply: (v: VersionFacts, b: Base) => VersionFacts };

const FIELD_EDITS: Edit[] = [
  { name: 'status', label: 'status_change', apply: (v) => ({ ...v, status: v.status === 'done' ? 'blocked' : 'done' }) },
  { name: 'system_id', label: 'scope_change', apply: (v) => ({ ...v, system_id: UUID_B }) },
  { name: 'work_unit_id', label: 'scope_change', apply: (v) => ({ ...v, work_unit_id: UUID_A }) },
  { name: 'item_type', label: 'scope_change', apply: (v) => ({ ...v, item_type: 'knowledge' }) },
  {
    name: 'targets',
    label: 'scope_change',
    apply: (v) => ({ ...v, context: { ...v.context, target_task_ids: [UUID_B] } }),
  },
  {
    name: 'context note',
    label: 'context_change',
    apply: (v) => ({ ...v, context: { ...v.context, note: `${String(v.context.note)}!` } }),
  },
  { name: 'context key', label: 'context_change', apply: (v) => ({ ...v, context: { ...v.context, sort_order: 9 } }) },
  { name: 'source_url', label: 'context_change', apply: (v) => ({ ...v, source_url: 'https://example.com/s' }) },
  {
    name: 'context key order',
    label: null,
    apply: (v) => ({ ...v, context: Object.fromEntries(Object.entries(v.context).reverse()) }),
  },
];

function withBody(v: VersionFacts, sentences: string[], separator = ' '): VersionFacts {
  return { ...v, body: bodyOf(sentences, separator) };
}

const TEXT_EDITS: Edit[] = [
  { name: 'none', label: null, apply: (v) => v },
  {
    name: 'append rule',
    label: 'rule_addition',
    apply: (v, b) => withBody(v, [...b.rules, ...b.neutrals, ...b.numerics, NEW_RULE]),
  },
  {
    name: 'append neutral',
    label: 'wording_change',
    apply: (v, b) => withBody(v, [...b.rules, ...b.neutrals, NEW_NEUTRAL, ...b.numerics]),
  },
  {
    name: 'remove rule',
    label: 'rule_removal',
    apply: (v, b) => withBody(v, [...b.rules.slice(1), ...b.neutrals, ...b.numerics]),
  },
  {
    name: 'remove neutral',
    label: 'wording_change',
    apply: (v, b) => withBody(v, [...b.rules, ...b.neutrals.slice(1), ...b.numerics]),
  },
  {
    name: 'reword neutral',
    label: 'wording_change',
    apply: (v, b) => {
      const [first = '', ...rest] = b.neutrals;
      return withBody(v, [...b.rules, `Notably, ${first.charAt(0).toLowerCase()}${first.slice(1)}`, ...rest, ...b.numerics]);
    },
  },
  {
    name: 'change number',
    label: 'numeric_change',
    apply: (v, b) => {
      const [first = '', ...rest] = b.numerics;
      return withBody(v, [...b.rules, ...b.neutrals, first.replace(/\d+/, (n) => String(Number(n) + 7)), ...rest]);
    },
  },
  {
    name: 'whitespace',
    label: 'wording_change',
    apply: (v, b) => withBody(v, [...b.rules, ...b.neutrals, ...b.numerics], '\n\n'),
  },
  {
    name: 'reorder',
    label: 'wording_change',
    apply: (v, b) => withBody(v, [...b.numerics, ...b.neutrals, ...b.rules]),
  },
];

const editsArb = fc.record({
  fields: fc.subarray(FIELD_EDITS),
  text: fc.constantFrom(...TEXT_EDITS),
});

function applyAll(b: Base, fields: Edit[], text: Edit): VersionFacts {
  // The text edit first: it rebuilds the body from the base sentences.
  return fields.reduce((v, e) => e.apply(v, b), text.apply(baseFacts(b), b));
}

function canonical(labels: SemanticImpact[]): SemanticImpact[] {
  return SEMANTIC_IMPACTS.filter((l) => labels.includes(l));
}

describe('classifySemanticImpact on generated edits', () => {
  it('gives each single edit exactly its own label', () => {
    fc.assert(
      fc.property(baseArb, fc.constantFrom(...FIELD_EDITS, ...TEXT_EDITS), (b, edit) => {
        const before = baseFacts(b);
        const expected = edit.label === null ? [] : [edit.label];
        expect(classifySemanticImpact(before, edit.apply(before, b))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('labels a combination of independent edits with the union of their labels', () => {
    fc.assert(
      fc.property(baseArb, editsArb, (b, { fields, text }) => {
        const expected = canonical(
          [...fields, text].flatMap((e) => (e.label === null ? [] : [e.label])),
        );
        expect(classifySemanticImpact(baseFacts(b), applyAll(b, fields, text))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('always returns known labels in canonical SEMANTIC_IMPACTS order, without duplicates', () => {
    const text = fc.array(
      fc.oneof(fc.constantFrom(...RULES, ...NEUTRALS, ...NUMERICS, NEW_RULE, NEW_NEUTRAL), fc.string({ maxLength: 20 })),
      { maxLength: 6 },
    );
    const version = fc.record({
      item_type: fc.constantFrom('policy', 'task', 'qa_check'),
      title: fc.oneof(fc.constantFrom('Limit of 10 items', 'Limit of 20 items'), fc.string({ maxLength: 10 })),
      body: text.map((s) => s.join(' ')),
      context: fc.dictionary(
        fc.constantFrom('note', 'sort_order', 'target_task_ids', 'target_item_ids'),
        fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom([UUID_A], [UUID_B])),
      ),
      status: fc.constantFrom(null, 'proposed', 'done'),
      system_id: fc.constantFrom(null, UUID_A),
      work_unit_id: fc.constantFrom(null, UUID_B),
      source_url: fc.constantFrom(null, '', 'https://example.com/a'),
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(version, version),
          // Edited versions of one base, so that most dimensions stay equal and labels arise one at a time.
          fc.tuple(baseArb, editsArb).map(([b, { fields, text: t }]) => [baseFacts(b), applyAll(b, fields, t)] as const),
        ),
        ([before, after]) => {
          const impacts = classifySemanticImpact(before, after);
          expect(impacts.every(isSemanticImpact)).toBe(true);
          expect(new Set(impacts).size).toBe(impacts.length);
          expect(impacts).toEqual(canonical(impacts));
          // Symmetric in what changed: nothing changed iff no label.
          expect(impacts.length === 0).toBe(classifySemanticImpact(after, before).length === 0);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('rewritesContent', () => {
  it('counts a new title, body, context or source as a re-write of the content', () => {
    for (const change of [{ title: 'Limits' }, { body: 'Re-read.' }, { context: { k: 1 } }, { source_url: 'https://example.test/v2' }]) {
      expect(rewritesContent(facts(), facts(change))).toBe(true);
    }
  });

  it('does not count a move, a type or status change, or the same context in another key order', () => {
    for (const change of [{ system_id: UUID_A }, { work_unit_id: UUID_B }, { item_type: 'decision' }, { status: 'done' }]) {
      expect(rewritesContent(facts(), facts(change))).toBe(false);
    }
    expect(rewritesContent(facts({ context: { a: 1, b: [2] } }), facts({ context: { b: [2], a: 1 } }))).toBe(false);
  });
});
