import { listIdeas } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, boundedPage, idRef, limit } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { findWorkUnit, scope } from '../work/shared.js';
import { scopeField } from './idea-shared.js';

export const ideaList = defineOperation({
  name: 'svc_idea_list',
  surface: 'tool',
  title: 'List ideas (legacy)',
  description: 'List the ideas of a work unit, newest first; redacted ones with their text masked. Returns {ideas, truncated}.',
  input: z.object({ work_unit_id: idRef('Work unit'), limit, project_id: scopeField }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const unit = await findWorkUnit(ctx.db, input.work_unit_id, await scope(ctx.db, input.project_id));
    const max = boundedLimit(input.limit);
    const ideas = await listIdeas(ctx.db, { project_id: unit.project_id, work_unit_id: unit.id }, max);
    const page = boundedPage(ideas, max, (i) => i.text.length);
    return { ideas: page.rows, truncated: page.limited || page.sized };
  },
});
