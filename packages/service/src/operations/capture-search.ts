import { boundSearch } from '@svc/store';
import { z } from 'zod';
import { searchQuery, truncation } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { timeLeft } from '../searches.js';
import { capturePage, filedUnder, listFilters } from './capture-shared.js';
import { filterSearchPlan } from './search-shared.js';

export const captureSearch = defineOperation({
  name: 'svc_capture_search',
  surface: 'tool',
  title: 'Search captures',
  description:
    'Search capture text and summary (item_search dialect; empty: filters only). Discarded and redacted ' +
    'ones hidden unless asked for; redacted text cannot match. project_id: only those filed there. ' +
    'Returns {captures, truncated}; truncated: false or why cut (limit, size).',
  input: z.object({ query: searchQuery('Search text; empty lists by filters only').optional(), ...listFilters }),
  kind: 'read',
  search: true,
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    await boundSearch(ctx.db, timeLeft(ctx));
    const plan = await filterSearchPlan(ctx, input.query);
    const project_id = await filedUnder(ctx, input.project_id);
    const { captures, limited, sized } = await capturePage(ctx, input, { project_id, plan });
    return { captures, truncated: truncation({ limit: limited, size: sized }) };
  },
});
