import { promotionProjects } from '@svc/store';
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { capturePage, stateFilters } from './capture-shared.js';

/**
 * The shared inbox (docs/decisions/0025): the captures filed under no project, what svc_capture_add keeps when it
 * is given none. svc_capture_list has no such filter (omitted, its project_id means every capture); the web view
 * triages the shared inbox from this list. A promoted capture names the project it was promoted into.
 */
export const inboxList = defineOperation({
  name: 'inbox_list',
  surface: 'operator',
  title: 'List the shared inbox',
  description:
    'List the captures filed under no project (the shared inbox), newest first, with the filters of svc_capture_list. ' +
    'A promoted one names the project it went to. Returns {captures, truncated}.',
  input: z.object(stateFilters),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const { captures, limited, sized } = await capturePage(ctx, input, { project_id: null });
    const promotedInto = await promotionProjects(
      ctx.db,
      captures.filter((c) => c.promoted_item_id !== null).map((c) => c.id),
    );
    return { captures: captures.map((c) => ({ ...c, promoted_project_id: promotedInto.get(c.id) ?? null })), truncated: limited || sized };
  },
});
