import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface AuditEntry {
  actor_id: string | null;
  source: string;
  operation: string;
  project_id: string | null;
  target_kind: string | null;
  target_id: string | null;
  request_id: string | null;
  /** Ids and counts only: never user text that may later be redacted. */
  details: Record<string, unknown>;
}

export async function writeAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ ...entry, details: JSON.stringify(entry.details) })
    .execute();
}
