import type { Transaction } from 'kysely';
import type { AuditLogTable, Database } from './schema.js';

/** An audit row as written: the table's columns but its own id and time. */
export interface AuditEntry extends Omit<AuditLogTable, 'id' | 'at' | 'details'> {
  /** Ids and counts only: never user text that may later be redacted. */
  details: Record<string, unknown>;
}

export async function writeAudit(db: Transaction<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ ...entry, details: JSON.stringify(entry.details) })
    .execute();
}
