import type { Item, QaStatus, TaskStatus } from '@svc/domain';
import { type Kysely, sql } from 'kysely';
import { toItem } from './items.js';
import type { Database } from './schema.js';

function heads(db: Kysely<Database>) {
  return db.selectFrom('items').selectAll().where('is_head', '=', true).where('deleted_at', 'is', null);
}

/**
 * Head tasks of work units, unit by unit in the order given, each by sort_order; `limit + 1` read so callers
 * can tell if it was cut (a cut drops the later units' tasks first).
 */
export async function listTasks(
  db: Kysely<Database>,
  workUnitIds: string[],
  status: TaskStatus | undefined,
  limit: number,
): Promise<Item[]> {
  if (workUnitIds.length === 0) return [];
  let query = heads(db).where('item_type', '=', 'task').where('work_unit_id', 'in', workUnitIds);
  if (status !== undefined) query = query.where('status', '=', status);
  const rows = await query
    .orderBy(sql`array_position(array[${sql.join(workUnitIds.map((id) => sql`${id}::uuid`))}], work_unit_id)`)
    .orderBy(sql`(context->>'sort_order')::bigint`)
    .orderBy('created_at')
    .orderBy('chain_id')
    .limit(limit + 1)
    .execute();
  return rows.map(toItem);
}

/** Tasks in progress in a work unit: at most one while the invariant holds, so at most two are read. */
export async function inProgressTasks(db: Kysely<Database>, workUnitId: string): Promise<Item[]> {
  const rows = await heads(db)
    .where('item_type', '=', 'task')
    .where('work_unit_id', '=', workUnitId)
    .where('status', '=', 'in_progress')
    .orderBy('created_at')
    .orderBy('chain_id')
    .limit(2)
    .execute();
  return rows.map(toItem);
}

/** The next sort_order in a work unit: one past the largest (0 for the first task). */
export async function nextSortOrder(db: Kysely<Database>, workUnitId: string): Promise<number> {
  const row = await db
    .selectFrom('items')
    .select(sql<string | null>`max((context->>'sort_order')::bigint)`.as('max'))
    .where('item_type', '=', 'task')
    .where('work_unit_id', '=', workUnitId)
    .where('is_head', '=', true)
    .executeTakeFirst();
  return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
}

export interface QaFilter {
  project_id: string;
  status?: QaStatus | undefined;
  /** Checks targeting this task chain. */
  task_chain_id?: string | undefined;
  /** Checks targeting this chain as an item or a task. */
  item_chain_id?: string | undefined;
  /** Checks of this work unit, or targeting one of its tasks. */
  work_unit_id?: string | undefined;
}

/** QA checks (heads), oldest first; `limit + 1` read. */
export async function listQaChecks(db: Kysely<Database>, f: QaFilter, limit: number): Promise<Item[]> {
  let query = heads(db).where('item_type', '=', 'qa_check').where('project_id', '=', f.project_id);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.task_chain_id !== undefined) {
    query = query.where(sql<boolean>`context->'target_task_ids' ? ${f.task_chain_id}::text`);
  }
  if (f.item_chain_id !== undefined) {
    query = query.where(
      sql<boolean>`(context->'target_item_ids' ? ${f.item_chain_id}::text or context->'target_task_ids' ? ${f.item_chain_id}::text)`,
    );
  }
  if (f.work_unit_id !== undefined) {
    const unit = f.work_unit_id;
    query = query.where(
      sql<boolean>`(work_unit_id = ${unit}::uuid or exists (
        select 1 from items t
        where t.work_unit_id = ${unit}::uuid and t.item_type = 'task' and t.is_head
          and items.context->'target_task_ids' ? t.chain_id::text))`,
    );
  }
  const rows = await query.orderBy('created_at').orderBy('chain_id').limit(limit + 1).execute();
  return rows.map(toItem);
}
