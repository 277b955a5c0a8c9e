import { parseIdRef } from '@svc/domain';
import { listChainVersions, queryHistory, resolveItem, resolveProject } from '@svc/store';
import { itemInProject } from '../inputs.js';
import { defineOperation } from '../operation.js';

const MAX_VERSIONS = 200;

export const itemHistory = defineOperation({
  name: 'item_history',
  surface: 'operator',
  title: 'Versions and history of an item',
  description:
    `The versions of an item, oldest first, and its history entries, newest first: the latest ${MAX_VERSIONS} of each. ` +
    'Returns {chain_id, head_id, versions, entries, truncated}.',
  input: itemInProject,
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const projectId = input.project_id ? (await resolveProject(ctx.db, input.project_id)).id : undefined;
    const { head } = await resolveItem(ctx.db, parseIdRef(input.item_id, 'item_id'), { projectId, includeDeleted: true });
    const versions = await listChainVersions(ctx.db, head.chain_id, MAX_VERSIONS + 1);
    const entries = await queryHistory(ctx.db, { project_id: head.project_id, chain_id: head.chain_id, limit: MAX_VERSIONS });
    return {
      chain_id: head.chain_id,
      head_id: head.id,
      versions: versions.slice(-MAX_VERSIONS),
      entries: entries.slice(0, MAX_VERSIONS),
      truncated: versions.length > MAX_VERSIONS || entries.length > MAX_VERSIONS,
    };
  },
});
