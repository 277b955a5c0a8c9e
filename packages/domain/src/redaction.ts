/** What redacted text reads as, everywhere svc masks it. */
export const REDACTED = '[redacted]';

/**
 * Context fields that are structure, not words, kept when a context is redacted: a QA check's coverage (an
 * enum the type's schema holds it to) and its targets (item ids, which links and traversals follow).
 */
const STRUCTURAL_FIELDS: Partial<Record<string, ReadonlySet<string>>> = {
  qa_check: new Set(['coverage', 'target_task_ids', 'target_item_ids']),
};

/**
 * The context of an item version made from a redacted capture (docs/decisions/0015): every string anywhere
 * in it, at any depth, becomes `[redacted]`; keys, numbers, booleans, nulls and the shape stay, and so do the
 * structural fields of the system types, so a task or QA check still satisfies its type's schema. Walked
 * without recursion; the input is not changed.
 */
export function redactContext(itemType: string, context: Record<string, unknown>): Record<string, unknown> {
  const kept = STRUCTURAL_FIELDS[itemType];
  const out: Record<string, unknown> = {};
  const stack: [unknown, (value: unknown) => void][] = [];
  for (const [key, value] of Object.entries(context)) {
    setOwn(out, key, value);
    if (!kept?.has(key)) stack.push([value, (v) => setOwn(out, key, v)]);
  }
  while (stack.length > 0) {
    const [value, put] = stack.pop() as [unknown, (value: unknown) => void];
    if (typeof value === 'string') put(REDACTED);
    else if (Array.isArray(value)) {
      const copy: unknown[] = [...value];
      put(copy);
      for (const [i, child] of value.entries()) {
        stack.push([
          child,
          (v) => {
            copy[i] = v;
          },
        ]);
      }
    } else if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      put(copy);
      for (const [key, child] of Object.entries(value)) {
        setOwn(copy, key, child);
        stack.push([child, (v) => setOwn(copy, key, v)]);
      }
    }
  }
  return out;
}

/** Set an own property, a key named `__proto__` included (plain assignment would change the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
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
