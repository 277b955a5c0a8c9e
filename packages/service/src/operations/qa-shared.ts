import { qaStatusOf, qaTransition } from '@svc/domain';
import { z } from 'zod';
import { ITEM_ANSWER, writeAnswer } from '../answers.js';
import { idRef, MAX_NOTE, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { changeStatus, lockItemOfType, scope } from '../work/shared.js';

const qaRef = idRef('QA check');

const scopeField = projectRef.optional().describe('Scope ids to this project');

export function decide<const N extends 'svc_qa_pass' | 'svc_qa_fail'>(name: N, trigger: 'pass' | 'fail') {
  return defineOperation({
    name,
    surface: 'tool',
    title: trigger === 'pass' ? 'Pass a QA check' : 'Fail a QA check',
    description: `Mark a pending QA check ${trigger === 'pass' ? 'passed' : 'failed'} (final), with an optional note. ${ITEM_ANSWER}.`,
    input: z.object({
      qa_id: qaRef,
      note: z.string().max(MAX_NOTE).optional().describe('What was verified or what went wrong'),
      project_id: scopeField,
    }),
    kind: 'write',
    annotations: { destructiveHint: false, idempotentHint: false },
    async run(ctx, input) {
      const check = await lockItemOfType(ctx, input.qa_id, 'qa_check', await scope(ctx.tx, input.project_id), 'qa_id');
      const next = qaTransition(qaStatusOf(check), trigger);
      const note = input.note?.trim() || undefined;
      const decided = await changeStatus(ctx, check, next, note ? { ...check.context, note } : undefined);
      ctx.audit({ project_id: check.project_id, target_kind: 'qa_check', target_id: check.id, details: { to: next } });
      return writeAnswer(decided);
    },
  });
}
