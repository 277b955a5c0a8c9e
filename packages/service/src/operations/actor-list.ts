import { listActors } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const actorList = defineOperation({
  name: 'actor_list',
  surface: 'operator',
  title: 'List actors',
  description: 'List registered actors.',
  input: z.object({ limit }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const max = boundedLimit(input.limit);
    const actors = await listActors(ctx.db, max + 1);
    return { actors: actors.slice(0, max), truncated: actors.length > max };
  },
});
