import type { JsonSchema } from '@svc/domain';
import type { Kysely, Transaction } from 'kysely';
import { iso } from './refs.js';
import type { Database } from './schema.js';

export interface ItemType {
  key: string;
  display_name: string;
  schema: JsonSchema;
  owner: string;
  created_at: string;
}

export async function findItemType(db: Kysely<Database>, key: string): Promise<ItemType | undefined> {
  const row = await db.selectFrom('item_types').selectAll().where('key', '=', key).executeTakeFirst();
  return row ? { ...row, created_at: iso(row.created_at) } : undefined;
}

export async function listItemTypes(db: Kysely<Database>): Promise<ItemType[]> {
  const rows = await db.selectFrom('item_types').selectAll().orderBy('key').execute();
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
}

export async function insertItemType(db: Transaction<Database>, type: Omit<ItemType, 'created_at'>): Promise<ItemType> {
  const row = await db
    .insertInto('item_types')
    .values({ ...type, schema: JSON.stringify(type.schema) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, created_at: iso(row.created_at) };
}
