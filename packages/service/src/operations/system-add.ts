import { idLikeName, invalidInput } from '@svc/domain';
import { insertSystem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { MAX_NAME, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const systemAdd = defineOperation({
  name: 'system_add',
  surface: 'operator',
  title: 'Add a system to a project',
  description: 'Add a named system (a part of the project, such as a service or a component) to a project.',
  input: z.object({
    project_id: projectRef,
    name: z.string().trim().min(1).max(MAX_NAME).describe('System name, unique in the project'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    // A system is looked up by name before id (resolveSystem), as a project by slug (decision 0051).
    const refused = idLikeName(input.name, 'system', "a system's name");
    if (refused) throw invalidInput('name', refused);
    const project = await resolveProject(ctx.tx, input.project_id);
    const system = await insertSystem(ctx.tx, project.id, input.name);
    ctx.audit({ project_id: project.id, target_kind: 'system', target_id: system.id });
    return system;
  },
});
