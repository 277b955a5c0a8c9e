import { insertCapture, resolveProject } from '@svc/store';
import { z } from 'zod';
import type { WriteAnswer } from '../answers.js';
import { writeIndexed } from '../errors.js';
import { MAX_TEXT } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { ack, actorId, answer, fileUnder } from './capture-shared.js';

export const captureAdd = defineOperation({
  name: 'svc_capture_add',
  surface: 'tool',
  title: 'Capture raw text',
  description:
    'Save raw text to the capture inbox exactly as given (nothing summarised, classified or promoted); it stays ' +
    'out of item search until promoted with svc_capture_promote. project_id files it under a project. Answers ' +
    '`capture <id> inbox`.',
  input: z.object({ text: z.string().min(1).max(MAX_TEXT).describe('The raw text to keep'), project_id: fileUnder, actor_id: actorId }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const project = input.project_id === undefined ? null : await resolveProject(ctx.tx, input.project_id);
    const capture = await writeIndexed(['text'], 'capture', () => insertCapture(ctx.tx, input.text, ctx.actor?.id ?? null, project?.id ?? null));
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id });
    return answer(capture);
  },
});
