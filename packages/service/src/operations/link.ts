import { invalidInput, parseIdRef, SvcError } from '@svc/domain';
import { addLink, removeLink, resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { itemRef, linkType, projectRef } from '../inputs.js';
import { defineOperation, type WriteContext } from '../operation.js';

const input = z.object({
  project_id: projectRef,
  from_id: itemRef.describe('Source item (id or prefix)'),
  type: linkType.describe('Edge type: depends, blocks, supersedes or conflicts'),
  to_id: itemRef.describe('Target item (id or prefix)'),
});

async function ends(ctx: WriteContext, raw: z.output<typeof input>) {
  const project = await resolveProject(ctx.tx, raw.project_id);
  const from = (await resolveItem(ctx.tx, parseIdRef(raw.from_id, 'from_id'), { projectId: project.id, includeDeleted: true })).head;
  const to = (await resolveItem(ctx.tx, parseIdRef(raw.to_id, 'to_id'), { projectId: project.id, includeDeleted: true })).head;
  if (from.chain_id === to.chain_id) throw invalidInput('to_id', 'an item cannot link to itself');
  return { project, from, to };
}

export const linkAdd = defineOperation({
  name: 'link_add',
  surface: 'operator',
  title: 'Link two items',
  description: 'Add a typed edge between two items of one project (adding an existing edge changes nothing).',
  input,
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  async run(ctx, raw) {
    const { project, from, to } = await ends(ctx, raw);
    const { link, created } = await addLink(ctx.tx, {
      project_id: project.id,
      from_chain_id: from.chain_id,
      link_type: raw.type,
      to_chain_id: to.chain_id,
      created_by: ctx.actor?.id ?? null,
    });
    ctx.audit({ project_id: project.id, target_kind: 'link', target_id: link.id, details: { created } });
    return { link, created };
  },
});

export const linkRemove = defineOperation({
  name: 'link_remove',
  surface: 'operator',
  title: 'Remove a link',
  description: 'Remove a typed edge between two items.',
  input,
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(ctx, raw) {
    const { project, from, to } = await ends(ctx, raw);
    const removed = await removeLink(ctx.tx, {
      project_id: project.id,
      from_chain_id: from.chain_id,
      link_type: raw.type,
      to_chain_id: to.chain_id,
    });
    if (!removed) throw new SvcError('not_found', `no ${raw.type} link from ${raw.from_id} to ${raw.to_id}`);
    ctx.audit({ project_id: project.id, target_kind: 'link', details: { from: from.chain_id, to: to.chain_id, type: raw.type } });
    return { removed };
  },
});
