import { ideaTransition, parseIdRef, shortId } from '@svc/domain';
import { lockIdea, redactIdea } from '@svc/store';
import { z } from 'zod';
import { type WriteAnswer, writeAnswer } from '../answers.js';
import { idRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { scope } from '../work/shared.js';
import { scopeField } from './idea-shared.js';

export const ideaRedact = defineOperation({
  name: 'svc_idea_redact',
  surface: 'tool',
  title: 'Redact an idea (legacy)',
  description: 'Mask an idea\'s text as [redacted] for good; the row (who, when) stays. Answers `idea <id> redacted`.',
  input: z.object({ idea_id: idRef('Idea'), project_id: scopeField }),
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: true },
  presentation: { kind: 'ack', render: (r: WriteAnswer) => `idea ${shortId(r.id)} ${r.state}` },
  async run(ctx, input) {
    const project = await scope(ctx.tx, input.project_id);
    const idea = await lockIdea(ctx.tx, parseIdRef(input.idea_id, 'idea_id'), project?.id);
    ideaTransition(idea, 'redact');
    const redacted = await redactIdea(ctx.tx, idea.id, ctx.actor?.id ?? null);
    ctx.audit({ project_id: idea.project_id, target_kind: 'idea', target_id: idea.id });
    return writeAnswer({ id: redacted.id, state: 'redacted' });
  },
});
