import { type CaptureState, type IdRef, notFound, REDACTED, type TsPlan } from '@svc/domain';
import { type Kysely, sql, type Transaction } from 'kysely';
import { idMatches, iso, isoOrNull, onlyMatch } from './refs.js';
import type { Database } from './schema.js';
import { tsquery } from './search.js';


export interface Capture {
  id: string;
  text: string;
  summary: string | null;
  sensitivity_hint: string | null;
  signals: Record<string, unknown>;
  review_state: CaptureState;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  redacted_at: string | null;
  redacted_by: string | null;
  promoted_item_id: string | null;
  /** The project the capture is filed under; null: the shared inbox. */
  project_id: string | null;
}

export { REDACTED };

function captureQuery(db: Kysely<Database>) {
  return db
    .selectFrom('captures as c')
    .leftJoin('capture_promotions as p', 'p.capture_id', 'c.id')
    .select([
      'c.id',
      'c.text',
      'c.summary',
      'c.sensitivity_hint',
      'c.signals',
      'c.review_state',
      'c.created_by',
      'c.created_at',
      'c.updated_at',
      'c.redacted_at',
      'c.redacted_by',
      'p.item_id as promoted_item_id',
      'c.project_id',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof captureQuery>['executeTakeFirstOrThrow']>>;

function toCapture(row: Row): Capture {
  return {
    ...row,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    redacted_at: isoOrNull(row.redacted_at),
  };
}

export async function insertCapture(db: Transaction<Database>, text: string, createdBy: string | null, projectId: string | null = null): Promise<Capture> {
  const row = await db
    .insertInto('captures')
    .values({ text, signals: '{}', created_by: createdBy, project_id: projectId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return findCapture(db, row.id);
}

async function findCapture(db: Kysely<Database>, id: string): Promise<Capture> {
  const row = await captureQuery(db).where('c.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('capture', id);
  return toCapture(row);
}

/**
 * The id of the one capture a reference (id or prefix) names: not_found or ambiguous_id otherwise. `projectId`
 * narrows the search to the captures filed under that project, or (null) to the shared inbox's.
 */
async function resolveCaptureId(db: Kysely<Database>, ref: IdRef, projectId?: string | null): Promise<string> {
  let query = db.selectFrom('captures').select('id').where(idMatches('id', ref));
  if (projectId === null) query = query.where('project_id', 'is', null);
  else if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  const rows = await query.limit(10).execute();
  return onlyMatch(rows, 'capture', ref, (r) => ({ id: r.id, label: 'capture' })).id;
}

/**
 * Resolve a capture reference among the captures filed under a project, or (null) among those of the shared
 * inbox, and read it, without a lock (a read).
 */
export async function resolveCapture(db: Kysely<Database>, ref: IdRef, projectId: string | null): Promise<Capture> {
  return findCapture(db, await resolveCaptureId(db, ref, projectId));
}

/** Resolve a capture reference and lock its row for the rest of the transaction. */
export async function lockCapture(db: Transaction<Database>, ref: IdRef): Promise<Capture> {
  const id = await resolveCaptureId(db, ref);
  await db.selectFrom('captures').select('id').where('id', '=', id).forUpdate().execute();
  return findCapture(db, id);
}

export async function updateCapture(
  db: Transaction<Database>,
  id: string,
  patch: Partial<{
    summary: string | null;
    sensitivity_hint: string | null;
    signals: Record<string, unknown>;
    review_state: Capture['review_state'];
  }>,
): Promise<Capture> {
  await db
    .updateTable('captures')
    .set({
      ...(patch.summary !== undefined ? { summary: patch.summary } : {}),
      ...(patch.sensitivity_hint !== undefined ? { sensitivity_hint: patch.sensitivity_hint } : {}),
      ...(patch.signals !== undefined ? { signals: JSON.stringify(patch.signals) } : {}),
      ...(patch.review_state !== undefined ? { review_state: patch.review_state } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
  return findCapture(db, id);
}

/**
 * Redact: the text and summary become the literal [redacted], hints and signals are cleared; the search vector
 * is generated from the masked text, so the original words are no longer searchable anywhere.
 */
export async function redactCapture(db: Transaction<Database>, id: string, actorId: string | null): Promise<Capture> {
  await db
    .updateTable('captures')
    .set({
      text: REDACTED,
      summary: REDACTED,
      sensitivity_hint: null,
      signals: '{}',
      review_state: 'redacted',
      redacted_at: new Date(),
      redacted_by: actorId,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
  return findCapture(db, id);
}

export async function recordPromotion(
  db: Transaction<Database>,
  p: { capture_id: string; item_id: string; project_id: string; promoted_by: string | null },
): Promise<void> {
  await db.insertInto('capture_promotions').values(p).execute();
}

/** The items of a project made from captures that are now redacted, each with its capture (redactChainText bounds the versions by it). */
export async function itemsOfRedactedCaptures(db: Kysely<Database>, projectId: string): Promise<{ item_id: string; capture_id: string }[]> {
  return db
    .selectFrom('capture_promotions as cp')
    .innerJoin('captures as c', 'c.id', 'cp.capture_id')
    .select(['cp.item_id', 'cp.capture_id'])
    .where('cp.project_id', '=', projectId)
    .where('c.review_state', '=', 'redacted')
    .orderBy('cp.item_id')
    .execute();
}

export interface CaptureFilter {
  /** Only the captures filed under this project; null: only the shared inbox's; undefined: every capture. */
  project_id?: string | null | undefined;
  review_state?: CaptureState | undefined;
  include_discarded: boolean;
  include_redacted: boolean;
  plan?: TsPlan | undefined;
}

/** Captures newest first (or by rank for a query); `limit + 1` read so callers can tell if it was cut. */
export async function listCaptures(db: Kysely<Database>, f: CaptureFilter, limit: number): Promise<(Capture & { rank?: number })[]> {
  let query = captureQuery(db);
  if (f.project_id === null) query = query.where('c.project_id', 'is', null);
  else if (f.project_id !== undefined) query = query.where('c.project_id', '=', f.project_id);
  if (f.review_state !== undefined) {
    query = query.where('c.review_state', '=', f.review_state);
  } else {
    const hidden: CaptureState[] = [];
    if (!f.include_discarded) hidden.push('discarded');
    if (!f.include_redacted) hidden.push('redacted');
    if (hidden.length > 0) query = query.where('c.review_state', 'not in', hidden);
  }
  if (f.plan) {
    const q = tsquery(f.plan);
    const rows = await query
      .select(sql<number>`ts_rank(c.search, ${q})::float8`.as('rank'))
      .where(sql<boolean>`c.search @@ ${q}`)
      .orderBy('rank', 'desc')
      .orderBy('c.created_at', 'desc')
      .limit(limit + 1)
      .execute();
    return rows.map((r) => ({ ...toCapture(r), rank: Number(r.rank) }));
  }
  const rows = await query.orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').limit(limit + 1).execute();
  return rows.map(toCapture);
}

/** The project each of these captures was promoted into, by capture id (a capture not promoted is absent). */
export async function promotionProjects(db: Kysely<Database>, captureIds: string[]): Promise<Map<string, string>> {
  if (captureIds.length === 0) return new Map();
  const rows = await db.selectFrom('capture_promotions').select(['capture_id', 'project_id']).where('capture_id', 'in', captureIds).execute();
  return new Map(rows.map((r) => [r.capture_id, r.project_id]));
}
