import { addLink } from '@svc/store';
import { defineOperation } from '../operation.js';
import { ends, input } from './link-shared.js';

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
