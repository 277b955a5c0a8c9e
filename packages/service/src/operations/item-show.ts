import { parseIdRef } from '@svc/domain';
import { resolveProject, showItem } from '@svc/store';
import { itemInProject } from '../inputs.js';
import { defineOperation } from '../operation.js';

/** Links listed with an item; the rest are counted out by `truncated` (project_export lists them all). */
const MAX_LINKS = 200;

export const itemShow = defineOperation({
  name: 'item_show',
  surface: 'operator',
  title: 'Show an item',
  description:
    'Show the current version of an item (any version id or prefix resolves to it), with its links, oldest first: ' +
    `at most ${MAX_LINKS}. Returns {item, links, truncated}.`,
  input: itemInProject,
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const projectId = input.project_id ? (await resolveProject(ctx.db, input.project_id)).id : undefined;
    return showItem(ctx.db, parseIdRef(input.item_id, 'item_id'), { projectId, maxLinks: MAX_LINKS });
  },
});
