import type { Item } from '@svc/domain';
import { findWorkUnitsByKeyword, listQaChecks, listTasks, resolveProject } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { RESUME_CHECKS, RESUME_TASKS, RESUME_UNITS } from './work-shared.js';

export const workResume = defineOperation({
  name: 'svc_work_resume',
  surface: 'tool',
  title: 'Resume work',
  description:
    `Pick work back up: up to ${RESUME_UNITS} work units whose title contains keyword (open first; latest when ` +
    'empty; narrow the keyword to reach others) with their current tasks (by sort_order) and QA checks, at most ' +
    `${RESUME_TASKS} tasks and ${RESUME_CHECKS} checks in all. Returns exactly {work_units, tasks, qa_checks}; a ` +
    "unit's truncated {tasks, qa_checks} says some were left out; the last unit's truncated.work_units, that more units matched.",
  input: z.object({
    project_id: projectRef,
    keyword: z.string().max(200).optional().describe('Part of the work unit title'),
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    // One unit more than listed tells whether more matched; the last listed unit says so (decision 0029).
    const matched = await findWorkUnitsByKeyword(ctx.db, project.id, input.keyword?.trim() ?? '', RESUME_UNITS + 1);
    const units = matched.slice(0, RESUME_UNITS);
    // Unit by unit, reading only what still fits plus one row, which tells whether the unit's list was cut (the
    // spec fixes the three top-level keys, so the cut is told on each work unit). A check may belong to two
    // units: it is listed once, so reading one unit's checks skips as many rows as were already listed.
    const tasks: Item[] = [];
    const checks = new Map<string, Item>();
    const workUnits = [];
    for (const unit of units) {
      const taskRoom = RESUME_TASKS - tasks.length;
      const unitTasks = await listTasks(ctx.db, [unit.id], undefined, taskRoom);
      tasks.push(...unitTasks.slice(0, taskRoom));
      // room + already listed = RESUME_CHECKS rows (+1) cover the room even when every listed check recurs.
      const checkRoom = RESUME_CHECKS - checks.size;
      const rows = await listQaChecks(ctx.db, { project_id: project.id, work_unit_id: unit.id }, RESUME_CHECKS);
      const fresh = rows.filter((c) => !checks.has(c.chain_id));
      for (const c of fresh.slice(0, checkRoom)) checks.set(c.chain_id, c);
      const moreUnits = unit === units[units.length - 1] && matched.length > units.length;
      workUnits.push({ ...unit, truncated: { tasks: unitTasks.length > taskRoom, qa_checks: fresh.length > checkRoom, work_units: moreUnits } });
    }
    return { work_units: workUnits, tasks, qa_checks: [...checks.values()] };
  },
});
