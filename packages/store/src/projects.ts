import { type IdRef, isSlug, isUuid, type Project, parseIdRef, projectSettings, type SvcError } from '@svc/domain';
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import { prepared } from './prepared.js';
import { idMatches, iso, likeStartsWith, NAMES_LISTED, notFoundAmong, onlyMatch } from './refs.js';
import type { Database, ProjectRow } from './schema.js';

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    settings: projectSettings(row.settings),
    created_at: iso(row.created_at),
  };
}

/** The columns a Project is read from (toProject), named: see PROJECT_BY_SLUG. */
export const PROJECT_COLUMNS = ['id', 'slug', 'name', 'settings', 'created_at'] as const;

/**
 * The look-up nearly every operation starts with, by slug, prepared by name (prepared.ts). Its columns are named:
 * a prepared `select *` fails ("cached plan must not change result type") in a server still running while a
 * newer version's migration adds a column.
 */
const PROJECT_BY_SLUG = prepared('project_by_slug', `select ${PROJECT_COLUMNS.join(', ')} from projects where slug = $1::text`);

/** The slug resolveProject looks `raw` up by first, if it reads as one (else it is an id or id prefix). */
export function slugOf(raw: string): string | undefined {
  const input = raw.trim();
  return input !== '' && !isUuid(input) && isSlug(input.toLowerCase()) ? input.toLowerCase() : undefined;
}

/** A project by UUID, unique id prefix, or slug. */
export async function resolveProject(db: Kysely<Database>, raw: string, field = 'project_id'): Promise<Project> {
  const input = raw.trim();
  const slug = slugOf(input);
  if (slug !== undefined) {
    const [bySlug] = (await db.executeQuery<ProjectRow>(CompiledQuery.raw(PROJECT_BY_SLUG, [slug]))).rows;
    if (bySlug) return toProject(bySlug);
    // Fall through: a slug made only of hex digits may be an id prefix.
    if (!/^[0-9a-f-]+$/i.test(input)) throw await projectNotFound(db, raw, field);
  }
  let ref: IdRef;
  try {
    ref = parseIdRef(input, field);
  } catch (error) {
    if (input !== '') throw await projectNotFound(db, raw, field);
    throw error;
  }
  const rows = await db.selectFrom('projects').selectAll().where(idMatches('id', ref)).limit(10).execute();
  if (rows.length === 0) throw await projectNotFound(db, raw, field);
  return toProject(onlyMatch(rows, 'project', ref, (r) => ({ id: r.id, label: r.slug }), raw));
}

/**
 * A project reference that names none, refused with the projects there are (a newcomer misspelt `default` and was
 * told only that `defualt` was not found), as an unknown system is refused with the project's systems.
 */
async function projectNotFound(db: Kysely<Database>, raw: string, field: string): Promise<SvcError> {
  const rows = await db.selectFrom('projects').select('slug').orderBy('slug').limit(NAMES_LISTED + 1).execute();
  return notFoundAmong(
    'project',
    raw,
    field,
    rows.map((r) => r.slug),
    { none: 'there are no projects yet', some: 'projects', hint: 'give a slug, id or id prefix; an operator adds one: svc project create SLUG' },
  );
}

export async function insertProject(
  db: Transaction<Database>,
  values: { slug: string; name: string; settings?: Record<string, unknown> },
): Promise<Project> {
  const row = await db
    .insertInto('projects')
    .values({ slug: values.slug, name: values.name, settings: JSON.stringify(values.settings ?? {}) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toProject(row);
}

export async function findProjectBySlug(db: Kysely<Database>, slug: string): Promise<Project | undefined> {
  const row = await db.selectFrom('projects').selectAll().where('slug', '=', slug).executeTakeFirst();
  return row ? toProject(row) : undefined;
}

/** A project holding this id or this slug (either), as an import checks before keeping a file's ids. */
export async function findProjectByIdOrSlug(db: Kysely<Database>, id: string, slug: string): Promise<{ id: string; slug: string } | undefined> {
  return db
    .selectFrom('projects')
    .select(['id', 'slug'])
    .where((eb) => eb.or([eb('id', '=', id), eb('slug', '=', slug)]))
    .executeTakeFirst();
}

export async function listProjects(db: Kysely<Database>, limit: number): Promise<Project[]> {
  const rows = await db.selectFrom('projects').selectAll().orderBy('slug').limit(limit).execute();
  return rows.map(toProject);
}

/** The project created first (the one first use set up), if any. */
export async function oldestProject(db: Kysely<Database>): Promise<Project | undefined> {
  const row = await db.selectFrom('projects').selectAll().orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  return row ? toProject(row) : undefined;
}

export async function updateProjectSettings(
  db: Transaction<Database>,
  projectId: string,
  settings: Record<string, unknown>,
): Promise<Project> {
  const row = await db
    .updateTable('projects')
    .set({ settings: JSON.stringify(settings) })
    .where('id', '=', projectId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toProject(row);
}

/** Slugs that start with `prefix`, in order; `limit + 1` read to tell truncation (completion of project names). */
export async function projectSlugsByPrefix(db: Kysely<Database>, prefix: string, limit: number): Promise<string[]> {
  const like = likeStartsWith(prefix.toLowerCase());
  const rows = await db.selectFrom('projects').select('slug').where('slug', 'like', like).orderBy('slug').limit(limit + 1).execute();
  return rows.map((r) => r.slug);
}

/** Serialises two first uses of one database (two `svc init` on PostgreSQL at once): one creates, one finds. */
const FIRST_USE_LOCK_KEY = 0x737663_0028n;

/** Wait for, then hold until the transaction ends, the first-use lock (docs/decisions/0028). */
export async function lockFirstUse(tx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(FIRST_USE_LOCK_KEY.toString())}::bigint)`.execute(tx);
}
