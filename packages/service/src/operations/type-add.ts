import { invalidInput, isTypeKey, validateTypeSchema } from '@svc/domain';
import { insertItemType } from '@svc/store';
import { z } from 'zod';
import { jsonObject, MAX_KEY, MAX_NAME } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const typeAdd = defineOperation({
  name: 'type_add',
  surface: 'operator',
  title: 'Register a custom item type',
  description: "Register a custom item type whose items' context is validated against the given JSON Schema.",
  input: z.object({
    key: z.string().max(MAX_KEY).describe('Type key: lowercase letters, digits and underscores, starting with a letter'),
    schema: jsonObject.describe('JSON Schema for the context of items of this type (type object)'),
    display_name: z.string().trim().min(1).max(MAX_NAME).optional().describe('Display name (default: the key)'),
    owner: z.string().trim().min(1).max(MAX_NAME).optional().describe("Owner of the type (default 'custom')"),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    if (!isTypeKey(input.key)) {
      throw invalidInput('key', `'${input.key}' is not a valid type key: 2 to 40 lowercase letters, digits or underscores, starting with a letter`);
    }
    const schema = validateTypeSchema(input.schema);
    const type = await insertItemType(ctx.tx, {
      key: input.key,
      display_name: input.display_name ?? input.key,
      schema: { type: 'object', ...schema },
      owner: input.owner ?? 'custom',
    });
    ctx.audit({ target_kind: 'item_type', details: { key: type.key } });
    return type;
  },
});
