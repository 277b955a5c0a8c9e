import { glossaryTermTransition, parseIdRef } from '@svc/domain';
import {
  acceptTerm,
  findGroupByName,
  insertGroup,
  insertTerm,
  listGroups,
  rejectTerm,
  resolveProject,
  resolveTerm,
  reviewQueue,
  termsOfGroups,
} from '@svc/store';
import { z } from 'zod';
import { boundedLimit, idRef, limit, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

const groupName = z.string().trim().min(1).max(200).describe('Glossary group name (a set of synonyms)');
const termText = z.string().trim().min(1).max(200).describe('The term (a word or a short phrase)');

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

function termOperation<const N extends string>(name: N, status: 'accepted' | 'proposed', description: string) {
  return defineOperation({
    name,
    surface: 'operator',
    title: status === 'accepted' ? 'Add a glossary term' : 'Propose a glossary term',
    description,
    input: z.object({ project_id: projectRef, group: groupName, term: termText }),
    kind: 'write',
    annotations: { destructiveHint: false, idempotentHint: false },
    async run(ctx, input) {
      const project = await resolveProject(ctx.tx, input.project_id);
      const group = await findGroupByName(ctx.tx, project.id, input.group);
      const term = await insertTerm(ctx.tx, group, input.term, status, ctx.actor?.id ?? null);
      ctx.audit({ project_id: project.id, target_kind: 'glossary_term', target_id: term.id, details: { status } });
      return term;
    },
  });
}

export const glossaryTermAdd = termOperation(
  'glossary_term_add',
  'accepted',
  'Add an accepted term to a group; searches for any term of the group then find the others.',
);
export const glossaryTermPropose = termOperation(
  'glossary_term_propose',
  'proposed',
  'Propose a term for a group; it joins the review queue and expands searches only once accepted.',
);

const decision = z.object({
  project_id: projectRef,
  term_id: idRef('Glossary term'),
});

export const glossaryTermAccept = defineOperation({
  name: 'glossary_term_accept',
  surface: 'operator',
  title: 'Accept a proposed glossary term',
  description: 'Accept a proposed term: it leaves the review queue and expands searches.',
  input: decision,
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const term = await resolveTerm(ctx.tx, project.id, parseIdRef(input.term_id, 'term_id'));
    glossaryTermTransition(term, 'accept');
    const accepted = await acceptTerm(ctx.tx, term);
    ctx.audit({ project_id: project.id, target_kind: 'glossary_term', target_id: term.id, details: { status: 'accepted' } });
    return accepted;
  },
});

export const glossaryTermReject = defineOperation({
  name: 'glossary_term_reject',
  surface: 'operator',
  title: 'Reject a proposed glossary term',
  description: 'Reject a proposed term: it leaves the queue, is remembered as rejected and never expands searches.',
  input: decision.extend({ reason: z.string().max(2000).optional().describe('Why it was rejected') }),
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const term = await resolveTerm(ctx.tx, project.id, parseIdRef(input.term_id, 'term_id'));
    glossaryTermTransition(term, 'reject');
    await rejectTerm(ctx.tx, term, input.reason ?? '', ctx.actor?.id ?? null);
    ctx.audit({ project_id: project.id, target_kind: 'glossary_term', target_id: term.id, details: { status: 'rejected' } });
    return { rejected: { id: term.id, term: term.term, group: term.group_name } };
  },
});

export const glossaryQueue = defineOperation({
  name: 'glossary_queue',
  surface: 'operator',
  title: 'Glossary review queue',
  description: 'List proposed glossary terms awaiting review, oldest first.',
  input: z.object({ project_id: projectRef, limit }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    const max = boundedLimit(input.limit);
    const terms = await reviewQueue(ctx.db, project.id, max);
    return { terms: terms.slice(0, max), truncated: terms.length > max };
  },
});

export const glossaryList = defineOperation({
  name: 'glossary_list',
  surface: 'operator',
  title: 'List the glossary',
  description:
    "List a project's glossary: each group by name, with its accepted terms (which expand searches) and its " +
    'pending proposals (awaiting accept or reject), alphabetically. Rejected terms are not listed.',
  input: z.object({ project_id: projectRef, limit }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    const max = boundedLimit(input.limit);
    const rows = await listGroups(ctx.db, project.id, max);
    const groups = rows.slice(0, max);
    const terms = await termsOfGroups(
      ctx.db,
      groups.map((g) => g.id),
    );
    const of = (groupId: string, status: 'accepted' | 'proposed') =>
      terms.filter((t) => t.group_id === groupId && t.status === status).map((t) => ({ id: t.id, term: t.term, created_at: t.created_at }));
    return {
      groups: groups.map((g) => ({ id: g.id, name: g.name, accepted: of(g.id, 'accepted'), proposed: of(g.id, 'proposed') })),
      truncated: rows.length > max,
    };
  },
});
