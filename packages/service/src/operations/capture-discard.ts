import { captureTransition } from '@svc/domain';
import { updateCapture } from '@svc/store';
import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, answer, captureRef, lock } from './capture-shared.js';

export const captureDiscard = defineOperation({
  name: 'svc_capture_discard',
  surface: 'tool',
  title: 'Discard a capture',
  description: 'Mark a capture discarded: hidden from the default list and search (the text is kept; redact to remove it).',
  input: z.object({ capture_id: captureRef, actor_id: actorId }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, 'discard');
    const updated = await updateCapture(ctx.tx, capture.id, { review_state: target });
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id, details: { from: capture.review_state, to: target } });
    return answer(updated);
  },
});
