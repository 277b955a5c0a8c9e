import { listSystems, resolveProject } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const projectShow = defineOperation({
  name: 'project_show',
  surface: 'operator',
  title: 'Show a project',
  description: 'Show a project, its settings and its systems.',
  input: z.object({ project_id: projectRef }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    return { ...project, systems: await listSystems(ctx.db, project.id) };
  },
});
