import { insertIdea } from '@svc/store';
import { z } from 'zod';
import { writeAnswer } from '../answers.js';
import { writeIndexed } from '../errors.js';
import { idRef, MAX_TEXT } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { findWorkUnit, scope } from '../work/shared.js';
import { scopeField } from './idea-shared.js';

export const ideaAdd = defineOperation({
  name: 'svc_idea_add',
  surface: 'tool',
  title: 'Add an idea (legacy)',
  description:
    'Append an ideation note to a work unit (legacy; for raw intake prefer svc_capture_add). Returns {id, work_unit_id}.',
  input: z.object({
    work_unit_id: idRef('Work unit'),
    text: z.string().min(1).max(MAX_TEXT).describe('The idea'),
    actor_id: z.string().max(100).optional().describe('Author actor UUID (default: the caller)'),
    project_id: scopeField,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  actorField: 'actor_id',
  async run(ctx, input) {
    const unit = await findWorkUnit(ctx.tx, input.work_unit_id, await scope(ctx.tx, input.project_id));
    const idea = await writeIndexed(['text'], 'idea', () =>
      insertIdea(ctx.tx, { project_id: unit.project_id, work_unit_id: unit.id, text: input.text, author_id: ctx.actor?.id ?? null }),
    );
    ctx.audit({ project_id: unit.project_id, target_kind: 'idea', target_id: idea.id });
    return writeAnswer(idea);
  },
});
