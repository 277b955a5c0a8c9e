import { parseIdRef, SvcError } from '@svc/domain';
import { resolveItem, resolveProject } from '@svc/store';
import { z } from 'zod';
import { writeAnswer } from '../answers.js';
import { body, context, itemRef, linkInput, projectRef, semanticImpacts, sourceUrl, title } from '../inputs.js';
import { createItem, lockHeadForEdit, prepareItemValues, resolveLinkTargets, supersede, writeLinks } from '../items/write.js';
import { defineOperation } from '../operation.js';

/** An edit's value for an optional reference: null clears it, undefined keeps the current one. */
function keepOrClear(given: string | null | undefined, current: string | null): string | undefined {
  return given === null ? undefined : (given ?? current ?? undefined);
}

export const itemUpsert = defineOperation({
  name: 'svc_item_upsert',
  surface: 'tool',
  title: 'Create or edit an item',
  description:
    'Write one item (decision, knowledge, policy, document, research, …) only when the user asks to save it. No ' +
    'item_id creates; item_id edits: a new version supersedes it (nothing is overwritten), and it must be the ' +
    'current version, else `conflict` names it. Omitted or "" fields are kept; null clears body, context, ' +
    'system_id, work_unit_id, source_url. Tasks (need an open work unit) and QA checks start ' +
    'proposed/pending; only svc_task_*/svc_qa_* change their status. Returns {id, chain_id, version, …}; chain_id is stable.',
  input: z.object({
    project_id: projectRef,
    item_id: itemRef.optional().describe('The current version to edit (omit to create a new item)'),
    item_type: z.string().max(40).optional().describe("Item type key (default 'decision' for new items); cannot change on an edit"),
    title: title.optional().describe('Title (required for new items)'),
    body: body.nullable().optional().describe('Body text (markdown allowed); null clears it'),
    context: context.nullable().optional().describe("Structured fields, validated against the item type's JSON Schema; null clears them"),
    system_id: z.string().max(200).nullable().optional().describe('System of the project (id, prefix or name); null clears it'),
    work_unit_id: z.string().max(100).nullable().optional().describe('Work unit (id or prefix); required for tasks; null clears it'),
    source_url: sourceUrl.nullable().optional().describe('http(s) URL of the source; required for research; null clears it'),
    links: z.array(linkInput).max(100).optional().describe('Typed edges from this item to others in the project'),
    semantic_impacts: semanticImpacts.optional().describe('Extra semantic-impact labels for this edit'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const links = await resolveLinkTargets(ctx, project, input.links ?? []);
    if (input.item_id === undefined) {
      if (input.title === undefined) {
        throw new SvcError('invalid_input', 'title: required when creating an item', { field: 'title' });
      }
      const values = await prepareItemValues(ctx, project, {
        item_type: input.item_type ?? 'decision',
        title: input.title,
        body: input.body ?? '',
        context: input.context ?? {},
        system_id: input.system_id ?? undefined,
        work_unit_id: input.work_unit_id ?? undefined,
        source_url: input.source_url ?? undefined,
      });
      const item = await createItem(ctx, project, values, links);
      ctx.audit({ project_id: project.id, target_kind: 'item', target_id: item.id, details: { created: true, links: links.length } });
      return writeAnswer(item);
    }
    const { matched_id, head: seen } = await resolveItem(ctx.tx, parseIdRef(input.item_id, 'item_id'), { projectId: project.id });
    const head = await lockHeadForEdit(ctx, seen.chain_id, matched_id);
    const values = await prepareItemValues(ctx, project, {
      item_type: input.item_type ?? head.item_type,
      title: input.title ?? head.title,
      body: input.body === null ? '' : (input.body ?? head.body),
      context: input.context === null ? {} : (input.context ?? head.context),
      system_id: keepOrClear(input.system_id, head.system_id),
      work_unit_id: keepOrClear(input.work_unit_id, head.work_unit_id),
      source_url: keepOrClear(input.source_url, head.source_url),
    }, '', head);
    const { item, changed } = await supersede(ctx, project, head, values, input.semantic_impacts ?? []);
    await writeLinks(ctx, project, item.chain_id, links, '');
    ctx.audit({
      project_id: project.id,
      target_kind: 'item',
      target_id: item.id,
      details: { supersedes_id: changed ? head.id : null, changed, links: links.length },
    });
    return writeAnswer(item);
  },
});
