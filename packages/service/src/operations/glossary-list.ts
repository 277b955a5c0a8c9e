import type { GlossaryTermStatus } from '@svc/domain';
import { listGroups, resolveProject, termsOfGroups } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

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
    const of = (groupId: string, status: GlossaryTermStatus) =>
      terms.filter((t) => t.group_id === groupId && t.status === status).map((t) => ({ id: t.id, term: t.term, created_at: t.created_at }));
    return {
      groups: groups.map((g) => ({ id: g.id, name: g.name, accepted: of(g.id, 'accepted'), proposed: of(g.id, 'proposed') })),
      truncated: rows.length > max,
    };
  },
});
