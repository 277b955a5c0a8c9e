import { rejectTerm } from '@svc/store';
import { z } from 'zod';
import { MAX_REASON } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { decision, termToDecide } from './glossary-shared.js';

export const glossaryTermReject = defineOperation({
  name: 'glossary_term_reject',
  surface: 'operator',
  title: 'Reject a proposed glossary term',
  description: 'Reject a proposed term: it leaves the queue, is remembered as rejected and never expands searches.',
  input: decision.extend({ reason: z.string().max(MAX_REASON).optional().describe('Why it was rejected') }),
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(ctx, input) {
    const { project, term } = await termToDecide(ctx, input, 'reject');
    await rejectTerm(ctx.tx, term, input.reason ?? '', ctx.actor?.id ?? null);
    ctx.audit({ project_id: project.id, target_kind: 'glossary_term', target_id: term.id, details: { status: 'rejected' } });
    return { rejected: { id: term.id, term: term.term, group: term.group_name } };
  },
});
