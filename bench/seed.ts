import type { Service } from '@svc/service';
import { type Database, type Kysely, openStore } from '@svc/store';
import { type RawBuilder, sql } from 'kysely';
import { int, itemText, type Rng, uuid, type Vocabulary } from './corpus.js';
import { ops } from '@svc/service';

/**
 * Seeding goes straight to SQL in batches (unnest over column arrays): the service would take hours for a
 * million items one by one, and only the read path is under test. Rows look like what the service writes:
 * chain_id = id for first versions, a few superseded chains and soft-deleted items, research with a source
 * URL (some of it expired), and work units with their tasks.
 */

const BATCH = 2_000;
const DAY = 86_400_000;
/** The corpus spans two years of activity, ending now. */
const SPAN = 730 * DAY;

/** The `n` of a `select count(*) as n …` query, as a number. */
/**
 * Drop and create database `name` on `server`, and return its URL: every part of the bench measures in a
 * database of its own, which it may throw away (a plain name only, never one a user would have).
 */
export async function recreateDatabase(server: URL, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`'${name}' is not a plain database name`);
  const admin = await openStore({ databaseUrl: new URL('/postgres', server).toString(), poolSize: 1 });
  try {
    await sql.raw(`drop database if exists ${name} with (force)`).execute(admin.db);
    await sql.raw(`create database ${name}`).execute(admin.db);
  } finally {
    await admin.close();
  }
  return new URL(`/${name}`, server).toString();
}

const SEARCH_TRIGGERS = ['items_search_insert', 'items_search_update', 'items_search_delete'];

/**
 * seedItems with the search index's triggers off, then the index built once per project (as import does;
 * decision 0032 made the rebuild set-based), where the schema has one (0010 and earlier do not). Seeding a
 * 100k-item project this way takes minutes less than writing its postings row by row.
 */
export async function seedThenIndex(
  db: Kysely<Database>,
  v: Vocabulary,
  r: Rng,
  shares: Share[],
  window: { from: number; to: number },
  progress: (done: number, total: number) => void = () => {},
): Promise<void> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_trigger where tgname like 'items_search_%'`.execute(db);
  const indexed = (rows[0]?.n ?? 0) > 0;
  if (indexed) for (const t of SEARCH_TRIGGERS) await sql.raw(`alter table items disable trigger ${t}`).execute(db);
  try {
    await seedItems(db, v, r, shares, window, progress);
  } finally {
    if (indexed) for (const t of SEARCH_TRIGGERS) await sql.raw(`alter table items enable trigger ${t}`).execute(db);
  }
  if (indexed) for (const { project } of shares) await sql`select svc_search_rebuild(${project.id}::uuid)`.execute(db);
}

export async function count(db: Kysely<Database>, query: RawBuilder<{ n: string }>): Promise<number> {
  const { rows } = await query.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export interface ProjectRef {
  id: string;
  slug: string;
}

export async function createProjects(service: Service, slugs: string[]): Promise<ProjectRef[]> {
  const out: ProjectRef[] = [];
  for (const slug of slugs) {
    const p = (await service.call(ops.project_create, { slug, name: `Bench ${slug}` }, { source: 'cli' })) as { id: string };
    out.push({ id: p.id, slug });
  }
  return out;
}

/** Glossary groups through the service (there are few, and the operations are the real path). */
export async function seedGlossary(service: Service, project: string, groups: Record<string, string[]>): Promise<void> {
  for (const [name, terms] of Object.entries(groups)) {
    await service.call(ops.glossary_group_add, { project_id: project, name }, { source: 'cli' });
    for (const term of terms) await service.call(ops.glossary_term_add, { project_id: project, group: name, term }, { source: 'cli' });
  }
}

export interface Row {
  id: string;
  project_id: string;
  item_type: string;
  title: string;
  body: string;
  context: string;
  source_url: string | null;
  work_unit_id: string | null;
  status: string | null;
  chain_id: string;
  supersedes_id: string | null;
  is_head: boolean;
  version: number;
  at: string;
  deleted_at: string | null;
}

export async function insertRows(db: Kysely<Database>, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof Row>(k: K) => rows.map((r) => r[k]);
  await sql`
    insert into items (id, project_id, item_type, title, body, context, source_url, work_unit_id, status,
                       chain_id, supersedes_id, is_head, version, created_at, updated_at, refreshed_at, deleted_at)
    select id::uuid, project_id::uuid, item_type, title, body, context::jsonb, source_url, work_unit_id::uuid, status,
           chain_id::uuid, supersedes_id::uuid, is_head, version, at::timestamptz, at::timestamptz, at::timestamptz, deleted_at::timestamptz
    from unnest(${col('id')}::text[], ${col('project_id')}::text[], ${col('item_type')}::text[], ${col('title')}::text[],
                ${col('body')}::text[], ${col('context')}::text[], ${col('source_url')}::text[], ${col('work_unit_id')}::text[],
                ${col('status')}::text[], ${col('chain_id')}::text[], ${col('supersedes_id')}::text[], ${col('is_head')}::bool[],
                ${col('version')}::int[], ${col('at')}::text[], ${col('deleted_at')}::text[])
      as u(id, project_id, item_type, title, body, context, source_url, work_unit_id, status,
           chain_id, supersedes_id, is_head, version, at, deleted_at)`.execute(db);
}

/** Rows for one new item: usually one head; sometimes an older superseded version first. */
export function itemRows(v: Vocabulary, r: Rng, projectId: string, at: number, extra: Partial<Row> = {}, edits = true): Row[] {
  const { title, body } = itemText(v, r);
  const id = uuid(r);
  const research = extra.item_type === undefined && r() < 0.02;
  const head: Row = {
    id,
    project_id: projectId,
    item_type: research ? 'research' : 'decision',
    title,
    body,
    context: '{}',
    source_url: research ? `https://example.test/${id.slice(0, 8)}` : null,
    work_unit_id: null,
    status: null,
    chain_id: id,
    supersedes_id: null,
    is_head: true,
    version: 1,
    at: new Date(at).toISOString(),
    deleted_at: r() < 0.01 ? new Date(at + DAY).toISOString() : null,
    ...extra,
  };
  if (!edits || r() >= 0.03) return [head];
  // An edited item: the first version keeps the older text and is no longer the head.
  const oldId = uuid(r);
  const older = itemText(v, r);
  const old: Row = { ...head, id: oldId, title: older.title, body: older.body, chain_id: oldId, is_head: false, at: new Date(at - DAY).toISOString(), deleted_at: null };
  return [old, { ...head, chain_id: oldId, supersedes_id: oldId, version: 2 }];
}

