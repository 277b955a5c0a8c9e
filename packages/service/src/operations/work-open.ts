import { insertWorkUnit, resolveProject, resolveSystem } from '@svc/store';
import { z } from 'zod';
import { writeAnswer } from '../answers.js';
import { MAX_NOTE, MAX_WORK_TITLE, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const workOpen = defineOperation({
  name: 'svc_work_open',
  surface: 'tool',
  title: 'Open a work unit',
  description: 'Open a work unit (a piece of work grouping tasks and QA checks). Returns {id, status}.',
  input: z.object({
    project_id: projectRef,
    title: z.string().trim().min(1).max(MAX_WORK_TITLE).describe('What the work is'),
    description: z.string().max(MAX_NOTE).optional().describe('Longer description'),
    system_id: z.string().max(200).optional().describe('System of the project (id, prefix or name)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const system = input.system_id ? await resolveSystem(ctx.tx, project.id, input.system_id) : null;
    const unit = await insertWorkUnit(ctx.tx, {
      project_id: project.id,
      system_id: system?.id ?? null,
      title: input.title,
      description: input.description ?? '',
      created_by: ctx.actor?.id ?? null,
    });
    ctx.audit({ project_id: project.id, target_kind: 'work_unit', target_id: unit.id });
    return writeAnswer(unit);
  },
});
