import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { invalidInput, SvcError } from './errors.js';
import type { JsonSchema } from './item-types.js';

const ajv = new Ajv({ allErrors: false, strict: false, allowUnionTypes: true });
const compiled = new Map<string, ValidateFunction>();

function compile(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let fn = compiled.get(key);
  if (fn === undefined) {
    fn = ajv.compile(schema);
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
  const fn = compile(schema);
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
  try {
    new Ajv({ strict: true, allowUnionTypes: true }).compile(s);
  } catch (error) {
    throw new SvcError('invalid_input', `${field}: not a valid JSON Schema: ${(error as Error).message}`, { field });
  }
  return s;
}
