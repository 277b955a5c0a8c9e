import { parseIdRef } from '@svc/domain';
import { resolveCapture } from '@svc/store';
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { captureRef } from './capture-shared.js';

/**
 * One capture of the shared inbox, by id: what the web's shared inbox reads before it acts on a capture named in
 * its URL, as capture_show does for a project's inbox. A capture filed under a project is not found here.
 */
export const inboxShow = defineOperation({
  name: 'inbox_show',
  surface: 'operator',
  title: 'Show a capture of the shared inbox',
  description: 'Show one capture of the shared inbox (one filed under a project is not found).',
  input: z.object({ capture_id: captureRef }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    // The prefix resolves among the shared inbox's captures only.
    return resolveCapture(ctx.db, parseIdRef(input.capture_id, 'capture_id'), null);
  },
});
