import { type IdRef, parseIdRef, type SvcError } from '@svc/domain';
import type { Kysely, Transaction } from 'kysely';
import { idMatches, iso, NAMES_LISTED, notFoundAmong, onlyMatch } from './refs.js';
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
    throw await systemNotFound(db, projectId, raw, field);
  }
  const rows = await db
    .selectFrom('systems')
    .selectAll()
    .where('project_id', '=', projectId)
    .where(idMatches('id', ref))
    .limit(10)
    .execute();
  if (rows.length === 0) throw await systemNotFound(db, projectId, raw, field);
  const first = onlyMatch(rows, 'system', ref, (r) => ({ id: r.id, label: r.name }), raw);
  return { ...first, created_at: iso(first.created_at) };
}

/** `raw` names no system of the project: not_found naming the field, with the project's systems (a newcomer's wish). */
async function systemNotFound(db: Kysely<Database>, projectId: string, raw: string, field: string): Promise<SvcError> {
  const rows = await db.selectFrom('systems').select('name').where('project_id', '=', projectId).orderBy('name').limit(NAMES_LISTED + 1).execute();
  return notFoundAmong(
    'system',
    raw,
    field,
    rows.map((r) => r.name),
    { none: 'the project has no systems', some: "the project's systems", hint: 'an operator adds one: svc system add PROJECT NAME' },
  );
}

export async function insertSystem(db: Transaction<Database>, projectId: string, name: string): Promise<System> {
  const row = await db.insertInto('systems').values({ project_id: projectId, name }).returningAll().executeTakeFirstOrThrow();
  return { ...row, created_at: iso(row.created_at) };
}

export async function listSystems(db: Kysely<Database>, projectId: string): Promise<System[]> {
  const rows = await db.selectFrom('systems').selectAll().where('project_id', '=', projectId).orderBy('name').execute();
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
}
