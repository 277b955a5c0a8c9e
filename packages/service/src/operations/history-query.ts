import { invalidInput, isSemanticImpact, parseIdRef, SEMANTIC_IMPACTS } from '@svc/domain';
import { queryHistory, resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, isoTime, itemRef, limit, projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const historyQuery = defineOperation({
  name: 'svc_history_query',
  surface: 'tool',
  title: 'Query item history',
  description:
    'List changes to items, newest first: creations, new versions (with semantic-impact labels), status changes, ' +
    'deletions; filter by item (any version id), since and labels (any of). Returns {entries, truncated}.',
  input: z.object({
    project_id: projectRef,
    item_id: itemRef.optional().describe('Only this item (any version id or prefix)'),
    since: isoTime('Only changes at or after this ISO 8601 time').optional(),
    semantic_impacts: z
      .array(z.string().max(40))
      .max(7)
      .optional()
      .describe(
        'Only changes with any of these labels: numeric_change, rule_addition, rule_removal, status_change, scope_change, context_change, wording_change',
      ),
    limit,
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    for (const [i, label] of (input.semantic_impacts ?? []).entries()) {
      if (!isSemanticImpact(label)) {
        throw invalidInput(`semantic_impacts[${i}]`, `unknown category '${label}'; known: ${SEMANTIC_IMPACTS.join(', ')}`);
      }
    }
    const project = await resolveProject(ctx.db, input.project_id);
    const chainId = input.item_id
      ? (await resolveItem(ctx.db, parseIdRef(input.item_id, 'item_id'), { projectId: project.id, includeDeleted: true })).head.chain_id
      : undefined;
    const max = boundedLimit(input.limit);
    const entries = await queryHistory(ctx.db, {
      project_id: project.id,
      chain_id: chainId,
      since: input.since,
      semantic_impacts: input.semantic_impacts,
      limit: max,
    });
    return { entries: entries.slice(0, max), truncated: entries.length > max };
  },
});
