import { expandableTerms, type Project, parseQuery, planQuery } from '@svc/domain';
import {
  activeWorkUnits,
  glossarySynonyms,
  type RecentItem,
  recentItems,
  refuseWordless,
  resolveProject,
  resolveSystem,
  type WorkUnitSummary,
} from '@svc/store';
import { z } from 'zod';
import { day, inline, ref } from '../markdown.js';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { wordlessQuery } from './search-shared.js';

/** The brief is read at the start of a session, so by default it stays small enough to cost little context. */
const BRIEF_DEFAULT_CHARS = 2_000;
const BRIEF_MAX_CHARS = 50_000;

export interface Brief {
  project: Pick<Project, 'id' | 'slug' | 'name'>;
  work_units: WorkUnitSummary[];
  recent_items: RecentItem[];
  truncated: { work_units: boolean; recent_items: boolean };
  max_chars: number;
  /** The keyword that narrowed the lists, if any: an empty list then says that nothing matches, not that nothing is there. */
  keyword: string | null;
  /** True when entries were left out to fit max_chars. */
  cut: boolean;
}

function render(brief: Brief): string {
  const lines = [`# Brief: ${inline(brief.project.name)} (${inline(brief.project.slug)})`, '', '## Active Work Units', ''];
  if (brief.work_units.length === 0) lines.push(brief.keyword ? `_No open work units match ${inline(brief.keyword, 80)}._` : '_No open work units._');
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
  if (brief.recent_items.length === 0) lines.push(brief.keyword ? `_No items match ${inline(brief.keyword, 80)}._` : '_No items._');
  for (const item of brief.recent_items) {
    const version = item.version > 1 ? `, v${item.version}` : '';
    lines.push(`- [${item.item_type}] **${inline(item.title)}** (${ref(item.id)}${version}, updated ${day(item.updated_at)})`);
  }
  if (brief.truncated.recent_items) lines.push(`- _Older items not shown; use svc_item_search._`);
  if (brief.cut) lines.push('', `_Cut to ${brief.max_chars} characters; pass a larger max_chars (up to ${BRIEF_MAX_CHARS}) for more._`);
  return lines.join('\n');
}

/**
 * Leave out the oldest entries until the markdown fits: from the longer list first, so neither section
 * disappears while the other keeps a long tail. The cut is marked, so the text says so.
 */
function fit(brief: Brief): Brief {
  let out = brief;
  while (render(out).length > out.max_chars && (out.work_units.length > 0 || out.recent_items.length > 0)) {
    const fromItems = out.recent_items.length >= out.work_units.length;
    out = fromItems
      ? { ...out, recent_items: out.recent_items.slice(0, -1), truncated: { ...out.truncated, recent_items: true }, cut: true }
      : { ...out, work_units: out.work_units.slice(0, -1), truncated: { ...out.truncated, work_units: true }, cut: true };
  }
  return out;
}

export const brief = defineOperation({
  name: 'svc_brief',
  surface: 'tool',
  title: 'Project brief',
  description:
    'Short markdown overview of a project: open work units (task counts, the task in progress) and the latest ' +
    'items, at most max_chars (default 2000; says when cut). Call ONLY when the human asks for context or a ' +
    'catch-up. system_id and keyword narrow both sections.',
  input: z.object({
    project_id: projectRef,
    system_id: z.string().max(200).optional().describe('Only this system (id, prefix or name)'),
    keyword: z.string().max(200).optional().describe('Only work units and items matching it (search dialect)'),
    max_chars: z
      .number()
      .int()
      .min(1_000)
      .max(BRIEF_MAX_CHARS)
      .optional()
      .describe(`Longest answer in characters (default ${BRIEF_DEFAULT_CHARS}); raise it for more entries`),
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  presentation: { kind: 'markdown', render },
  async run(ctx, input): Promise<Brief> {
    const project = await resolveProject(ctx.db, input.project_id);
    const systemId = input.system_id ? (await resolveSystem(ctx.db, project.id, input.system_id)).id : undefined;
    const keyword = input.keyword?.trim() || undefined;
    const maxChars = input.max_chars ?? BRIEF_DEFAULT_CHARS;
    // Read about as many entries as could fit (a line is ~100-250 characters), never fewer than before.
    const workUnits = Math.max(10, Math.min(50, Math.floor(maxChars / 200)));
    const recent = Math.max(15, Math.min(200, Math.floor(maxChars / 100)));
    let plan: ReturnType<typeof planQuery>;
    if (keyword) {
      const ast = parseQuery(keyword, 'keyword');
      plan = planQuery(ast, await glossarySynonyms(ctx.db, project.id, expandableTerms(ast)));
      // Refused as a search refuses it: "No items" for `the` or `OR` read as "nothing recorded" (an attacker).
      if (!plan) throw wordlessQuery('keyword');
      await refuseWordless(ctx.db, plan, 'keyword');
    }
    const units = await activeWorkUnits(ctx.db, { project_id: project.id, system_id: systemId, plan }, workUnits);
    const items = await recentItems(
            ctx.db,
            { project_id: project.id, system_id: systemId, research_ttl_days: project.settings.research.ttl_days, plan },
            recent,
          );
    return fit({
      project: { id: project.id, slug: project.slug, name: project.name },
      work_units: units.slice(0, workUnits),
      recent_items: items.slice(0, recent),
      truncated: { work_units: units.length > workUnits, recent_items: items.length > recent },
      max_chars: maxChars,
      keyword: keyword ?? null,
      cut: false,
    });
  },
});
