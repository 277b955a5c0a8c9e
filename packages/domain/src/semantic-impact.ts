/**
 * Deterministic labelling of what an edit changed. No model: a diff of the old and the new version, by rules
 * a reader can check. A caller may add labels of its own; these are the ones the service computes.
 */
export const SEMANTIC_IMPACTS = [
  'numeric_change',
  'rule_addition',
  'rule_removal',
  'status_change',
  'scope_change',
  'context_change',
  'wording_change',
] as const;

export type SemanticImpact = (typeof SEMANTIC_IMPACTS)[number];

export function isSemanticImpact(value: string): value is SemanticImpact {
  return (SEMANTIC_IMPACTS as readonly string[]).includes(value);
}

/** The parts of an item version that the classifier compares. */
export interface VersionFacts {
  item_type: string;
  title: string;
  body: string;
  context: Record<string, unknown>;
  status: string | null;
  system_id: string | null;
  work_unit_id: string | null;
  source_url: string | null;
}

// A sentence that states a rule: obligation, prohibition or permission words.
const RULE_WORDS =
  /\b(must|must not|shall|shall not|should|should not|never|always|required|requires|require|mandatory|forbidden|prohibited|may not|cannot|can't|only|do not|don't|is not allowed|are not allowed)\b/i;

const NUMBER_RE = /[-+]?\d+(?:[.,]\d+)*(?:\.\d+)?/g;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function normaliseSentence(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').replace(/[.!?;:,]+$/, '');
}

/** A sentence with every number replaced by a placeholder: two sentences with one shape differ in numbers only. */
function numberShape(s: string): string {
  return normaliseSentence(s).replace(NUMBER_RE, '#');
}

function numbersOf(s: string): string[] {
  return s.match(NUMBER_RE) ?? [];
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

// Context keys whose change moves an item to other targets (QA checks) rather than changing what it says.
const SCOPE_CONTEXT_KEYS = new Set(['target_task_ids', 'target_item_ids']);

/**
 * Whether `after` re-writes what the item says: its title, body, context or source. Research expires
 * research.ttl_days after the last such write (refreshed_at): a move to another system, work unit or type, a
 * status change, a delete or a restore is not a new look at the source.
 */
export function rewritesContent(before: VersionFacts, after: VersionFacts): boolean {
  return (
    before.title !== after.title ||
    before.body !== after.body ||
    (before.source_url ?? '') !== (after.source_url ?? '') ||
    stableJson(before.context) !== stableJson(after.context)
  );
}

/**
 * Classify the change from `before` to `after`. Returns labels in the canonical order; an empty array means
 * nothing the classifier looks at changed.
 */
export function classifySemanticImpact(before: VersionFacts, after: VersionFacts): SemanticImpact[] {
  const found = new Set<SemanticImpact>();

  if (before.status !== after.status) found.add('status_change');
  if (
    before.item_type !== after.item_type ||
    before.system_id !== after.system_id ||
    before.work_unit_id !== after.work_unit_id
  ) {
    found.add('scope_change');
  }

  const beforeKeys = Object.keys(before.context);
  const afterKeys = Object.keys(after.context);
  for (const key of new Set([...beforeKeys, ...afterKeys])) {
    const was = Object.hasOwn(before.context, key) ? before.context[key] : undefined;
    const now = Object.hasOwn(after.context, key) ? after.context[key] : undefined;
    if (stableJson(was) === stableJson(now)) continue;
    found.add(SCOPE_CONTEXT_KEYS.has(key) ? 'scope_change' : 'context_change');
  }
  if ((before.source_url ?? '') !== (after.source_url ?? '')) found.add('context_change');

  const textBefore = `${before.title}\n${before.body}`;
  const textAfter = `${after.title}\n${after.body}`;
  if (textBefore !== textAfter) {
    const labelsBeforeText = found.size;
    const oldSentences = sentences(textBefore);
    const newSentences = sentences(textAfter);
    const oldSet = new Set(oldSentences.map(normaliseSentence));
    const newSet = new Set(newSentences.map(normaliseSentence));
    const removed = oldSentences.filter((s) => !newSet.has(normaliseSentence(s)));
    const added = newSentences.filter((s) => !oldSet.has(normaliseSentence(s)));

    // Pair sentences that differ only in their numbers: those are numeric changes, not new rules.
    const removedShapes = new Map<string, string>();
    for (const s of removed) removedShapes.set(numberShape(s), s);
    const unpairedAdded: string[] = [];
    const pairedRemoved = new Set<string>();
    for (const s of added) {
      const shape = numberShape(s);
      const partner = removedShapes.get(shape);
      if (partner !== undefined && numbersOf(partner).join() !== numbersOf(s).join()) {
        found.add('numeric_change');
        pairedRemoved.add(partner);
        removedShapes.delete(shape);
      } else {
        unpairedAdded.push(s);
      }
    }
    const unpairedRemoved = removed.filter((s) => !pairedRemoved.has(s));

    const addedRules = unpairedAdded.filter((s) => RULE_WORDS.test(s));
    const removedRules = unpairedRemoved.filter((s) => RULE_WORDS.test(s));
    // A rule sentence replaced by a reworded one is a wording change, unless the count of rules moved.
    if (addedRules.length > removedRules.length) found.add('rule_addition');
    if (removedRules.length > addedRules.length) found.add('rule_removal');
    const reworded =
      unpairedAdded.length - Math.max(0, addedRules.length - removedRules.length) > 0 ||
      unpairedRemoved.length - Math.max(0, removedRules.length - addedRules.length) > 0;
    if (reworded) found.add('wording_change');
    // Whitespace, punctuation or sentence order only: the text changed, so it gets a text label whatever else
    // (status, scope, context) changed alongside it.
    if (found.size === labelsBeforeText) found.add('wording_change');
  }

  return SEMANTIC_IMPACTS.filter((label) => found.has(label));
}