export interface Share {
  project: ProjectRef;
  /** Head items to add to this project. */
  items: number;
}

/**
 * Add items to several projects at once, interleaved in time as real projects' activity would be (so one
 * project's rows are spread over the table, not packed together). Timestamps run from `from` to `to`.
 */
export async function seedItems(
  db: Kysely<Database>,
  v: Vocabulary,
  r: Rng,
  shares: Share[],
  window: { from: number; to: number },
  progress: (done: number, total: number) => void = () => {},
): Promise<number> {
  const left = shares.map((s) => s.items);
  const total = left.reduce((a, b) => a + b, 0);
  let remaining = total;
  let rows: Row[] = [];
  let written = 0;
  // Two batches in flight: PostgreSQL computes the tsvectors of one while Node.js generates the next.
  const inFlight = new Set<Promise<void>>();
  const send = async (batch: Row[]) => {
    if (inFlight.size >= 2) await Promise.race(inFlight);
    const p: Promise<void> = insertBatch(db, batch).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  for (let n = 0; n < total; n++) {
    // Pick a project with probability proportional to what it still needs: an even interleave.
    let pick = Math.floor(r() * remaining);
    let p = 0;
    while (pick >= (left[p] as number)) pick -= left[p++] as number;
    left[p] = (left[p] as number) - 1;
    remaining--;
    const at = window.from + ((window.to - window.from) * n) / total + r() * DAY;
    rows.push(...itemRows(v, r, (shares[p] as Share).project.id, at));
    if (rows.length >= BATCH) {
      await send(rows);
      written += rows.length;
      rows = [];
      progress(n + 1, total);
    }
  }
  await send(rows);
  await Promise.all(inFlight);
  progress(total, total);
  return written + rows.length;
}

async function insertBatch(db: Kysely<Database>, rows: Row[]): Promise<void> {
  // First versions before the heads that supersede them (foreign keys are checked per statement).
  await insertRows(db, rows.filter((x) => !x.is_head));
  await insertRows(db, rows.filter((x) => x.is_head));
}

/**
 * Work units (most open, the rest closed) with 3–10 tasks each: at most one in progress per unit, as the
 * service guarantees. Returns the number of task items written.
 */
export async function seedWorkUnits(db: Kysely<Database>, v: Vocabulary, r: Rng, project: ProjectRef, units: number, now: number): Promise<number> {
  const ids: string[] = [];
  const titles: string[] = [];
  const statuses: string[] = [];
  const times: string[] = [];
  const tasks: Row[] = [];
  for (let u = 0; u < units; u++) {
    const id = uuid(r);
    const open = r() < 0.6;
    const at = now - r() * 120 * DAY;
    ids.push(id);
    titles.push(itemText(v, r).title);
    statuses.push(open ? 'open' : 'closed');
    times.push(new Date(at).toISOString());
    const count = int(r, 3, 10);
    const active = open && r() < 0.7 ? int(r, 0, count - 1) : -1;
    for (let t = 0; t < count; t++) {
      const status = t === active ? 'in_progress' : open ? (['proposed', 'done', 'blocked', 'proposed'][int(r, 0, 3)] as string) : 'done';
      const extra = { item_type: 'task', work_unit_id: id, status, context: JSON.stringify({ sort_order: t }), deleted_at: null };
      tasks.push(...itemRows(v, r, project.id, at + t * 60_000, extra, false));
    }
  }
  await sql`
    insert into work_units (id, project_id, title, status, created_at, updated_at, closed_at)
    select id::uuid, ${project.id}::uuid, title, status, at::timestamptz, at::timestamptz,
           case when status = 'closed' then at::timestamptz end
    from unnest(${ids}::text[], ${titles}::text[], ${statuses}::text[], ${times}::text[]) as u(id, title, status, at)`.execute(db);
  for (let i = 0; i < tasks.length; i += BATCH) await insertRows(db, tasks.slice(i, i + BATCH));
  return tasks.length;
}

export { DAY, SPAN };
