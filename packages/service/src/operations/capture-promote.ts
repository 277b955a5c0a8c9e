import { captureTransition, SvcError, shortId } from '@svc/domain';
import { recordPromotion, resolveProject, updateCapture } from '@svc/store';
import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { body, context, projectRef, sourceUrl, title } from '../inputs.js';
import { createItem, prepareItemValues } from '../items/write.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, answer, captureRef, lock } from './capture-shared.js';

export const capturePromote = defineOperation({
  name: 'svc_capture_promote',
  surface: 'tool',
  title: 'Promote a capture to an item',
  description:
    'Turn a capture into an item of a project (same rules as svc_item_upsert) and record the link; only when the ' +
    'human decides it belongs in project memory. body "" uses the capture text. Research needs source_url, a task ' +
    'an open work_unit_id. A filed capture goes only into its project. Answers `capture <id> promoted item <id>`.',
  input: z.object({
    capture_id: captureRef,
    project_id: projectRef,
    item_type: z.string().max(40).optional().describe("Item type key (default 'knowledge')"),
    title,
    body: body.optional().describe('Item body; empty or omitted uses the capture text'),
    context: context.optional(),
    system_id: z.string().max(200).optional().describe('System of the project (id, prefix or name)'),
    work_unit_id: z.string().max(100).optional().describe('Work unit (id or prefix); required for tasks'),
    source_url: sourceUrl.optional(),
    actor_id: actorId,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  // The capture is what it acts on (REST: /captures/{capture_id}/promote); project_id is an argument.
  addresses: ['capture_id'],
  async run(ctx, input): Promise<WriteAnswer> {
    const project = await resolveProject(ctx.tx, input.project_id);
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, 'promote');
    if (capture.project_id !== null && capture.project_id !== project.id) {
      throw new SvcError(
        'invalid_input',
        `project_id: capture ${shortId(capture.id)} is filed under another project (${shortId(capture.project_id)}); it can only be promoted into that project`,
        { field: 'project_id', capture_project_id: capture.project_id },
      );
    }
    const values = await prepareItemValues(ctx, project, {
      item_type: input.item_type ?? 'knowledge',
      title: input.title,
      body: input.body ?? capture.text,
      context: input.context ?? {},
      system_id: input.system_id,
      work_unit_id: input.work_unit_id,
      source_url: input.source_url,
    });
    const item = await createItem(ctx, project, values);
    await recordPromotion(ctx.tx, { capture_id: capture.id, item_id: item.id, project_id: project.id, promoted_by: ctx.actor?.id ?? null });
    const promoted = await updateCapture(ctx.tx, capture.id, { review_state: target });
    ctx.audit({ project_id: project.id, target_kind: 'capture', target_id: capture.id, details: { item_id: item.id } });
    return answer(promoted);
  },
});
