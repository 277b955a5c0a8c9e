import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { invalidInput, SvcError } from './errors.js';
import type { JsonSchema } from './item-types.js';
import { checkJsonDepth } from './json-depth.js';
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
      fn = ajv.compile(schema);
    } catch (error) {
      // Only a schema stored before its patterns were checked at registration can get here.
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

/** Validate an item's context against its type's schema; the error names the offending property. */
export function validateContext(itemType: string, schema: JsonSchema, context: unknown, field = 'context'): void {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) {
    throw invalidInput(field, 'must be a JSON object');
  }
  const fn = compile(itemType, schema);
  if (!fn(context)) {
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
  try {
    new Ajv({ ...AJV_OPTIONS, strict: true }).compile(s);
  } catch (error) {
    throw new SvcError('invalid_input', `${field}: not a valid JSON Schema: ${(error as Error).message}`, { field });
  }
  return s;
}
