import { resolveProject } from '@svc/store';
import { stringify } from 'smol-toml';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const projectConfigExport = defineOperation({
  name: 'project_config_export',
  surface: 'operator',
  title: 'Export project configuration',
  description: 'The project configuration as TOML.',
  input: z.object({ project_id: projectRef }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    return { project_id: project.id, config: stringify(project.settings) };
  },
});
