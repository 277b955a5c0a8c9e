import { z } from 'zod';
import { idRef, scopeOfId } from '../inputs.js';

export const RESUME_UNITS = 5;

export const RESUME_TASKS = 200;

export const RESUME_CHECKS = 200;

export const closeInput = z.object({
  work_unit_id: idRef('Work unit'),
  force: z.boolean().optional().describe('Close even while a task is in progress (default false)'),
  project_id: scopeOfId,
});
