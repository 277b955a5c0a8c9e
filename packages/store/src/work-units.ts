import type { IdRef, WorkUnitStatus } from '@svc/domain';
import { type Kysely, sql, type Transaction } from 'kysely';
import { idMatches, iso, isoOrNull, likeContains, likeStartsWith, onlyMatch } from './refs.js';
import type { Database } from './schema.js';

export interface WorkUnit {
  id: string;
  project_id: string;
  system_id: string | null;
  title: string;
  description: string;
  status: WorkUnitStatus;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

type WorkUnitRow = Awaited<ReturnType<typeof selectWorkUnits>>[number];

function selectWorkUnits(db: Kysely<Database>) {
  return db.selectFrom('work_units').selectAll().execute();
}

function toWorkUnit(row: WorkUnitRow): WorkUnit {
  return { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at), closed_at: isoOrNull(row.closed_at) };
}

export async function resolveWorkUnit(
  db: Kysely<Database>,
  ref: IdRef,
  projectId?: string,
): Promise<WorkUnit> {
  let query = db.selectFrom('work_units').selectAll().where(idMatches('id', ref));
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  const rows = await query.limit(10).execute();
  return toWorkUnit(onlyMatch(rows, 'work unit', ref, (r) => ({ id: r.id, label: r.title.slice(0, 60) })));
}

/** Lock a work unit row until the end of the transaction (serialises task starts within one unit). */
export async function lockWorkUnit(tx: Transaction<Database>, id: string): Promise<WorkUnit> {
  const row = await tx.selectFrom('work_units').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
  return toWorkUnit(row);
}

export async function insertWorkUnit(
  db: Transaction<Database>,
  values: { project_id: string; system_id: string | null; title: string; description: string; created_by: string | null },
): Promise<WorkUnit> {
  const row = await db.insertInto('work_units').values(values).returningAll().executeTakeFirstOrThrow();
  return toWorkUnit(row);
}

export async function setWorkUnitStatus(db: Transaction<Database>, id: string, status: WorkUnitStatus): Promise<WorkUnit> {
  const row = await db
    .updateTable('work_units')
    .set({ status, updated_at: new Date(), closed_at: status === 'closed' ? new Date() : null })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toWorkUnit(row);
}

/** Mark a work unit active (brief orders by it). */
export async function touchWorkUnit(db: Transaction<Database>, id: string): Promise<void> {
  await db.updateTable('work_units').set({ updated_at: new Date() }).where('id', '=', id).execute();
}

/** Work units whose title contains the keyword (all when empty), open ones first, then the most recent. */
export async function findWorkUnitsByKeyword(
  db: Kysely<Database>,
  projectId: string,
  keyword: string,
  limit: number,
): Promise<WorkUnit[]> {
  let query = db.selectFrom('work_units').selectAll().where('project_id', '=', projectId);
  if (keyword !== '') {
    query = query.where('title', 'ilike', likeContains(keyword));
  }
  const rows = await query
    .orderBy((eb) => eb.case().when('status', '=', 'open').then(0).else(1).end())
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toWorkUnit);
}

/**
 * Work units whose id starts with `prefix` (optionally of one project): open ones first, then the most recently
 * active; `limit + 1` read to tell truncation (completion of work-unit ids).
 */
export async function workUnitsByIdPrefix(
  db: Kysely<Database>,
  f: { prefix: string; project_id?: string | undefined },
  limit: number,
): Promise<{ id: string; title: string; status: WorkUnitStatus }[]> {
  let query = db.selectFrom('work_units').select(['id', 'title', 'status']);
  if (f.prefix !== '') query = query.where(sql<boolean>`id::text like ${likeStartsWith(f.prefix.toLowerCase())}`);
  if (f.project_id !== undefined) query = query.where('project_id', '=', f.project_id);
  return query
    .orderBy(sql`status = 'open'`, 'desc')
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}
