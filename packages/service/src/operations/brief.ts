import { expandableTerms, type Project, parseQuery, planQuery } from '@svc/domain';
import {
  activeWorkUnits,
  glossarySynonyms,
  type RecentItem,
  recentItems,
  resolveProject,
  resolveSystem,
  type WorkUnitSummary,
} from '@svc/store';
import { z } from 'zod';
import { day, inline, ref } from '../markdown.js';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

const WORK_UNITS = 10;
const RECENT_ITEMS = 15;

interface Brief {
  project: Pick<Project, 'id' | 'slug' | 'name'>;
  work_units: WorkUnitSummary[];
  recent_items: RecentItem[];
  truncated: { work_units: boolean; recent_items: boolean };
}

function render(brief: Brief): string {
  const lines = [`# Brief: ${inline(brief.project.name)} (${inline(brief.project.slug)})`, '', '## Active Work Units', ''];
  if (brief.work_units.length === 0) lines.push('_No open work units._');
  for (const unit of brief.work_units) {
    const t = unit.tasks;
    const progress = unit.in_progress_task
      ? `; in progress: ${inline(unit.in_progress_task.title, 80)} (${ref(unit.in_progress_task.id)})`
      : '';
    lines.push(
      `- **${inline(unit.title)}** (${ref(unit.id)}) — tasks: ${t.proposed} proposed, ${t.in_progress} in progress, ${t.blocked} blocked, ${t.done} done${progress}`,
    );
  }
  if (brief.truncated.work_units) lines.push(`- _More open work units not shown; narrow with keyword or system_id._`);
  lines.push('', '## Recent Items', '');
  if (brief.recent_items.length === 0) lines.push('_No items._');
  for (const item of brief.recent_items) {
    const version = item.version > 1 ? `, v${item.version}` : '';
    lines.push(`- [${item.item_type}] **${inline(item.title)}** (${ref(item.id)}${version}, updated ${day(item.updated_at)})`);
  }
  if (brief.truncated.recent_items) lines.push(`- _Older items not shown; use svc_item_search._`);
  return lines.join('\n');
}

export const brief = defineOperation({
  name: 'svc_brief',
  surface: 'tool',
  title: 'Project brief',
  description:
    'A short markdown overview of a project: open work units (task counts, the task in progress) and the most ' +
    'recent items. Call it ONLY when the human asks for context or a catch-up, not on your own. Optional ' +
    'system_id and keyword narrow both sections.',
  input: z.object({
    project_id: projectRef,
    system_id: z.string().max(200).optional().describe('Only this system (id, prefix or name)'),
    keyword: z.string().max(200).optional().describe('Only work units whose title contains it, and items matching it'),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  presentation: { kind: 'markdown', render },
  async run(ctx, input): Promise<Brief> {
    const project = await resolveProject(ctx.tx, input.project_id);
    const systemId = input.system_id ? (await resolveSystem(ctx.tx, project.id, input.system_id)).id : undefined;
    const keyword = input.keyword?.trim() || undefined;
    let plan: ReturnType<typeof planQuery>;
    if (keyword) {
      const ast = parseQuery(keyword, 'keyword');
      plan = planQuery(ast, await glossarySynonyms(ctx.tx, project.id, expandableTerms(ast)));
    }
    const units = await activeWorkUnits(ctx.tx, { project_id: project.id, system_id: systemId, keyword }, WORK_UNITS);
    const items =
      keyword && !plan
        ? []
        : await recentItems(
            ctx.tx,
            { project_id: project.id, system_id: systemId, research_ttl_days: project.settings.research.ttl_days, plan },
            RECENT_ITEMS,
          );
    return {
      project: { id: project.id, slug: project.slug, name: project.name },
      work_units: units.slice(0, WORK_UNITS),
      recent_items: items.slice(0, RECENT_ITEMS),
      truncated: { work_units: units.length > WORK_UNITS, recent_items: items.length > RECENT_ITEMS },
    };
  },
});
