import { type Actor, SvcError } from '@svc/domain';
import { type Kysely, sql, type Transaction } from 'kysely';
import { iso } from './refs.js';
import type { ActorRow, Database } from './schema.js';

function toActor(row: ActorRow): Actor {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    external_ids: row.external_ids as Record<string, string>,
    joined_at: iso(row.joined_at),
  };
}

export async function findActor(db: Kysely<Database>, id: string): Promise<Actor | undefined> {
  const row = await db.selectFrom('actors').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toActor(row) : undefined;
}

/** An actor that must exist: unknown ids are refused with the way to register one. */
export async function requireActor(db: Kysely<Database>, id: string, field = 'actor'): Promise<Actor> {
  const actor = await findActor(db, id);
  if (!actor) {
    throw new SvcError(
      'unknown_actor',
      `${field}: actor ${id} is not registered; register it with \`svc actor add --name NAME --email EMAIL\` and use the id it prints`,
      { field, actor_id: id },
    );
  }
  return actor;
}

export async function findActorByEmail(db: Kysely<Database>, email: string): Promise<Actor | undefined> {
  const row = await db
    .selectFrom('actors')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row ? toActor(row) : undefined;
}

/** The actors holding any of these emails (compared lower-case): their ids and lower-cased emails. */
export async function actorIdsByEmail(db: Kysely<Database>, emails: string[]): Promise<{ id: string; email: string }[]> {
  const { rows } = await sql<{ id: string; email: string }>`select id::text as id, lower(email) as email from actors where lower(email) = any(${emails}::text[])`.execute(db);
  return rows;
}

export async function insertActor(
  db: Transaction<Database>,
  values: { email: string; name: string; role: string | null; external_ids: Record<string, string> },
): Promise<Actor> {
  const row = await db
    .insertInto('actors')
    .values({ ...values, external_ids: JSON.stringify(values.external_ids) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toActor(row);
}

export async function listActors(db: Kysely<Database>, limit: number): Promise<Actor[]> {
  const rows = await db.selectFrom('actors').selectAll().orderBy('joined_at').orderBy('email').limit(limit).execute();
  return rows.map(toActor);
}
