import { invalidInput } from './errors.js';

/**
 * How deeply a JSON value a caller sends may nest: objects and arrays, the value itself counting as the
 * first level. Everything downstream of the input gate (zod, ajv, the semantic-impact diff, export and import)
 * walks values recursively; bounding the depth at the gate keeps every one of them far from the stack limit,
 * and 64 levels is more than any real context, signal or schema needs. docs/decisions/0013.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * How many levels of objects and arrays `value` nests, counted without recursion and without looking further
 * than `max + 1` levels, so a hostile value costs no more than its size and never the stack.
 */
export function jsonDepth(value: unknown, max = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (level > deepest) deepest = level;
    if (deepest > max) return deepest;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, level + 1]);
  }
  return deepest;
}

/** Refuse a value nested deeper than MAX_JSON_DEPTH levels, naming the field it was sent as. */
export function checkJsonDepth(value: unknown, field: string): void {
  if (jsonDepth(value) > MAX_JSON_DEPTH) throw invalidInput(field, `nested deeper than ${MAX_JSON_DEPTH} levels`);
}
