import { listCaptures } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, withinTextBudget } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { filedUnder, listFilters } from './capture-shared.js';

export const captureList = defineOperation({
  name: 'svc_capture_list',
  surface: 'tool',
  title: 'List captures',
  description:
    'List captures, newest first. Discarded and redacted ones are hidden unless asked for; redacted ones show ' +
    'only [redacted]. project_id: only those filed under it. Returns {captures, truncated}.',
  input: z.object(listFilters),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const max = boundedLimit(input.limit);
    const project_id = await filedUnder(ctx, input.project_id);
    const rows = await listCaptures(
      ctx.db,
      { project_id, review_state: input.review_state, include_discarded: input.include_discarded ?? false, include_redacted: input.include_redacted ?? false },
      max,
    );
    const page = withinTextBudget(rows.slice(0, max), (c) => c.text.length + (c.summary?.length ?? 0));
    return { captures: page.rows, truncated: rows.length > max || page.cut };
  },
});
