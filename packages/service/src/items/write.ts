import {
  checkNewTaskContext,
  checkSourceUrl,
  checkQaContext,
  classifySemanticImpact,
  type Item,
  type ItemStatus,
  invalidInput,
  keepItemType,
  type LinkType,
  type Project,
  parseIdRef,
  qaStatusOf,
  qaTransition,
  rewritesContent,
  SvcError,
  shortId,
  taskStatusOf,
  taskTransition,
  validateContext,
  workUnitTransition,
} from '@svc/domain';
import {
  addLink,
  findItemType,
  insertItem,
  type ItemValues,
  listItemTypes,
  lockHead,
  lockWorkUnit,
  nextSortOrder,
  recordHistory,
  resolveItem,
  resolveSystem,
  resolveWorkUnit,
  setChainDeleted,
  supersedeItem,
  touchWorkUnit,
} from '@svc/store';
import { writeIndexed } from '../errors.js';
import type { WriteContext } from '../operation.js';

/** Item fields as a caller gives them: references not yet resolved. Status is never among them. */
export interface ItemFields {
  item_type: string;
  title: string;
  body: string;
  context: Record<string, unknown>;
  system_id?: string | undefined;
  work_unit_id?: string | undefined;
  source_url?: string | undefined;
}

export interface LinkRequest {
  type: LinkType;
  target_id: string;
}

/** What the type rules of tasks and QA checks decide about a version: its unit, context, status, system. */
interface TypeRuled {
  work_unit_id: string | null;
  context: Record<string, unknown>;
  status: ItemStatus | null;
  system_id?: string | null | undefined;
}

/**
 * Validate fields and resolve their references inside the project: the item type exists (and, for an edit of
 * `head`, is the chain's type), the context fits its schema, research names its source. Tasks and QA checks
 * get their state machine and defaults here, whichever tool writes them (task/QA tools, upsert, promote): the
 * status is the initial one on creation and the head's, through the `edit` transition, on an edit. `prefix`
 * names the fields in errors (e.g. `decisions[3].`).
 */
export async function prepareItemValues(
  ctx: WriteContext,
  project: Project,
  fields: ItemFields,
  prefix = '',
  head?: Item,
): Promise<ItemValues> {
  const type = await findItemType(ctx.tx, fields.item_type);
  if (!type) {
    const known = (await listItemTypes(ctx.tx)).map((t) => t.key);
    throw invalidInput(`${prefix}item_type`, `unknown item type '${fields.item_type}'; registered types: ${known.join(', ')}`, { known });
  }
  if (head) keepItemType(head.item_type, type.key, `${prefix}item_type`);
  const sourceUrl = fields.source_url?.trim() || null;
  if (type.key === 'research' && sourceUrl === null) {
    throw invalidInput(`${prefix}source_url`, 'research items cache an external reference and require its source_url');
  }
  if (sourceUrl !== null) {
    // Every version is checked, so a value stored before the rule cannot be carried into a new one unnoticed.
    const kept = head !== undefined && sourceUrl === head.source_url;
    checkSourceUrl(sourceUrl, `${prefix}source_url`, kept ? ' (kept from the current version: give a new source_url, or null to clear it)' : '');
  }
  const system = fields.system_id ? await resolveSystem(ctx.tx, project.id, fields.system_id, `${prefix}system_id`) : null;
  let ruled: TypeRuled;
  if (type.key === 'task') ruled = await taskRules(ctx, project, fields, prefix, head);
  else if (type.key === 'qa_check') ruled = await qaRules(ctx, project, fields, prefix, head);
  else {
    const unit = fields.work_unit_id
      ? await resolveWorkUnit(ctx.tx, parseIdRef(fields.work_unit_id, `${prefix}work_unit_id`), project.id)
      : null;
    ruled = { work_unit_id: unit?.id ?? null, context: fields.context, status: head?.status ?? null };
  }
  validateContext(type.key, type.schema, ruled.context, `${prefix}context`);
  return {
    project_id: project.id,
    system_id: system?.id ?? ruled.system_id ?? null,
    item_type: type.key,
    title: fields.title,
    body: fields.body,
    context: ruled.context,
    source_url: sourceUrl,
    work_unit_id: ruled.work_unit_id,
    status: ruled.status,
    created_by: ctx.actor?.id ?? null,
  };
}

/**
 * A new task joins an open work unit (locked, so its sort_order default and a concurrent close are
 * serialised), after its last task, in `proposed`. An edit keeps the unit and the status (the `edit`
 * transition) and merges the given context over the head's, so an omitted sort_order is kept.
 */
async function taskRules(ctx: WriteContext, project: Project, fields: ItemFields, prefix: string, head: Item | undefined): Promise<TypeRuled> {
  const field = `${prefix}work_unit_id`;
  if (head) {
    const status = taskTransition(taskStatusOf(head), 'edit');
    if (!fields.work_unit_id) throw invalidInput(field, 'a task belongs to a work unit: work_unit_id cannot be cleared');
    {
      const unit = await resolveWorkUnit(ctx.tx, parseIdRef(fields.work_unit_id, field), project.id);
      if (unit.id !== head.work_unit_id) {
        throw invalidInput(field, 'a task stays in its work unit; add a new task to the other unit (svc_task_add) instead of moving this one');
      }
    }
    return { work_unit_id: head.work_unit_id, context: { ...head.context, ...fields.context }, status };
  }
  if (!fields.work_unit_id) throw invalidInput(field, 'a task belongs to a work unit: give work_unit_id');
  const found = await resolveWorkUnit(ctx.tx, parseIdRef(fields.work_unit_id, field), project.id);
  const unit = await lockWorkUnit(ctx.tx, found.id);
  workUnitTransition(unit.status, 'add_task', { id: unit.id, field });
  const context = { ...fields.context };
  checkNewTaskContext(context, prefix);
  if (context.sort_order === undefined) context.sort_order = await nextSortOrder(ctx.tx, unit.id);
  return { work_unit_id: unit.id, context, status: 'proposed', system_id: unit.system_id };
}

