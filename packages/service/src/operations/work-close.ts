import { refuseCloseWhileRunning, workUnitTransition } from '@svc/domain';
import { inProgressTasks, setWorkUnitStatus } from '@svc/store';
import { writeAnswer } from '../answers.js';
import { defineOperation } from '../operation.js';
import { lockScopedWorkUnit } from '../work/shared.js';
import { closeInput } from './work-shared.js';

export const workClose = defineOperation({
  name: 'svc_work_close',
  surface: 'tool',
  title: 'Close a work unit',
  description:
    'Close a work unit. Refused while one of its tasks is in progress, unless force (the task stays as it is). ' +
    'Returns {id, status}.',
  input: closeInput,
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const unit = await lockScopedWorkUnit(ctx, input.work_unit_id, input.project_id);
    const next = workUnitTransition(unit.status, 'close');
    const running = await inProgressTasks(ctx.tx, unit.id);
    refuseCloseWhileRunning(unit.id, running, input.force === true);
    const closed = await setWorkUnitStatus(ctx.tx, unit.id, next);
    ctx.audit({ project_id: unit.project_id, target_kind: 'work_unit', target_id: unit.id, details: { forced: running.length > 0 } });
    return writeAnswer(closed);
  },
});
