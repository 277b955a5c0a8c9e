import { type GlossaryEntryEvent, type GlossaryTermEvent, glossaryEntryTransition, glossaryTermTransition, parseIdRef } from '@svc/domain';
import { entryState, findGroupByName, insertTerm, resolveProject, resolveTerm } from '@svc/store';
import { z } from 'zod';
import { idRef, MAX_NAME, projectRef } from '../inputs.js';
import { defineOperation, type WriteContext } from '../operation.js';

export const groupName = z.string().trim().min(1).max(MAX_NAME).describe('Glossary group name (a set of synonyms)');

const termText = z.string().trim().min(1).max(MAX_NAME).describe('The term (a word or a short phrase)');

export function termOperation<const N extends string>(name: N, event: GlossaryEntryEvent, description: string) {
  return defineOperation({
    name,
    surface: 'operator',
    title: event === 'add' ? 'Add a glossary term' : 'Propose a glossary term',
    description,
    input: z.object({ project_id: projectRef, group: groupName, term: termText }),
    kind: 'write',
    annotations: { destructiveHint: false, idempotentHint: false },
    async run(ctx, input) {
      const project = await resolveProject(ctx.tx, input.project_id);
      const group = await findGroupByName(ctx.tx, project.id, input.group);
      const from = await entryState(ctx.tx, group, input.term);
      const status = glossaryEntryTransition(input.term, group.name, from, event);
      const term = await insertTerm(ctx.tx, group, input.term, status, ctx.actor?.id ?? null, from);
      ctx.audit({ project_id: project.id, target_kind: 'glossary_term', target_id: term.id, details: { status } });
      return term;
    },
  });
}

export const decision = z.object({
  project_id: projectRef,
  term_id: idRef('Glossary term'),
});

/** The term a review decision names, inside its project, once the review table allows `event` on it. */
export async function termToDecide(ctx: WriteContext, input: z.output<typeof decision>, event: GlossaryTermEvent) {
  const project = await resolveProject(ctx.tx, input.project_id);
  const term = await resolveTerm(ctx.tx, project.id, parseIdRef(input.term_id, 'term_id'));
  glossaryTermTransition(term, event);
  return { project, term };
}
