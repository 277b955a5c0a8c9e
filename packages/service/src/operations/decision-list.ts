import type { Project } from '@svc/domain';
import { currentDecisions, type DecisionEntry, resolveProject, resolveSystem } from '@svc/store';
import { z } from 'zod';
import { boundedLimit, limit, projectRef } from '../inputs.js';
import { inline } from '../markdown.js';
import { defineOperation } from '../operation.js';
import { decisionLines } from './page-sync.js';

/** Superseded items named per decision. */
const MAX_SUPERSEDED = 10;

export interface DecisionList {
  project: Pick<Project, 'id' | 'slug' | 'name'>;
  decisions: DecisionEntry[];
  truncated: boolean;
}

function render(list: DecisionList): string {
  const lines = [`# ${inline(list.project.name)} (${inline(list.project.slug)}): current decisions`, '', ...decisionLines(list.decisions)];
  if (list.truncated) lines.push('', `_Only the first ${list.decisions.length} decisions are shown; use svc_item_search or svc_page_sync for more._`);
  return lines.join('\n');
}

/**
 * The read behind the MCP resource svc://projects/{project}/decisions: what svc_page_sync lists, without
 * recording a sync job (reading a resource must not write).
 */
export const decisionList = defineOperation({
  name: 'decision_list',
  surface: 'operator',
  title: 'List current decisions',
  description:
    'The current decisions of a project, grouped by system, noting what each superseded; newest first within a ' +
    'system. Returns {project, decisions, truncated}.',
  input: z.object({
    project_id: projectRef,
    system_id: z.string().max(200).optional().describe('Only this system (id, prefix or name)'),
    limit,
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  presentation: { kind: 'markdown', render },
  async run(ctx, input): Promise<DecisionList> {
    const project = await resolveProject(ctx.db, input.project_id);
    const systemId = input.system_id ? (await resolveSystem(ctx.db, project.id, input.system_id)).id : undefined;
    const max = boundedLimit(input.limit);
    const decisions = await currentDecisions(ctx.db, { project_id: project.id, system_id: systemId }, max, MAX_SUPERSEDED);
    return {
      project: { id: project.id, slug: project.slug, name: project.name },
      decisions: decisions.slice(0, max),
      truncated: decisions.length > max,
    };
  },
});
