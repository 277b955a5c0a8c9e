import { invalidInput, newSlugRefusal } from '@svc/domain';
import { insertProject } from '@svc/store';
import { z } from 'zod';
import { MAX_NAME, MAX_SLUG } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const projectCreate = defineOperation({
  name: 'project_create',
  surface: 'operator',
  title: 'Create a project',
  description: 'Create a project. The slug (lowercase letters, digits, hyphens) is how people and tools name it.',
  input: z.object({
    slug: z.string().max(MAX_SLUG).describe('Short name: lowercase letters, digits and hyphens, starting with a letter or digit'),
    name: z.string().trim().min(1).max(MAX_NAME).optional().describe('Display name (default: the slug)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const refused = newSlugRefusal(input.slug);
    if (refused) throw invalidInput('slug', refused);
    const project = await insertProject(ctx.tx, { slug: input.slug, name: input.name ?? input.slug });
    ctx.audit({ project_id: project.id, target_kind: 'project', target_id: project.id });
    return project;
  },
});
