import { listItemTypes, projectSlugsByPrefix, resolveProject, workUnitsByIdPrefix } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

/** What completion completes: the one list MCP's completions ask it for. */
const COMPLETION_KINDS = ['project', 'item_type', 'work_unit'] as const;
export type CompletionKind = (typeof COMPLETION_KINDS)[number];

/** MCP caps a completion at 100 values. */
const MAX_VALUES = 100;

/**
 * Values an argument may take, for completion (MCP completion/complete; a shell could use it too): project
 * slugs, item type keys, work-unit ids. Reads only; what it cannot match it answers with no values.
 */
export const completion = defineOperation({
  name: 'completion',
  surface: 'operator',
  title: 'Complete an argument',
  description:
    'Values starting with prefix for one kind of argument: project slugs, item type keys, or work-unit ids (open ' +
    'ones first; only of project_id when given). Returns {values, truncated}.',
  input: z.object({
    kind: z.enum(COMPLETION_KINDS).describe('What the argument names'),
    prefix: z.string().max(200).optional().describe('What has been typed so far (default: nothing)'),
    project_id: projectRef.optional().describe('Only work units of this project'),
    limit: z.number().int().min(1).max(MAX_VALUES).optional().describe(`Maximum values (default and at most ${MAX_VALUES})`),
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input): Promise<{ values: string[]; truncated: boolean }> {
    const prefix = input.prefix?.trim() ?? '';
    const max = input.limit ?? MAX_VALUES;
    let values: string[];
    switch (input.kind) {
      case 'project':
        values = await projectSlugsByPrefix(ctx.db, prefix, max);
        break;
      case 'item_type':
        values = (await listItemTypes(ctx.db)).map((t) => t.key).filter((key) => key.startsWith(prefix.toLowerCase()));
        break;
      case 'work_unit': {
        if (prefix !== '' && !/^[0-9a-f-]+$/i.test(prefix)) return { values: [], truncated: false };
        const projectId = input.project_id ? (await resolveProject(ctx.db, input.project_id)).id : undefined;
        values = (await workUnitsByIdPrefix(ctx.db, { prefix, project_id: projectId }, max)).map((u) => u.id);
        break;
      }
    }
    return { values: values.slice(0, max), truncated: values.length > max };
  },
});
