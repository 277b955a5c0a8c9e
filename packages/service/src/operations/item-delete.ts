import { defineOperation } from '../operation.js';
import { input, setDeleted } from './item-delete-shared.js';

export const itemDelete = defineOperation({
  name: 'item_delete',
  surface: 'operator',
  title: 'Soft-delete an item',
  description: 'Soft-delete an item (its whole chain): hidden from search, brief, resume and impact; restorable.',
  input,
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: false },
  run: (ctx, raw) => setDeleted(ctx, raw, true),
});
