import { SvcError } from './errors.js';

/**
 * The seven system item types and the JSON Schemas their `context` is validated against. Task and QA check
 * schemas are strict (the service reads those fields); the others are permissive, for teams to use freely.
 * Migration 0003 seeds the same schemas into the item_types table; a test keeps the two in step.
 */
export const SYSTEM_ITEM_TYPES = ['decision', 'knowledge', 'policy', 'document', 'task', 'qa_check', 'research'] as const;
export type SystemItemType = (typeof SYSTEM_ITEM_TYPES)[number];

export const TASK_STATUSES = ['proposed', 'in_progress', 'blocked', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const QA_STATUSES = ['pending', 'passed', 'failed'] as const;
export type QaStatus = (typeof QA_STATUSES)[number];

/** An item's status: a task's or a QA check's; other types have none (null). */
export type ItemStatus = TaskStatus | QaStatus;

export const QA_COVERAGES = ['human_only', 'automated', 'mixed'] as const;

export const LINK_TYPES = ['depends', 'blocks', 'supersedes', 'conflicts'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/**
 * Which end of a link waits on the other. "A depends B": A waits on B (the waiting end is `from`). "A blocks
 * B": B waits on A (`to`). supersedes and conflicts say nothing about waiting (null). The one place a link's
 * direction is given a meaning: the dependency-cycle rule's wait-for graph is derived from it.
 */
const LINK_WAITER: Record<LinkType, 'from' | 'to' | null> = {
  depends: 'from',
  blocks: 'to',
  supersedes: null,
  conflicts: null,
};

/** The link types that make one item wait on another. */
export const WAIT_LINK_TYPES: readonly LinkType[] = LINK_TYPES.filter((t) => LINK_WAITER[t] !== null);

/** The wait-for edge a link states, as [waiting item, awaited item]; null when its type is not about waiting. */
export function waitForEdge<T>(type: LinkType, from: T, to: T): readonly [T, T] | null {
  switch (LINK_WAITER[type]) {
    case 'from':
      return [from, to];
    case 'to':
      return [to, from];
    case null:
      return null;
  }
}

export type JsonSchema = Record<string, unknown>;

const permissive: JsonSchema = { type: 'object' };

const uuidArray: JsonSchema = {
  type: 'array',
  items: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
  uniqueItems: true,
};

export const SYSTEM_TYPE_SCHEMAS: Record<SystemItemType, { display_name: string; schema: JsonSchema }> = {
  decision: { display_name: 'Decision', schema: permissive },
  knowledge: { display_name: 'Knowledge', schema: permissive },
  policy: { display_name: 'Policy', schema: permissive },
  document: { display_name: 'Document', schema: permissive },
  research: { display_name: 'Research', schema: permissive },
  task: {
    display_name: 'Task',
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sort_order: { type: 'integer' },
        summary: { type: 'string' },
        blocked_reason: { type: 'string' },
      },
    },
  },
  qa_check: {
    display_name: 'QA check',
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        coverage: { enum: [...QA_COVERAGES] },
        target_task_ids: uuidArray,
        target_item_ids: uuidArray,
        note: { type: 'string' },
      },
    },
  },
};

/**
 * The item type of a chain is fixed at creation (decision 0016): a type decides the state machine, the context
 * schema and the defaults of every version, so a version of another type would walk around them (a done task
 * turned decision and back would be proposed again). Refused with the field named; the way out is a new item.
 */
export function keepItemType(current: string, requested: string, field = 'item_type'): void {
  if (current === requested) return;
  throw new SvcError(
    'invalid_input',
    `${field}: an item's type cannot change (this one is '${current}', asked '${requested}'): a type decides its states and ` +
      `context, so a changed type would bypass them. Create a new '${requested}' item instead (and link or delete this one).`,
    { field, item_type: current, requested },
  );
}

const TYPE_KEY_RE = /^[a-z][a-z0-9_]{1,39}$/;

export function isTypeKey(value: string): boolean {
  return TYPE_KEY_RE.test(value);
}
