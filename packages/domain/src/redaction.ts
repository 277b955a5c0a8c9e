import { type JsonSchema, SYSTEM_TYPE_SCHEMAS } from './item-types.js';

/** What redacted text reads as, everywhere svc masks it. */
export const REDACTED = '[redacted]';

/**
 * Context fields that are structure svc orders, validates and traverses by, kept as they are when a context is
 * redacted: a task's sort_order (its position in the work unit) and a QA check's coverage (an enum) and targets
 * (item ids, which links and traversals follow). docs/decisions/0042.
 */
const STRUCTURAL_FIELDS: Partial<Record<string, readonly string[]>> = {
  task: ['sort_order'],
  qa_check: ['coverage', 'target_task_ids', 'target_item_ids'],
};

/**
 * The context of an item version made from a redacted capture (docs/decisions/0015, 0042). A key is the
 * caller's word unless a strict schema of a system type names it, and a number or a boolean can carry a secret
 * as well as a string can, so only this stays: the fields a strict system schema declares (task, QA check),
 * the structural ones as they are and the free-text ones (a task's summary, a check's note) as `[redacted]`.
 * Every other type's context becomes `{}`. The input is not changed.
 */
export function redactContext(itemType: string, context: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const schema = strictSystemSchema(itemType);
  if (!schema) return out;
  const kept = STRUCTURAL_FIELDS[itemType] ?? [];
  for (const key of Object.keys(schema.properties as Record<string, unknown>)) {
    if (Object.hasOwn(context, key)) out[key] = kept.includes(key) ? context[key] : REDACTED;
  }
  return out;
}

/** The schema of a system type whose context admits only the fields it declares, or undefined. */
function strictSystemSchema(itemType: string): JsonSchema | undefined {
  if (!Object.hasOwn(SYSTEM_TYPE_SCHEMAS, itemType)) return undefined;
  const { schema } = SYSTEM_TYPE_SCHEMAS[itemType as keyof typeof SYSTEM_TYPE_SCHEMAS];
  return schema.additionalProperties === false ? schema : undefined;
}

/**
 * The source_url of an item version made from a redacted capture: only its origin stays (`https://host/`), so
 * a token in its path, query, fragment or user part goes while a research item keeps a usable source; a URL
 * without an origin becomes `[redacted]`.
 */
export function redactSourceUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? REDACTED : `${origin}/`;
  } catch {
    return REDACTED;
  }
}
