import { isUuid, SvcError } from '@svc/domain';
import { boundSearch, listIdeas, resolveProject } from '@svc/store';
import { z } from 'zod';
import { actorRef, boundedLimit, boundedPage, isoTime, limit, projectRef, searchQuery, truncation } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { timeLeft } from '../searches.js';
import { findWorkUnit } from '../work/shared.js';
import { filterSearchPlan } from './search-shared.js';

export const ideaSearch = defineOperation({
  name: 'svc_idea_search',
  surface: 'tool',
  title: 'Search ideas (legacy)',
  description:
    "Search a project's ideas (item_search dialect; empty: filters only), newest first, narrowed by " +
    'work unit, author, time [since, until). Returns {ideas, truncated}; truncated: false or why cut (limit, size).',
  input: z.object({
    project_id: projectRef,
    query: searchQuery('Search text; empty lists by filters only').optional(),
    work_unit_id: z.string().max(100).optional().describe('Only this work unit'),
    author_id: actorRef('Only ideas by this actor (UUID)').optional(),
    since: isoTime('Only ideas at or after this ISO 8601 time').optional(),
    until: isoTime('Only ideas before this ISO 8601 time').optional(),
    limit,
  }),
  kind: 'read',
  search: true,
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    await boundSearch(ctx.db, timeLeft(ctx));
    // The query first, as capture and item search read it: a refused query is named before an unknown project.
    const plan = await filterSearchPlan(ctx, input.query);
    const project = await resolveProject(ctx.db, input.project_id);
    const unit = input.work_unit_id ? await findWorkUnit(ctx.db, input.work_unit_id, project) : undefined;
    if (input.author_id !== undefined && !isUuid(input.author_id)) {
      throw new SvcError('invalid_input', `author_id: '${input.author_id}' is not an actor UUID`, { field: 'author_id' });
    }
    const max = boundedLimit(input.limit);
    const ideas = await listIdeas(
      ctx.db,
      {
        project_id: project.id,
        work_unit_id: unit?.id,
        author_id: input.author_id?.toLowerCase(),
        since: input.since,
        until: input.until,
        plan,
      },
      max,
    );
    const page = boundedPage(ideas, max, (i) => i.text.length);
    return { ideas: page.rows, truncated: truncation({ limit: page.limited, size: page.sized }) };
  },
});
