import { type IdRef, notFound, parseIdRef } from '@svc/domain';
import type { Kysely, Transaction } from 'kysely';
import { idMatches, iso, onlyMatch } from './refs.js';
import type { Database } from './schema.js';

export interface System {
  id: string;
  project_id: string;
  name: string;
  created_at: string;
}

/** A system of a project by id, id prefix or name. */
export async function resolveSystem(
  db: Kysely<Database>,
  projectId: string,
  raw: string,
  field = 'system_id',
): Promise<System> {
  const byName = await db
    .selectFrom('systems')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('name', '=', raw.trim())
    .executeTakeFirst();
  if (byName) return { ...byName, created_at: iso(byName.created_at) };
  let ref: IdRef;
  try {
    ref = parseIdRef(raw, field);
  } catch {
    throw notFound('system', raw, field);
  }
  const rows = await db
    .selectFrom('systems')
    .selectAll()
    .where('project_id', '=', projectId)
    .where(idMatches('id', ref))
    .limit(10)
    .execute();
  const first = onlyMatch(rows, 'system', ref, (r) => ({ id: r.id, label: r.name }), raw);
  return { ...first, created_at: iso(first.created_at) };
}

export async function insertSystem(db: Transaction<Database>, projectId: string, name: string): Promise<System> {
  const row = await db.insertInto('systems').values({ project_id: projectId, name }).returningAll().executeTakeFirstOrThrow();
  return { ...row, created_at: iso(row.created_at) };
}

export async function listSystems(db: Kysely<Database>, projectId: string): Promise<System[]> {
  const rows = await db.selectFrom('systems').selectAll().where('project_id', '=', projectId).orderBy('name').execute();
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
}
