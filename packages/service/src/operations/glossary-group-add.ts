import { insertGroup, resolveProject } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { groupName } from './glossary-shared.js';

export const glossaryGroupAdd = defineOperation({
  name: 'glossary_group_add',
  surface: 'operator',
  title: 'Add a glossary group',
  description: 'Add a glossary group: a set of terms that mean the same in this project (e.g. k8s, kubernetes).',
  input: z.object({ project_id: projectRef, name: groupName }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const group = await insertGroup(ctx.tx, project.id, input.name);
    ctx.audit({ project_id: project.id, target_kind: 'glossary_group', target_id: group.id });
    return group;
  },
});
