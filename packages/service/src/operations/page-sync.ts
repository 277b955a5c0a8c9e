import { type Project, shortId } from '@svc/domain';
import { currentDecisions, type DecisionEntry, type GlossaryTerm, recordSyncJob, resolveProject, resolveSystem, reviewQueue } from '@svc/store';
import { z } from 'zod';
import { day, inline, ref } from '../markdown.js';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

const MAX_DECISIONS = 200;
const MAX_QUEUE = 50;
/** Superseded items named per decision. */
const MAX_SUPERSEDED = 10;

interface PageData {
  project: Pick<Project, 'id' | 'slug' | 'name'>;
  decisions: DecisionEntry[];
  review_queue: GlossaryTerm[];
  truncated: { decisions: boolean; review_queue: boolean };
}

/** Current decisions as markdown lines, grouped under `### <system>` headings (shared with decision_list). */
export function decisionLines(decisions: DecisionEntry[]): string[] {
  const lines: string[] = [];
  if (decisions.length === 0) lines.push('_No current decisions._');
  let system: string | null | undefined;
  for (const d of decisions) {
    if (d.system_name !== system) {
      system = d.system_name;
      lines.push('', `### ${system === null ? 'General' : inline(system)}`, '');
    }
    const notes: string[] = [];
    if (d.supersedes_id) notes.push(`supersedes v${d.version - 1} (${ref(d.supersedes_id)})`);
    for (const link of d.supersedes_links) notes.push(`supersedes ${inline(link.title, 60)} (${ref(link.id)})`);
    if (d.supersedes_more) notes.push('supersedes more not shown');
    const suffix = notes.length > 0 ? `; ${notes.join('; ')}` : '';
    lines.push(`- **${inline(d.title)}** (${ref(d.id)}, v${d.version}, ${day(d.updated_at)}${suffix})`);
  }
  return lines;
}

function renderPage(data: PageData): string {
  const lines = [`# ${inline(data.project.name)}: decisions`, '', '## Decisions', '', ...decisionLines(data.decisions)];
  if (data.truncated.decisions) lines.push('', `_Only the first ${MAX_DECISIONS} decisions are shown; narrow with system_id._`);
  lines.push('', '## Glossary Review Queue', '');
  if (data.review_queue.length === 0) lines.push('_No proposed terms._');
  for (const t of data.review_queue) lines.push(`- ${inline(t.term, 80)} → group ${inline(t.group_name, 60)} (${ref(t.id)})`);
  if (data.truncated.review_queue) lines.push(`- _More proposed terms not shown._`);
  return lines.join('\n');
}

export const pageSync = defineOperation({
  name: 'svc_page_sync',
  surface: 'tool',
  title: 'Build the decisions page',
  description:
    'Markdown page of the current decisions by system (noting what each superseded) plus the glossary review ' +
    'queue; records a sync job. Heavier than svc_brief: only when asked to produce or refresh the decisions page. ' +
    'Returns {page, job_id}.',
  input: z.object({
    project_id: projectRef,
    system_id: z.string().max(200).optional().describe('Only this system (id, prefix or name)'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  presentation: { kind: 'markdown', render: (r: { page: string; job_id: string }) => `${r.page}\n\n_Sync job ${shortId(r.job_id)}._` },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const systemId = input.system_id ? (await resolveSystem(ctx.tx, project.id, input.system_id)).id : undefined;
    const decisions = await currentDecisions(ctx.tx, { project_id: project.id, system_id: systemId }, MAX_DECISIONS, MAX_SUPERSEDED);
    const queue = await reviewQueue(ctx.tx, project.id, MAX_QUEUE);
    const page = renderPage({
      project: { id: project.id, slug: project.slug, name: project.name },
      decisions: decisions.slice(0, MAX_DECISIONS),
      review_queue: queue.slice(0, MAX_QUEUE),
      truncated: { decisions: decisions.length > MAX_DECISIONS, review_queue: queue.length > MAX_QUEUE },
    });
    const job = await recordSyncJob(ctx.tx, {
      project_id: project.id,
      kind: 'page_sync',
      details: { system_id: systemId ?? null, decisions: Math.min(decisions.length, MAX_DECISIONS), review_queue: Math.min(queue.length, MAX_QUEUE) },
      created_by: ctx.actor?.id ?? null,
    });
    ctx.audit({ project_id: project.id, target_kind: 'sync_job', target_id: job.id });
    return { page, job_id: job.id };
  },
});
