import { listProjects } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const projectList = defineOperation({
  name: 'project_list',
  surface: 'operator',
  title: 'List projects',
  description: 'List projects by slug.',
  input: z.object({ limit }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const max = boundedLimit(input.limit);
    const projects = await listProjects(ctx.db, max + 1);
    return { projects: projects.slice(0, max), truncated: projects.length > max };
  },
});
