import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, captureRef, moveCapture } from './capture-shared.js';

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
    return moveCapture(ctx, input.capture_id, 'discard');
  },
});
