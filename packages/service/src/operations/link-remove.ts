import { SvcError } from '@svc/domain';
import { removeLink } from '@svc/store';
import { defineOperation } from '../operation.js';
import { ends, input } from './link-shared.js';

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
