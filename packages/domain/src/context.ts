import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { invalidInput, SvcError } from './errors.js';
import type { JsonSchema } from './item-types.js';
import { checkJsonDepth, checkJsonSize } from './json-depth.js';
import { checkSchemaPatterns, linearRegExp } from './linear-regexp.js';

/**
 * The options of every ajv svc runs, at registration and at write time alike: patterns on the linear-time
 * engine, and no strict-mode check that would run a schema's pattern on JavaScript's own RegExp while
 * compiling (allowMatchingProperties).
 */
const AJV_OPTIONS: Options = { allowUnionTypes: true, allowMatchingProperties: true, code: { regExp: linearRegExp } };

const ajv = new Ajv({ ...AJV_OPTIONS, allErrors: false, strict: false });
const compiled = new Map<string, ValidateFunction>();

function compile(itemType: string, schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let fn = compiled.get(key);
  if (fn === undefined) {
    try {
      // A schema stored before uniqueItems was checked at registration must not stall a write either.
      checkUniqueItems(schema, 'schema');
      fn = ajv.compile(schema);
    } catch (error) {
      // Only a schema stored before its patterns and uniqueItems were checked at registration can get here.
      throw new SvcError('invalid_input', `item type '${itemType}': its schema cannot be used: ${(error as Error).message}`, {
        field: 'item_type',
        item_type: itemType,
      });
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, fn);
  }
  return fn;
}

function describe(error: ErrorObject, field: string): { path: string; message: string } {
  const pointer = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const path = pointer === '' ? field : `${field}.${pointer}`;
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: string }).additionalProperty);
    return { path: `${path}.${extra}`, message: `unknown property '${extra}' (this item type allows no other properties)` };
  }
  return { path, message: error.message ?? 'is not valid' };
}

/**
 * Validate an item's context: a JSON object of at most 1 MiB of JSON that fits its type's schema; the error names
 * the offending property.
 */
export function validateContext(itemType: string, schema: JsonSchema, context: unknown, field = 'context'): void {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) {
    throw invalidInput(field, 'must be a JSON object');
  }
  checkJsonSize(context, field);
  const fn = compile(itemType, schema);
  let valid: boolean;
  try {
    valid = fn(context) as boolean;
  } catch (error) {
    // A schema stored before self-reference was checked at registration (or one that loops in a way that check
    // cannot see, through $id or $anchor) overflows the stack: refused in words, never an internal error.
    if (!(error instanceof RangeError)) throw error;
    throw new SvcError('invalid_input', `item type '${itemType}': its schema cannot be used: it refers to itself without end`, {
      field: 'item_type',
      item_type: itemType,
    });
  }
  if (!valid) {
    const first = fn.errors?.[0];
    const { path, message } = first ? describe(first, field) : { path: field, message: 'is not valid' };
    throw invalidInput(path, `${message} (schema of item type '${itemType}')`, { item_type: itemType });
  }
}

/** Check that a custom type's schema is itself a valid JSON Schema describing an object, before storing it. */
export function validateTypeSchema(schema: unknown, field = 'schema'): JsonSchema {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw invalidInput(field, 'must be a JSON Schema object');
  }
  const s = schema as JsonSchema;
  if (s.type !== undefined && s.type !== 'object') {
    throw invalidInput(`${field}.type`, "an item context is a JSON object: the schema's type must be 'object'");
  }
  checkJsonDepth(s, field);
  checkSchemaPatterns(s, field);
  checkUniqueItems(s, field);
  checkSelfReference(s, field);
  try {
    new Ajv({ ...AJV_OPTIONS, strict: true }).compile(s);
  } catch (error) {
    throw new SvcError('invalid_input', `${field}: not a valid JSON Schema: ${(error as Error).message}`, { field });
  }
  return s;
}

/** Keywords whose subschemas apply to the value itself, not to a part of it (they descend into nothing). */
const IN_PLACE_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const IN_PLACE_ONE = new Set(['not', 'if', 'then', 'else']);
const IN_PLACE_MAPS = new Set(['dependentSchemas', 'dependencies']);

/** Where a schema without `$id` is taken to live, so that `#…` and "" resolve against it. */
const SCHEMA_BASE = 'svc:/schema';

/** A key as a JSON pointer writes it (`~` and `/` escaped). */
const pointerKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Refuse a schema that refers to itself without descending into the value (`{"allOf": [{"$ref": "#"}]}`): ajv
 * compiles it, and then every check of a context loops until the stack overflows, so each write of the type failed
 * with an internal error, and one imported file could do that to a project (an attacker, 2026-11-27). The check
 * follows $ref (a JSON pointer, "", an `$id` or an `$anchor` of the schema, resolved against the `$id`s around it
 * as ajv does) and the keywords applying a subschema to the value itself (allOf, anyOf, oneOf, not, if/then/else,
 * dependentSchemas); a cycle among them is refused, naming where it closes. A cycle that passes through
 * properties, items and the like descends each time and ends with the value. A reference it cannot resolve (to
 * another document) is left to ajv, which refuses it.
 */
