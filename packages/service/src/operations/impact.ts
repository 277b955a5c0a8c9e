import { MAX_IMPACT_DEPTH, parseIdRef } from '@svc/domain';
import { type ImpactEntry, impact as traverse, resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { itemRef, projectRef } from '../inputs.js';
import { inline, ref } from '../markdown.js';
import { defineOperation } from '../operation.js';

const MAX_ENTRIES = 200;

interface Impact {
  item: { id: string; chain_id: string; title: string; item_type: string };
  depth: number;
  reachable: ImpactEntry[];
  total: number;
  truncated: boolean;
}

function render(r: Impact): string {
  const lines = [`# Impact of ${inline(r.item.title)} (${ref(r.item.id)}), depth ${r.depth}`, ''];
  if (r.reachable.length === 0) {
    lines.push('_No items are reachable along depends, blocks, supersedes or conflicts links._');
    return lines.join('\n');
  }
  lines.push(`${r.total} item${r.total === 1 ? '' : 's'} reachable.`, '');
  let depth = 0;
  for (const e of r.reachable) {
    if (e.depth !== depth) {
      depth = e.depth;
      lines.push(`## Depth ${depth}`, '');
    }
    const status = e.status ? `, ${e.status}` : '';
    lines.push(`- ${e.link_type} → **${inline(e.title)}** (${ref(e.id)}, ${e.item_type}${status})`);
  }
  if (r.truncated) lines.push('', `_Only the nearest ${MAX_ENTRIES} of ${r.total} are listed; lower depth to see fewer._`);
  return lines.join('\n');
}

export const impact = defineOperation({
  name: 'svc_impact',
  surface: 'tool',
  title: 'Impact (blast radius)',
  description:
    'What is affected if this item changes: the items reachable from it along outgoing depends, blocks, ' +
    'supersedes and conflicts links, within depth hops (1 to 5, default 3; more is capped at 5), each once at ' +
    'its nearest depth with the link that reached it. Deleted items are ignored. Markdown citing the items.',
  input: z.object({
    item_id: itemRef,
    project_id: projectRef,
    depth: z.number().int().min(1).optional().describe(`Hops to follow, 1 to ${MAX_IMPACT_DEPTH} (default 3; larger values are capped)`),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  presentation: { kind: 'markdown', render },
  async run(ctx, input): Promise<Impact> {
    const project = await resolveProject(ctx.tx, input.project_id);
    const { head } = await resolveItem(ctx.tx, parseIdRef(input.item_id, 'item_id'), { projectId: project.id });
    const depth = Math.min(input.depth ?? 3, MAX_IMPACT_DEPTH);
    const { entries, total } = await traverse(ctx.tx, project.id, head.chain_id, depth, MAX_ENTRIES);
    return {
      item: { id: head.id, chain_id: head.chain_id, title: head.title, item_type: head.item_type },
      depth,
      reachable: entries.slice(0, MAX_ENTRIES),
      total,
      truncated: entries.length > MAX_ENTRIES,
    };
  },
});
