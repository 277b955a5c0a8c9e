import { parseQuery, planQuery } from '@svc/domain';
import { listCaptures } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, searchQuery, truncation, withinTextBudget } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { filedUnder, listFilters } from './capture-shared.js';

export const captureSearch = defineOperation({
  name: 'svc_capture_search',
  surface: 'tool',
  title: 'Search captures',
  description:
    'Search capture text and summary (item-search dialect; empty query only filters). Discarded and redacted ' +
    'ones are hidden unless asked for; redacted text cannot match. project_id: only those filed under it. ' +
    'Returns {captures, truncated}; truncated: false or ["limit"].',
  input: z.object({ query: searchQuery('Search text; empty lists by filters only').optional(), ...listFilters }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const max = boundedLimit(input.limit);
    const query = input.query?.trim() ?? '';
    const plan = query === '' ? undefined : planQuery(parseQuery(query));
    const project_id = await filedUnder(ctx, input.project_id);
    if (query !== '' && !plan) return { captures: [], truncated: false };
    const rows = await listCaptures(
      ctx.db,
      {
        project_id,
        review_state: input.review_state,
        include_discarded: input.include_discarded ?? false,
        include_redacted: input.include_redacted ?? false,
        plan,
      },
      max,
    );
    const page = withinTextBudget(rows.slice(0, max), (c) => c.text.length + (c.summary?.length ?? 0));
    return { captures: page.rows, truncated: truncation({ limit: rows.length > max, size: page.cut }) };
  },
});
