import { acceptTerm } from '@svc/store';
import { defineOperation } from '../operation.js';
import { decision, termToDecide } from './glossary-shared.js';

export const glossaryTermAccept = defineOperation({
  name: 'glossary_term_accept',
  surface: 'operator',
  title: 'Accept a proposed glossary term',
  description: 'Accept a proposed term: it leaves the review queue and expands searches.',
  input: decision,
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const { project, term } = await termToDecide(ctx, input, 'accept');
    const accepted = await acceptTerm(ctx.tx, term);
    ctx.audit({ project_id: project.id, target_kind: 'glossary_term', target_id: term.id, details: { status: 'accepted' } });
    return accepted;
  },
});
