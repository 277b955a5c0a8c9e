import { captureTransition } from '@svc/domain';
import { redactChainText, redactCapture } from '@svc/store';
import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, answer, captureRef, lock } from './capture-shared.js';

export const captureRedact = defineOperation({
  name: 'svc_capture_redact',
  surface: 'tool',
  title: 'Redact a capture',
  description:
    'Remove a capture\'s content for good: text and summary become [redacted], hints and signals are cleared, no ' +
    'search finds the words again; the row stays. A promoted capture\'s item is redacted too (title, body, context ' +
    'of all versions; source_url keeps its origin). Irreversible. Answers `capture <id> redacted`, plus `item <id>` ' +
    'if its item was redacted.',
  input: z.object({ capture_id: captureRef, actor_id: actorId }),
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, 'redact');
    const itemId = capture.promoted_item_id;
    const versions = itemId ? await redactChainText(ctx.tx, itemId) : 0;
    const updated = await redactCapture(ctx.tx, capture.id, ctx.actor?.id ?? null);
    ctx.audit({
      project_id: capture.project_id,
      target_kind: 'capture',
      target_id: capture.id,
      details: { from: capture.review_state, to: target, ...(itemId ? { item_id: itemId, redacted_item_versions: versions } : {}) },
    });
    return answer(updated);
  },
});
