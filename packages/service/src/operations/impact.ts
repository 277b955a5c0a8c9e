import { IMPACT_DIRECTIONS, type ImpactDirection, MAX_IMPACT_DEPTH, parseIdRef } from '@svc/domain';
import { type ImpactEntry, impact as traverse, resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { itemRef, projectRef } from '../inputs.js';
import { inline, ref } from '../markdown.js';
import { defineOperation } from '../operation.js';

const MAX_ENTRIES = 200;

export interface Impact {
  item: { id: string; chain_id: string; title: string; item_type: string };
  depth: number;
  direction: ImpactDirection;
  reachable: ImpactEntry[];
  total: number;
  truncated: boolean;
}

const WALK: Record<ImpactDirection, { arrow: string; says: string }> = {
  outgoing: { arrow: '→', says: 'Items this one links to (what it depends on, blocks, supersedes or conflicts with), and on from them.' },
  incoming: { arrow: '←', says: 'Items linking to this one (what depends on it, blocks it, supersedes it or conflicts with it), and on from them.' },
};

function render(r: Impact): string {
  const walk = WALK[r.direction];
  const lines = [`# Impact of ${inline(r.item.title)} (${ref(r.item.id)}), depth ${r.depth}, ${r.direction} links`, '', walk.says, ''];
  if (r.reachable.length === 0) {
    lines.push(`_No items are reachable along ${r.direction} depends, blocks, supersedes or conflicts links._`);
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
    lines.push(`- ${e.link_type} ${walk.arrow} **${inline(e.title)}** (${ref(e.id)}, ${e.item_type}${status})`);
  }
  if (r.truncated) lines.push('', `_Only the nearest ${MAX_ENTRIES} of ${r.total} are listed; lower depth to see fewer._`);
  return lines.join('\n');
}

export const impact = defineOperation({
  name: 'svc_impact',
  surface: 'tool',
  title: 'Impact (linked items)',
  description:
    'Items reachable from this one over depends/blocks/supersedes/conflicts links within depth hops, each once at ' +
    'its nearest depth with the link that reached it. outgoing: what it depends on, blocks, supersedes, conflicts ' +
    'with; incoming: the reverse. Deleted items are ignored. Markdown citing the items.',
  input: z.object({
    item_id: itemRef,
    project_id: projectRef.optional().describe('Project slug, id or prefix; the item id resolves inside it'),
    depth: z.number().int().min(1).optional().describe(`Hops to follow, 1 to ${MAX_IMPACT_DEPTH} (default 3; larger values are capped)`),
    direction: z.enum(IMPACT_DIRECTIONS).optional().describe('outgoing (default): links from the item; incoming: links to it'),
  }),
  // The spec's tool takes project_id; REST's /items/{id}/impact names the item alone, so the project is its own.
  mcpRequired: ['project_id'],
  kind: 'read',
  annotations: { idempotentHint: true },
  presentation: { kind: 'markdown', render },
  async run(ctx, input): Promise<Impact> {
    const projectId = input.project_id === undefined ? undefined : (await resolveProject(ctx.db, input.project_id)).id;
    const { head } = await resolveItem(ctx.db, parseIdRef(input.item_id, 'item_id'), { projectId });
    const depth = Math.min(input.depth ?? 3, MAX_IMPACT_DEPTH);
    const direction = input.direction ?? 'outgoing';
    const { entries, total } = await traverse(ctx.db, head.project_id, head.chain_id, depth, MAX_ENTRIES, direction);
    return {
      item: { id: head.id, chain_id: head.chain_id, title: head.title, item_type: head.item_type },
      depth,
      direction,
      reachable: entries.slice(0, MAX_ENTRIES),
      total,
      truncated: entries.length > MAX_ENTRIES,
    };
  },
});
