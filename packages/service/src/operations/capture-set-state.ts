import { captureMoveEvent, captureTransition } from '@svc/domain';
import { updateCapture } from '@svc/store';
import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, answer, captureRef, lock } from './capture-shared.js';

export const captureSetState = defineOperation({
  name: 'svc_capture_set_state',
  surface: 'tool',
  title: 'Move a capture between review states',
  description:
    'Move a capture to inbox, review or discarded (redact and promote have their own tools). Answers `capture <id> <state>`.',
  input: z.object({
    capture_id: captureRef,
    review_state: z.string().max(40).describe('inbox, review or discarded'),
    actor_id: actorId,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const event = captureMoveEvent(input.review_state);
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, event);
    const updated = await updateCapture(ctx.tx, capture.id, { review_state: target });
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id, details: { from: capture.review_state, to: target } });
    return answer(updated);
  },
});
