import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcError } from '@svc/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/', import.meta.url));

// Any fixed 64-bit number; every svc process migrating any database takes this advisory lock first.
const MIGRATION_LOCK_KEY = 7_305_162_011_853_001n;

export interface MigrationFile {
  id: string;
  name: string;
  release: string;
  checksum: string;
  sql: string;
}

export interface MigrationStatus {
  /** Latest applied migration id, or null for an empty database. */
  current: string | null;
  currentRelease: string | null;
  /** Latest migration this code knows. */
  latest: string;
  latestRelease: string;
  applied: { id: string; name: string; release: string; applied_at: Date }[];
  pending: { id: string; name: string; release: string }[];
  /** Applied ids this code does not know: the database is newer than the code. */
  unknown: string[];
  /** Applied migrations whose file changed since (a landed migration is frozen). */
  modified: string[];
}

export function loadMigrations(dir: string = MIGRATIONS_DIR): MigrationFile[] {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  return files.map((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const release = /^--\s*release:\s*(\S+)/m.exec(text)?.[1];
    if (!release) throw new Error(`migration ${file} has no '-- release: vX.Y' header`);
    return {
      id: file.slice(0, 4),
      name: file.slice(5, -4),
      release,
      checksum: createHash('sha256').update(text).digest('hex'),
      sql: text,
    };
  });
}

async function ensureTable(db: Kysely<Database>): Promise<void> {
  await sql`
    create table if not exists schema_migrations (
      id text primary key,
      name text not null,
      release text not null,
      checksum text not null,
      applied_at timestamptz not null default now()
    )`.execute(db);
}

async function tableExists(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`select to_regclass('schema_migrations') is not null as present`.execute(db);
  return rows[0]?.present === true;
}

export async function migrationStatus(db: Kysely<Database>, dir?: string): Promise<MigrationStatus> {
  const files = loadMigrations(dir);
  const applied = (await tableExists(db))
    ? await db.selectFrom('schema_migrations').selectAll().orderBy('id').execute()
    : [];
  const known = new Map(files.map((f) => [f.id, f]));
  const appliedIds = new Set(applied.map((a) => a.id));
  const last = applied.at(-1);
  const latest = files.at(-1);
  if (!latest) throw new Error('no migrations found');
  return {
    current: last?.id ?? null,
    currentRelease: last?.release ?? null,
    latest: latest.id,
    latestRelease: latest.release,
    applied: applied.map((a) => ({ id: a.id, name: a.name, release: a.release, applied_at: a.applied_at })),
    pending: files.filter((f) => !appliedIds.has(f.id)).map((f) => ({ id: f.id, name: f.name, release: f.release })),
    unknown: applied.filter((a) => !known.has(a.id)).map((a) => a.id),
    modified: applied.filter((a) => known.has(a.id) && known.get(a.id)?.checksum !== a.checksum).map((a) => a.id),
  };
}

/**
 * Apply every pending migration, all in one transaction under an advisory lock, so any number of processes
 * may migrate one database at once: the first applies, the others wait and then find nothing to do.
 */
export async function migrate(db: Kysely<Database>, dir?: string): Promise<{ applied: string[]; current: string }> {
  const files = loadMigrations(dir);
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY.toString())}::bigint)`.execute(tx);
    await ensureTable(tx);
    const status = await migrationStatus(tx, dir);
    refuseIfDiverged(status);
    const applied: string[] = [];
    for (const file of files) {
      if (!status.pending.some((p) => p.id === file.id)) continue;
      await sql.raw(file.sql).execute(tx);
      await tx
        .insertInto('schema_migrations')
        .values({ id: file.id, name: file.name, release: file.release, checksum: file.checksum })
        .execute();
      applied.push(file.id);
    }
    return { applied, current: files.at(-1)?.id ?? '' };
  });
}

function refuseIfDiverged(status: MigrationStatus): void {
  if (status.unknown.length > 0) {
    throw new SvcError(
      'unavailable',
      `the database has schema ${status.current} (${status.currentRelease}), newer than this svc (${status.latest}, ${status.latestRelease}); upgrade svc`,
      { unknown: status.unknown },
    );
  }
  if (status.modified.length > 0) {
    throw new SvcError(
      'unavailable',
      `migration(s) ${status.modified.join(', ')} changed after they were applied; a landed migration is frozen — restore the file and add a new migration instead`,
      { modified: status.modified },
    );
  }
}

/** For servers on PostgreSQL: refuse to start on a database that is behind or ahead of the code. */
export async function assertSchemaCurrent(db: Kysely<Database>): Promise<void> {
  const status = await migrationStatus(db);
  refuseIfDiverged(status);
  if (status.pending.length > 0) {
    throw new SvcError(
      'unavailable',
      `the database schema is at ${status.current ?? 'nothing'}; migrations ${status.pending.map((p) => p.id).join(', ')} are pending. Run \`svc migrate\` (or start with --migrate).`,
      { pending: status.pending.map((p) => p.id) },
    );
  }
}
