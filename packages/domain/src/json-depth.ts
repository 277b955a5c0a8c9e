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

const NOT_FINITE = 'is not a finite number (a JSON number beyond ±1.8e308, such as 1e400, overflows and would be stored as null)';

/** Where a value sits inside a parameter, kept as a chain and spelled out only when a refusal names it. */
interface Place {
  readonly parent: Place | undefined;
  readonly step: string;
}

/** The longest key a path spells whole, and the longest path: both are the caller's text, echoed back. */
const MAX_STEP = 64;
const MAX_PATH = 256;

function spell(place: Place | undefined, field: string): string {
  const steps: string[] = [];
  for (let p = place; p; p = p.parent) steps.push(p.step.length > MAX_STEP + 1 ? `${p.step.slice(0, MAX_STEP + 1)}…` : p.step);
  const path = field + steps.reverse().join('');
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path;
}

/**
 * The input gate's check of one JSON parameter, in one walk without recursion: refuse a value nested deeper
 * than MAX_JSON_DEPTH levels, an own `__proto__` key anywhere in it (zod's record drops it silently, and
 * it must never reach code that copies objects), and a NUL character in any string or key (neither text nor
 * jsonb can hold one), and a number that is not finite (JSON.parse reads 1e400 as Infinity, which JSON.stringify
 * and so the database would silently turn into null). A depth refusal names the parameter; the others name where in it the value sits
 * (`context.code`, `signals.list.2`: array items by index, as a schema refusal spells them; long keys and
 * paths shortened, since they are the caller's text).
 */
export function checkJsonDepth(value: unknown, field: string): void {
  const stack: [unknown, number, Place | undefined][] = [[value, 0, undefined]];
  while (stack.length > 0) {
    const [node, level, place] = stack.pop() as [unknown, number, Place | undefined];
    if (typeof node === 'string') {
      if (node.includes('\u0000')) throw invalidInput(spell(place, field), 'holds a NUL character (\\u0000), which no text can store');
      continue;
    }
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) throw invalidInput(spell(place, field), NOT_FINITE);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (level >= MAX_JSON_DEPTH) throw invalidInput(field, `nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) stack.push([child, level + 1, { parent: place, step: `.${i}` }]);
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key === '__proto__') throw invalidInput(spell(place, field), "holds a '__proto__' key, which is not accepted in any value");
      if (key.includes('\u0000')) throw invalidInput(spell(place, field), 'holds a NUL character (\\u0000) in a key, which no text can store');
      stack.push([(node as Record<string, unknown>)[key], level + 1, { parent: place, step: `.${key}` }]);
    }
  }
}

/**
 * The most a JSON object a caller stores may weigh (an item's context, a capture's signals), in characters of its
 * JSON text: 1 MiB, the bound of a text field (zod counts those in characters too). docs/decisions/0041.
 */
export const MAX_JSON_CHARS = 1024 * 1024;

/** Refuse a value whose JSON text is longer than MAX_JSON_CHARS, naming the field and the limit. */
export function checkJsonSize(value: unknown, field: string): void {
  const chars = JSON.stringify(value)?.length ?? 0;
  if (chars > MAX_JSON_CHARS) {
    throw invalidInput(field, `is ${chars.toLocaleString('en')} characters as JSON; at most 1 MiB (${MAX_JSON_CHARS.toLocaleString('en')} characters) is stored`, {
      limit: MAX_JSON_CHARS,
    });
  }
}
