import { defineOperation } from '../operation.js';
import { input, setDeleted } from './item-delete-shared.js';

export const itemRestore = defineOperation({
  name: 'item_restore',
  surface: 'operator',
  title: 'Restore a deleted item',
  description: 'Undo a soft delete of an item (its whole chain).',
  input,
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  run: (ctx, raw) => setDeleted(ctx, raw, false),
});
