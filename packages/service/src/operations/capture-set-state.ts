import { captureMoveEvent } from '@svc/domain';
import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, captureRef, moveCapture } from './capture-shared.js';

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
    return moveCapture(ctx, input.capture_id, captureMoveEvent(input.review_state));
  },
});
