import { invalidInput, parseIdRef } from '@svc/domain';
import { resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { itemRef, linkType, projectRef } from '../inputs.js';
import type { WriteContext } from '../operation.js';

export const input = z.object({
  project_id: projectRef,
  from_id: itemRef.describe('Source item (id or prefix)'),
  type: linkType.describe('Edge type: depends, blocks, supersedes or conflicts'),
  to_id: itemRef.describe('Target item (id or prefix)'),
});

export async function ends(ctx: WriteContext, raw: z.output<typeof input>) {
  const project = await resolveProject(ctx.tx, raw.project_id);
  const from = (await resolveItem(ctx.tx, parseIdRef(raw.from_id, 'from_id'), { projectId: project.id, includeDeleted: true })).head;
  const to = (await resolveItem(ctx.tx, parseIdRef(raw.to_id, 'to_id'), { projectId: project.id, includeDeleted: true })).head;
  if (from.chain_id === to.chain_id) throw invalidInput('to_id', 'an item cannot link to itself');
  return { project, from, to };
}