/**
 * A QA check starts `pending` with coverage `human_only` unless given; its targets are stored as chain ids,
 * resolved from any row id or prefix in the project. An edit keeps the status (the `edit` transition: a
 * verdict is final) and merges the given context over the head's.
 */
async function qaRules(ctx: WriteContext, project: Project, fields: ItemFields, prefix: string, head: Item | undefined): Promise<TypeRuled> {
  const unit = fields.work_unit_id
    ? await resolveWorkUnit(ctx.tx, parseIdRef(fields.work_unit_id, `${prefix}work_unit_id`), project.id)
    : null;
  const context: Record<string, unknown> = { ...(head?.context ?? {}), ...fields.context };
  context.coverage ??= 'human_only';
  for (const key of ['target_task_ids', 'target_item_ids'] as const) {
    // The head's targets are chain ids already; only what the caller gives is resolved (a since-deleted
    // target then does not block an unrelated edit).
    if (head && !(key in fields.context)) {
      context[key] ??= [];
      continue;
    }
    const refs = fields.context[key] ?? [];
    // Anything but an array of strings is left for the schema to refuse with its own message.
    context[key] =
      Array.isArray(refs) && refs.every((r) => typeof r === 'string')
        ? await resolveTargetChains(ctx, project, refs, `${prefix}context.${key}`, key === 'target_task_ids' ? 'task' : undefined)
        : refs;
  }
  const status = head ? qaTransition(qaStatusOf(head), 'edit') : 'pending';
  checkQaContext(status, context, head?.context, prefix);
  return { work_unit_id: unit?.id ?? null, context, status };
}

/**
 * Resolve QA targets (any row id or unique prefix of an item in the project) to their chain ids, without
 * duplicates; an unknown one is refused naming `${field}[i]`.
 */
export async function resolveTargetChains(
  ctx: WriteContext,
  project: Project,
  refs: string[],
  field: string,
  itemType?: 'task',
): Promise<string[]> {
  const out: string[] = [];
  for (const [i, raw] of refs.entries()) {
    try {
      const { head } = await resolveItem(ctx.tx, parseIdRef(raw, `${field}[${i}]`), {
        projectId: project.id,
        itemType,
        kind: itemType ?? 'item',
      });
      if (!out.includes(head.chain_id)) out.push(head.chain_id);
    } catch (error) {
      if (error instanceof SvcError && error.code === 'not_found') {
        throw invalidInput(`${field}[${i}]`, `no ${itemType ?? 'item'} '${raw}' in project ${project.slug}`);
      }
      throw error;
    }
  }
  return out;
}

/** Resolve link targets in the project to their chain ids; errors name `${prefix}links[i].target_id`. */
export async function resolveLinkTargets(
  ctx: WriteContext,
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
  ctx: WriteContext,
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
  ctx: WriteContext,
  project: Project,
  values: ItemValues,
  links: { type: LinkType; to_chain_id: string }[] = [],
  prefix = '',
): Promise<Item> {
  const item = await writeIndexed([`${prefix}title`, `${prefix}body`], 'item', () => insertItem(ctx.tx, values));
  // A new task, check or note in a work unit makes it recently active (the brief orders units by it).
  if (item.work_unit_id) await touchWorkUnit(ctx.tx, item.work_unit_id);
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
export async function lockHeadForEdit(ctx: WriteContext, chainId: string, namedRowId: string): Promise<Item> {
  const head = await lockHead(ctx.tx, chainId);
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
  ctx: WriteContext,
  project: Project,
  head: Item,
  values: ItemValues,
  extraImpacts: string[] = [],
): Promise<{ item: Item; changed: boolean }> {
  if (sameContent(head, values)) return { item: head, changed: false };
  const next = await writeIndexed(['title', 'body'], 'item', () =>
    supersedeItem(ctx.tx, head, { ...values, created_by: ctx.actor?.id ?? null }, rewritesContent(head, values)),
  );
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

/**
 * Soft-delete a chain (or, with deleted false, restore it) and record that in its history under `head`, its
 * current version: item_delete, item_restore and research_sweep alike.
 */
export async function markChainDeleted(
  ctx: WriteContext,
  head: Pick<Item, 'project_id' | 'chain_id' | 'id' | 'version'>,
  deleted: boolean,
  details: Record<string, unknown> = {},
): Promise<void> {
  await setChainDeleted(ctx.tx, head.chain_id, deleted ? new Date() : null);
  await recordHistory(ctx.tx, {
    project_id: head.project_id,
    chain_id: head.chain_id,
    item_id: head.id,
    version: head.version,
    change_kind: deleted ? 'deleted' : 'restored',
    semantic_impacts: [],
    details,
    actor_id: ctx.actor?.id ?? null,
    source: ctx.source,
  });
}

export { writeLinks };
