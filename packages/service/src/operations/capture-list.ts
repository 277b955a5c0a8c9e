import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { capturePage, filedUnder, listFilters } from './capture-shared.js';

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
    const { captures, limited, sized } = await capturePage(ctx, input, { project_id: await filedUnder(ctx, input.project_id) });
    return { captures, truncated: limited || sized };
  },
});
