import { listItemTypes } from '@svc/store';
import { z } from 'zod';
import { defineOperation } from '../operation.js';

export const typeList = defineOperation({
  name: 'type_list',
  surface: 'operator',
  title: 'List item types',
  description: 'List the item types: the seven system types and any custom ones.',
  input: z.object({}),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx) {
    return { types: await listItemTypes(ctx.db) };
  },
});
