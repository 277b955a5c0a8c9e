import { resolveProject, reviewQueue } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const glossaryQueue = defineOperation({
  name: 'glossary_queue',
  surface: 'operator',
  title: 'Glossary review queue',
  description: 'List proposed glossary terms awaiting review, oldest first.',
  input: z.object({ project_id: projectRef, limit }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    const max = boundedLimit(input.limit);
    const terms = await reviewQueue(ctx.db, project.id, max);
    return { terms: terms.slice(0, max), truncated: terms.length > max };
  },
});
