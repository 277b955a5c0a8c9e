import { invalidInput, isSlug } from '@svc/domain';
import { insertProject, listProjects, listSystems, resolveProject } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const projectCreate = defineOperation({
  name: 'project_create',
  surface: 'operator',
  title: 'Create a project',
  description: 'Create a project. The slug (lowercase letters, digits, hyphens) is how people and tools name it.',
  input: z.object({
    slug: z.string().max(63).describe('Short name: lowercase letters, digits and hyphens, starting with a letter or digit'),
    name: z.string().trim().min(1).max(200).optional().describe('Display name (default: the slug)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    if (!isSlug(input.slug)) {
      throw invalidInput('slug', `'${input.slug}' is not a valid slug: use lowercase letters, digits and hyphens (at most 63), starting with a letter or digit`);
    }
    const project = await insertProject(ctx.tx, { slug: input.slug, name: input.name ?? input.slug });
    ctx.audit({ project_id: project.id, target_kind: 'project', target_id: project.id });
    return project;
  },
});

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
