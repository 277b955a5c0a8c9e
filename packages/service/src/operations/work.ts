import { type Item, refuseCloseWhileRunning, workUnitTransition } from '@svc/domain';
import {
  findWorkUnitsByKeyword,
  inProgressTasks,
  insertWorkUnit,
  listQaChecks,
  listTasks,
  lockWorkUnit,
  resolveProject,
  resolveSystem,
  setWorkUnitStatus,
} from '@svc/store';
import { z } from 'zod';
import { writeAnswer } from '../answers.js';
import { idRef, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { findWorkUnit, scope } from '../work/shared.js';

export const RESUME_UNITS = 5;
export const RESUME_TASKS = 200;
const RESUME_CHECKS = 200;

export const workOpen = defineOperation({
  name: 'svc_work_open',
  surface: 'tool',
  title: 'Open a work unit',
  description: 'Open a work unit (a piece of work grouping tasks and QA checks). Returns {id, status}.',
  input: z.object({
    project_id: projectRef,
    title: z.string().trim().min(1).max(500).describe('What the work is'),
    description: z.string().max(100_000).optional().describe('Longer description'),
    system_id: z.string().max(200).optional().describe('System of the project (id, prefix or name)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const system = input.system_id ? await resolveSystem(ctx.tx, project.id, input.system_id) : null;
    const unit = await insertWorkUnit(ctx.tx, {
      project_id: project.id,
      system_id: system?.id ?? null,
      title: input.title,
      description: input.description ?? '',
      created_by: ctx.actor?.id ?? null,
    });
    ctx.audit({ project_id: project.id, target_kind: 'work_unit', target_id: unit.id });
    return writeAnswer(unit);
  },
});

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

const closeInput = z.object({
  work_unit_id: idRef('Work unit'),
  force: z.boolean().optional().describe('Close even while a task is in progress (default false)'),
  project_id: projectRef.optional().describe('Resolve the id only inside this project'),
});

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
    const project = await scope(ctx.tx, input.project_id);
    const found = await findWorkUnit(ctx.tx, input.work_unit_id, project);
    const unit = await lockWorkUnit(ctx.tx, found.id);
    const next = workUnitTransition(unit.status, 'close');
    const running = await inProgressTasks(ctx.tx, unit.id);
    refuseCloseWhileRunning(unit.id, running, input.force === true);
    const closed = await setWorkUnitStatus(ctx.tx, unit.id, next);
    ctx.audit({ project_id: unit.project_id, target_kind: 'work_unit', target_id: unit.id, details: { forced: running.length > 0 } });
    return writeAnswer(closed);
  },
});

export const workReopen = defineOperation({
  name: 'work_reopen',
  surface: 'operator',
  title: 'Reopen a work unit',
  description: 'Reopen a closed work unit.',
  input: z.object({ work_unit_id: idRef('Work unit'), project_id: projectRef.optional() }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await scope(ctx.tx, input.project_id);
    const found = await findWorkUnit(ctx.tx, input.work_unit_id, project);
    const unit = await lockWorkUnit(ctx.tx, found.id);
    const reopened = await setWorkUnitStatus(ctx.tx, unit.id, workUnitTransition(unit.status, 'reopen'));
    ctx.audit({ project_id: unit.project_id, target_kind: 'work_unit', target_id: unit.id });
    return writeAnswer(reopened);
  },
});
