import { workUnitTransition } from '@svc/domain';
import { setWorkUnitStatus } from '@svc/store';
import { z } from 'zod';
import { writeAnswer } from '../answers.js';
import { idRef, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { lockScopedWorkUnit } from '../work/shared.js';

export const workReopen = defineOperation({
  name: 'work_reopen',
  surface: 'operator',
  title: 'Reopen a work unit',
  description: 'Reopen a closed work unit.',
  input: z.object({ work_unit_id: idRef('Work unit'), project_id: projectRef.optional() }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const unit = await lockScopedWorkUnit(ctx, input.work_unit_id, input.project_id);
    const reopened = await setWorkUnitStatus(ctx.tx, unit.id, workUnitTransition(unit.status, 'reopen'));
    ctx.audit({ project_id: unit.project_id, target_kind: 'work_unit', target_id: unit.id });
    return writeAnswer(reopened);
  },
});
