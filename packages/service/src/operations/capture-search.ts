import { parseQuery, planQuery } from '@svc/domain';
import { refuseWordless } from '@svc/store';
import { z } from 'zod';
import { searchQuery, truncation, wordlessQuery } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { capturePage, filedUnder, listFilters } from './capture-shared.js';

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
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const query = input.query?.trim() ?? '';
    const plan = query === '' ? undefined : planQuery(parseQuery(query));
    const project_id = await filedUnder(ctx, input.project_id);
    if (query !== '' && !plan) throw wordlessQuery();
    if (plan) await refuseWordless(ctx.db, plan);
    const { captures, limited, sized } = await capturePage(ctx, input, { project_id, plan });
    return { captures, truncated: truncation({ limit: limited, size: sized }) };
  },
});
