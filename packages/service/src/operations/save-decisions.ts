import { resolveProject } from '@svc/store';
import { z } from 'zod';
import { body, context, linkInput, projectRef, title } from '../inputs.js';
import { createItem, prepareItemValues, resolveLinkTargets } from '../items/write.js';
import { defineOperation } from '../operation.js';

export const saveDecisions = defineOperation({
  name: 'svc_save_decisions',
  surface: 'tool',
  title: 'Save several decisions at once',
  description:
    'Batch-save decisions ONLY when the user explicitly asks; never on your own initiative. All entries are ' +
    'validated first: one bad entry writes nothing and the error names its index and field. Returns {created: [ids]} in order.',
  input: z.object({
    project_id: projectRef,
    decisions: z
      .array(
        z.object({
          title,
          body: body.optional(),
          context: context.optional(),
          system_id: z.string().max(200).optional().describe('System of the project (id, prefix or name)'),
          links: z.array(linkInput).max(100).optional(),
        }),
      )
      .min(1)
      .max(500)
      .describe('The decisions to save (1 to 500)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    // Validate and resolve every entry before the first write.
    const prepared = [];
    for (const [i, decision] of input.decisions.entries()) {
      const prefix = `decisions[${i}].`;
      const values = await prepareItemValues(
        ctx,
        project,
        {
          item_type: 'decision',
          title: decision.title,
          body: decision.body ?? '',
          context: decision.context ?? {},
          system_id: decision.system_id,
        },
        prefix,
      );
      const links = await resolveLinkTargets(ctx, project, decision.links ?? [], prefix);
      prepared.push({ values, links, prefix });
    }
    const created: string[] = [];
    for (const { values, links, prefix } of prepared) {
      created.push((await createItem(ctx, project, values, links, prefix)).id);
    }
    ctx.audit({ project_id: project.id, target_kind: 'item', details: { created_ids: created, count: created.length } });
    return { created };
  },
});
