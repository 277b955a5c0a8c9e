import { listExpiredResearch, resolveProject } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { markChainDeleted } from '../items/write.js';
import { defineOperation } from '../operation.js';

/** Items one sweep reads and, with soft_delete, deletes; more are left for the next sweep (`remaining`). */
const MAX_SWEEP = 10_000;
/** Items the answer names; `expired_count` counts them all. */
const MAX_LISTED = 200;

export const researchSweep = defineOperation({
  name: 'research_sweep',
  surface: 'operator',
  title: 'Sweep expired research',
  description:
    "List research items past the project's research.ttl_days since a person last wrote them (refreshed_at), oldest " +
    'first; with soft_delete, soft-delete them ' +
    `(restorable with svc item restore). One sweep handles up to ${MAX_SWEEP.toLocaleString('en')} and names the first ${MAX_LISTED}. ` +
    'Returns {ttl_days, expired, expired_count, soft_deleted, truncated, remaining}: truncated when expired names fewer than ' +
    'expired_count, remaining when more expired items are left for another sweep.',
  input: z.object({
    project_id: projectRef,
    soft_delete: z.boolean().optional().describe('Soft-delete the expired items (default: only list them)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const ttl = project.settings.research.ttl_days;
    const rows = await listExpiredResearch(ctx.tx, project.id, ttl, MAX_SWEEP + 1);
    const remaining = rows.length > MAX_SWEEP;
    const swept = rows.slice(0, MAX_SWEEP);
    if (input.soft_delete) {
      for (const [i, row] of swept.entries()) {
        await markChainDeleted(ctx, { ...row, project_id: project.id }, true, { reason: 'research expired' });
        ctx.progress(i + 1, swept.length, 'research');
      }
    }
    ctx.audit({ project_id: project.id, target_kind: 'project', target_id: project.id, details: { expired: swept.length, soft_deleted: input.soft_delete === true } });
    return {
      ttl_days: ttl,
      expired: swept.slice(0, MAX_LISTED).map((r) => ({ id: r.id, title: r.title, refreshed_at: new Date(r.refreshed_at).toISOString() })),
      expired_count: swept.length,
      soft_deleted: input.soft_delete === true,
      truncated: swept.length > MAX_LISTED,
      remaining,
    };
  },
});
