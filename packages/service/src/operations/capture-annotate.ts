import { captureTransition, checkJsonSize } from '@svc/domain';
import { updateCapture } from '@svc/store';
import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { writeIndexed } from '../errors.js';
import { MAX_NAME, MAX_NOTE } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, answer, captureRef, lock } from './capture-shared.js';

export const captureAnnotate = defineOperation({
  name: 'svc_capture_annotate',
  surface: 'tool',
  title: 'Annotate a capture',
  description:
    'Store your hints on a capture: summary, sensitivity hint, signals (a JSON object kept as given; a hint, not ' +
    'truth). null clears summary or sensitivity_hint. Answers `capture <id> <state>`.',
  input: z.object({
    capture_id: captureRef,
    summary: z.string().max(MAX_NOTE).nullable().optional().describe('A summary you wrote; null clears it'),
    sensitivity_hint: z.string().max(MAX_NAME).nullable().optional().describe('e.g. public, internal, secret; null clears it'),
    signals: z.record(z.string(), z.unknown()).optional().describe('A JSON object of hints; anything else is rejected'),
    actor_id: actorId,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    if (input.signals !== undefined) checkJsonSize(input.signals, 'signals');
    const capture = await lock(ctx, input.capture_id);
    captureTransition(capture, 'annotate');
    // The search vector holds the text and the summary: a summary can tip it over.
    const updated = await writeIndexed(['text', 'summary'], 'capture', () =>
      updateCapture(ctx.tx, capture.id, {
        summary: input.summary,
        sensitivity_hint: input.sensitivity_hint,
        signals: input.signals,
      }),
    );
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id, details: { fields: Object.keys(input).filter((k) => k !== 'capture_id' && k !== 'actor_id') } });
    return answer(updated);
  },
});
