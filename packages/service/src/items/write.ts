import {
  classifySemanticImpact,
  type Item,
  invalidInput,
  type LinkType,
  type Project,
  parseIdRef,
  rewritesContent,
  SvcError,
  shortId,
  validateContext,
} from '@svc/domain';
import {
  addLink,
  findItemType,
  insertItem,
  type ItemValues,
  listItemTypes,
  lockHead,
  recordHistory,
  resolveItem,
  resolveSystem,
  resolveWorkUnit,
  supersedeItem,
  type Transaction,
  type Database,
} from '@svc/store';
import type { OperationContext } from '../operation.js';

/** Item fields as a caller gives them: references not yet resolved. */
export interface ItemFields {
  item_type: string;
  title: string;
  body: string;
  context: Record<string, unknown>;
  system_id?: string | undefined;
  work_unit_id?: string | undefined;
  source_url?: string | undefined;
  status?: string | null | undefined;
}

export interface LinkRequest {
  type: LinkType;
  target_id: string;
}

const INITIAL_STATUS: Record<string, string> = { task: 'proposed', qa_check: 'pending' };

function txOf(ctx: OperationContext): Transaction<Database> {
  return ctx.tx as Transaction<Database>;
}

/**
 * Validate fields and resolve their references inside the project: the item type exists, the context fits
 * its schema, research names its source, tasks belong to a work unit. `prefix` names the fields in errors
 * (e.g. `decisions[3].`).
 */
export async function prepareItemValues(
  ctx: OperationContext,
  project: Project,
  fields: ItemFields,
  prefix = '',
): Promise<ItemValues> {
  const type = await findItemType(ctx.tx, fields.item_type);
  if (!type) {
    const known = (await listItemTypes(ctx.tx)).map((t) => t.key).join(', ');
    throw invalidInput(`${prefix}item_type`, `unknown item type '${fields.item_type}'; known types: ${known}`);
  }
  validateContext(type.key, type.schema, fields.context, `${prefix}context`);
  const sourceUrl = fields.source_url?.trim() || null;
  if (type.key === 'research' && sourceUrl === null) {
    throw invalidInput(`${prefix}source_url`, 'research items cache an external reference and require its source_url');
  }
  const system = fields.system_id ? await resolveSystem(ctx.tx, project.id, fields.system_id, `${prefix}system_id`) : null;
  const workUnit = fields.work_unit_id
    ? await resolveWorkUnit(ctx.tx, parseIdRef(fields.work_unit_id, `${prefix}work_unit_id`), project.id)
    : null;
  if (type.key === 'task' && workUnit === null) {
    throw invalidInput(`${prefix}work_unit_id`, 'a task belongs to a work unit: give work_unit_id');
  }
  const status = fields.status !== undefined ? fields.status : (Object.hasOwn(INITIAL_STATUS, type.key) ? (INITIAL_STATUS[type.key] ?? null) : null);
  return {
    project_id: project.id,
    system_id: system?.id ?? null,
    item_type: type.key,
    title: fields.title,
    body: fields.body,
    context: fields.context,
    source_url: sourceUrl,
    work_unit_id: workUnit?.id ?? null,
    status,
    created_by: ctx.actor?.id ?? null,
  };
}

/** Resolve link targets in the project to their chain ids; errors name `${prefix}links[i].target_id`. */
export async function resolveLinkTargets(
  ctx: OperationContext,
  project: Project,
  links: LinkRequest[],
  prefix = '',
): Promise<{ type: LinkType; to_chain_id: string }[]> {
  const out: { type: LinkType; to_chain_id: string }[] = [];
  for (const [i, link] of links.entries()) {
    const field = `${prefix}links[${i}].target_id`;
    try {
      const { head } = await resolveItem(ctx.tx, parseIdRef(link.target_id, field), { projectId: project.id });
      out.push({ type: link.type, to_chain_id: head.chain_id });
    } catch (error) {
      if (error instanceof SvcError && error.code === 'not_found') {
        throw invalidInput(field, `no item '${link.target_id}' in project ${project.slug}`);
      }
      throw error;
    }
  }
  return out;
}

