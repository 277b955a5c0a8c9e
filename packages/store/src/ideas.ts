import type { IdRef, TsPlan } from '@svc/domain';
import { type Kysely, sql, type Transaction } from 'kysely';
import { REDACTED } from './captures.js';
import { idMatches, iso, isoOrNull, onlyMatch } from './refs.js';
import type { Database } from './schema.js';
import { tsquery } from './search.js';

export interface Idea {
  id: string;
  project_id: string;
  work_unit_id: string;
  text: string;
  author_id: string | null;
  created_at: string;
  redacted: boolean;
  redacted_at: string | null;
  redacted_by: string | null;
}

const COLUMNS = ['id', 'project_id', 'work_unit_id', 'text', 'author_id', 'created_at', 'redacted_at', 'redacted_by'] as const;

function toIdea(row: { id: string; project_id: string; work_unit_id: string; text: string; author_id: string | null; created_at: Date; redacted_at: Date | null; redacted_by: string | null }): Idea {
  return { ...row, created_at: iso(row.created_at), redacted: row.redacted_at !== null, redacted_at: isoOrNull(row.redacted_at) };
}

export async function insertIdea(
  db: Transaction<Database>,
  v: { project_id: string; work_unit_id: string; text: string; author_id: string | null },
): Promise<Idea> {
  const row = await db.insertInto('ideas').values(v).returning(COLUMNS).executeTakeFirstOrThrow();
  return toIdea(row);
}

export async function lockIdea(db: Transaction<Database>, ref: IdRef, projectId?: string): Promise<Idea> {
  let query = db.selectFrom('ideas').select(COLUMNS).where(idMatches('id', ref));
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  const rows = await query.limit(10).execute();
  const first = onlyMatch(rows, 'idea', ref, (r) => ({ id: r.id, label: 'idea' }));
  const locked = await db.selectFrom('ideas').select(COLUMNS).where('id', '=', first.id).forUpdate().executeTakeFirstOrThrow();
  return toIdea(locked);
}

/** Mask the idea's text and stamp who redacted it; the row stays, so the work unit's history keeps its shape. */
export async function redactIdea(db: Transaction<Database>, id: string, actorId: string | null): Promise<Idea> {
  const row = await db
    .updateTable('ideas')
    .set({ text: REDACTED, redacted_at: new Date(), redacted_by: actorId })
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
  return toIdea(row);
}

export interface IdeaFilter {
  project_id: string;
  work_unit_id?: string | undefined;
  author_id?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  plan?: TsPlan | undefined;
}

/** Ideas newest first; `limit + 1` read so callers can tell if it was cut. */
export async function listIdeas(db: Kysely<Database>, f: IdeaFilter, limit: number): Promise<Idea[]> {
  let query = db.selectFrom('ideas').select(COLUMNS).where('project_id', '=', f.project_id);
  if (f.work_unit_id !== undefined) query = query.where('work_unit_id', '=', f.work_unit_id);
  if (f.author_id !== undefined) query = query.where('author_id', '=', f.author_id);
  if (f.since !== undefined) query = query.where('created_at', '>=', f.since);
  if (f.until !== undefined) query = query.where('created_at', '<', f.until);
  if (f.plan) query = query.where(sql<boolean>`search @@ ${tsquery(f.plan)}`);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  return rows.map(toIdea);
}
