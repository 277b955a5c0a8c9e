/**
 * What a write answers: the ids of the record it wrote, its state, and what the write changed; never the whole
 * row (its text the caller just sent, and a dozen null columns). Every write operation answers through
 * `writeAnswer`, so sibling tools answer alike (decision 0027); reads (item_show, lists, search) keep full rows.
 */
export interface WriteAnswer {
  id: string;
  /** Items: the stable id of the chain (id is the current version). */
  chain_id?: string;
  item_type?: string;
  /** Items with a lifecycle (tasks, QA checks) and work units. */
  status?: string;
  /** Captures (their review state) and redacted ideas. */
  state?: string;
  version?: number;
  /** The version this one superseded. */
  supersedes_id?: string;
  work_unit_id?: string;
  /** A capture's promoted item. */
  item_id?: string;
  /** Set when the write soft-deleted the record. */
  deleted_at?: string;
}

/** How tool descriptions state an item write's answer (null fields are left out). */
export const ITEM_ANSWER = 'Returns {id, chain_id, status, version, …}';

/** The fields a write answer keeps, in this order, when the record has them and they are not null. */
const FIELDS = [
  'id',
  'chain_id',
  'item_type',
  'status',
  'state',
  'version',
  'supersedes_id',
  'work_unit_id',
  'item_id',
  'deleted_at',
] as const satisfies readonly (keyof WriteAnswer)[];

type Written = { id: string } & { [K in (typeof FIELDS)[number]]?: unknown };

/**
 * The compact answer of a write: the record's answer fields that are set, then `extra` (what only this write
 * has to say, such as task_done's draft_decision or task_block's decision_id) beside them, never wrapping them.
 */
export function writeAnswer(record: Written): WriteAnswer;
export function writeAnswer<E extends Record<string, unknown>>(record: Written, extra: E): WriteAnswer & E;
export function writeAnswer(record: Written, extra: Record<string, unknown> = {}): WriteAnswer {
  const answer: Record<string, unknown> = {};
  for (const key of FIELDS) {
    const value = record[key];
    if (value !== null && value !== undefined) answer[key] = value;
  }
  return { ...answer, ...extra, id: record.id };
}