async function writeLinks(
  ctx: OperationContext,
  project: Project,
  fromChainId: string,
  links: { type: LinkType; to_chain_id: string }[],
  prefix: string,
): Promise<void> {
  for (const [i, link] of links.entries()) {
    if (link.to_chain_id === fromChainId) throw invalidInput(`${prefix}links[${i}].target_id`, 'an item cannot link to itself');
    await addLink(ctx.tx, {
      project_id: project.id,
      from_chain_id: fromChainId,
      link_type: link.type,
      to_chain_id: link.to_chain_id,
      created_by: ctx.actor?.id ?? null,
    });
  }
}

/** Create a new item (a new chain): the one creation path for upsert, batches, tasks, checks and promotions. */
export async function createItem(
  ctx: OperationContext,
  project: Project,
  values: ItemValues,
  links: { type: LinkType; to_chain_id: string }[] = [],
  prefix = '',
): Promise<Item> {
  const item = await insertItem(txOf(ctx), values);
  await recordHistory(ctx.tx, {
    project_id: project.id,
    chain_id: item.chain_id,
    item_id: item.id,
    version: item.version,
    change_kind: 'created',
    semantic_impacts: [],
    details: {},
    actor_id: ctx.actor?.id ?? null,
    source: ctx.source,
  });
  await writeLinks(ctx, project, item.chain_id, links, prefix);
  return item;
}

function sameContent(a: Item, b: ItemValues): boolean {
  return (
    a.item_type === b.item_type &&
    a.title === b.title &&
    a.body === b.body &&
    JSON.stringify(a.context) === JSON.stringify(b.context) &&
    a.source_url === b.source_url &&
    a.system_id === b.system_id &&
    a.work_unit_id === b.work_unit_id &&
    a.status === b.status
  );
}

/**
 * Lock the chain's head and check that `namedRowId` is it (optimistic concurrency): an edit names the row it
 * was made against, and if someone superseded that row meanwhile the edit is refused, never merged blindly.
 */
export async function lockHeadForEdit(ctx: OperationContext, chainId: string, namedRowId: string): Promise<Item> {
  const head = await lockHead(txOf(ctx), chainId);
  if (!head) throw new SvcError('not_found', `item ${shortId(namedRowId)} not found`);
  if (head.id !== namedRowId) {
    throw new SvcError(
      'conflict',
      `item ${shortId(namedRowId)} is not the current version: it was superseded by ${shortId(head.id)} (version ${head.version}). Read ${shortId(head.id)} and apply your edit to it.`,
      { item_id: namedRowId, current_head_id: head.id, current_version: head.version, chain_id: head.chain_id },
    );
  }
  return head;
}

/**
 * Supersede a locked head with new values: a new row continues the chain, the history records the
 * semantic impact of the change. Values equal to the head's change nothing and return the head.
 */
export async function supersede(
  ctx: OperationContext,
  project: Project,
  head: Item,
  values: ItemValues,
  extraImpacts: string[] = [],
): Promise<{ item: Item; changed: boolean }> {
  if (sameContent(head, values)) return { item: head, changed: false };
  const next = await supersedeItem(txOf(ctx), head, { ...values, created_by: ctx.actor?.id ?? null }, rewritesContent(head, values));
  const computed = classifySemanticImpact(head, next);
  const impacts = [...new Set([...computed, ...extraImpacts])];
  await recordHistory(ctx.tx, {
    project_id: project.id,
    chain_id: next.chain_id,
    item_id: next.id,
    version: next.version,
    change_kind: 'superseded',
    semantic_impacts: impacts,
    details: { supersedes_id: head.id, from_version: head.version },
    actor_id: ctx.actor?.id ?? null,
    source: ctx.source,
  });
  return { item: next, changed: true };
}

export { writeLinks };
