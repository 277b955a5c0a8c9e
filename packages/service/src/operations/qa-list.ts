import { parseIdRef } from '@svc/domain';
import { listQaChecks, resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, itemRef, limit, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

/**
 * Every QA check that targets an item (as an item or as a task), whatever its status: the web item page lists
 * them with their status (svc_qa_list_pending, the tool, lists only the pending ones). A deleted item is still
 * the target of its checks, so it resolves too: the page of a deleted item lists them as for any other.
 */
export const qaList = defineOperation({
  name: 'qa_list',
  surface: 'operator',
  title: 'List the QA checks targeting an item',
  description: 'List the QA checks targeting an item or task (any version id; a deleted one too), pending, passed or failed, oldest first.',
  input: z.object({ project_id: projectRef, item_id: itemRef, limit }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    const target = (await resolveItem(ctx.db, parseIdRef(input.item_id, 'item_id'), { projectId: project.id, includeDeleted: true })).head;
    const max = boundedLimit(input.limit);
    const checks = await listQaChecks(ctx.db, { project_id: project.id, item_chain_id: target.chain_id }, max);
    return { qa_checks: checks.slice(0, max), truncated: checks.length > max };
  },
});
