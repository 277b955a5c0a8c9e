import { parseIdRef } from '@svc/domain';
import { resolveCapture, resolveProject } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { captureRef } from './capture-shared.js';

/**
 * One capture of a project, by id: what the web inbox reads before it acts on a capture named in its URL, so
 * that a capture of another project (or of the shared inbox) is not found there. A redacted capture shows only
 * [redacted], as in the list.
 */
export const captureShow = defineOperation({
  name: 'capture_show',
  surface: 'operator',
  title: 'Show a capture',
  description: 'Show one capture filed under a project (a capture of another project or of the shared inbox is not found).',
  input: z.object({ project_id: projectRef, capture_id: captureRef }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    // The prefix resolves among this project's captures only: another project's are neither found nor named.
    return resolveCapture(ctx.db, parseIdRef(input.capture_id, 'capture_id'), project.id);
  },
});