function checkSelfReference(schema: JsonSchema, field: string): void {
  const pointers = new Map<object, string>();
  const bases = new Map<object, string>();
  const byUri = new Map<string, object>();
  const stack: [unknown, string, string][] = [[schema, '#', SCHEMA_BASE]];
  while (stack.length > 0) {
    const [node, pointer, outer] = stack.pop() as [unknown, string, string];
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) stack.push([child, `${pointer}/${i}`, outer]);
      continue;
    }
    const record = node as Record<string, unknown>;
    let base = outer;
    if (pointer === '#') byUri.set(SCHEMA_BASE, node);
    if (typeof record.$id === 'string') {
      const id = uri(record.$id, outer);
      if (id) {
        base = id.href;
        byUri.set(base, node);
      }
    }
    if (typeof record.$anchor === 'string') byUri.set(`${base}#${record.$anchor}`, node);
    pointers.set(node, pointer);
    bases.set(node, base);
    for (const [key, value] of Object.entries(record)) if (!DATA_KEYWORDS.has(key)) stack.push([value, `${pointer}/${pointerKey(key)}`, base]);
  }

  const resolve = (from: object, ref: string): object | undefined => {
    const target = uri(ref, bases.get(from) ?? SCHEMA_BASE);
    if (!target) return undefined;
    const fragment = target.fragment;
    let node: unknown = byUri.get(target.href);
    if (node === undefined) return undefined;
    if (fragment !== '' && !fragment.startsWith('/')) return byUri.get(`${target.href}#${fragment}`);
    for (const raw of fragment === '' ? [] : fragment.slice(1).split('/')) {
      let key: string;
      try {
        key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      } catch {
        return undefined;
      }
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node !== null && typeof node === 'object' ? node : undefined;
  };

  const state = new Map<object, 'open' | 'done'>();
  const visit = (node: unknown, trail: readonly string[]): void => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    const seen = state.get(node);
    if (seen === 'done') return;
    const pointer = pointers.get(node) ?? '#';
    if (seen === 'open') {
      const at = `${field}${pointer.slice(1).replaceAll('/', '.')}`;
      throw invalidInput(at, `refers to itself without descending into the value (${[...trail, pointer].join(' → ')}): checking a context against it would never end`);
    }
    state.set(node, 'open');
    const next = [...trail, pointer];
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (IN_PLACE_LISTS.has(key) && Array.isArray(value)) {
        for (const child of value) visit(child, next);
      } else if (IN_PLACE_ONE.has(key)) {
        visit(value, next);
      } else if (IN_PLACE_MAPS.has(key) && value !== null && typeof value === 'object') {
        for (const child of Object.values(value)) visit(child, next);
      } else if (key === '$ref' && typeof value === 'string') {
        visit(resolve(node, value), next);
      }
    }
    state.set(node, 'done');
  };
  for (const node of pointers.keys()) visit(node, []);
}

/** `ref` resolved against `base`: the address without its fragment, and the fragment decoded from the URL's form. */
function uri(ref: string, base: string): { href: string; fragment: string } | undefined {
  try {
    const url = new URL(ref, base);
    const fragment = url.hash.slice(1);
    url.hash = '';
    return { href: url.href, fragment };
  } catch {
    return undefined;
  }
}

/** Item types for which ajv checks `uniqueItems` by hashing, in linear time (ajv's uniqueItems.js). */
const HASHED_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
/** Keywords whose values are data, not subschemas: a `uniqueItems` key inside them means nothing. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names to subschemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

/**
 * ajv checks `uniqueItems` by comparing every pair of items unless `items` is a schema whose `type` names
 * only scalars, when it hashes them: a 100,000-item array of the pairwise kind blocks the process for tens of
 * seconds. Refuse the pairwise kind at registration, naming where it is (docs/decisions/0013).
 */
function checkUniqueItems(schema: unknown, field: string): void {
  const stack: [unknown, string, boolean][] = [[schema, field, false]];
  while (stack.length > 0) {
    const [node, path, names] = stack.pop() as [unknown, string, boolean];
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) stack.push([child, `${path}[${i}]`, false]);
      continue;
    }
    const record = node as Record<string, unknown>;
    // In `properties` and the like, a key is a name: a property called uniqueItems is no keyword.
    if (!names && Object.hasOwn(record, 'uniqueItems') && record.uniqueItems !== false) {
      const items = record.items;
      const types = items !== null && typeof items === 'object' && !Array.isArray(items) ? (items as Record<string, unknown>).type : undefined;
      const list = Array.isArray(types) ? types : types === undefined ? [] : [types];
      if (list.length === 0 || !list.every((t) => typeof t === 'string' && HASHED_TYPES.has(t))) {
        throw invalidInput(
          `${path}.uniqueItems`,
          "uniqueItems is accepted only when 'items' is a schema whose 'type' is string, number, integer or boolean " +
            '(other items are compared pairwise, which a long array turns into a stall)',
        );
      }
    }
    for (const [key, value] of Object.entries(record)) {
      if (names) stack.push([value, `${path}.${key}`, false]);
      else if (!DATA_KEYWORDS.has(key)) stack.push([value, `${path}.${key}`, NAME_MAPS.has(key)]);
    }
  }
}
