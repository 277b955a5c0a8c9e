import type { TsPlan } from '@svc/domain';
import { type Kysely, sql, type Transaction } from 'kysely';
import { iso } from './refs.js';
import { researchExpired } from './research.js';
import type { Database } from './schema.js';
import { tsquery } from './search.js';

export interface WorkUnitSummary {
  id: string;
  title: string;
  updated_at: string;
  tasks: { proposed: number; in_progress: number; blocked: number; done: number };
  in_progress_task: { id: string; title: string } | null;
}

export interface RecentItem {
  id: string;
  chain_id: string;
  item_type: string;
  title: string;
  version: number;
  updated_at: string;
}

/**
 * Open work units with their task counts and in-progress task, optionally only those whose title matches a search
 * plan (analysed as item titles are: `probe -zzz` finds "probe unit", which a substring of the whole keyword did
 * not); `limit + 1` read to tell truncation.
 */
export async function activeWorkUnits(
  db: Kysely<Database>,
  f: { project_id: string; system_id?: string | undefined; plan?: TsPlan | undefined },
  limit: number,
): Promise<WorkUnitSummary[]> {
  const { rows } = await sql<{
    id: string;
    title: string;
    updated_at: Date;
    proposed: number;
    in_progress: number;
    blocked: number;
    done: number;
    task_id: string | null;
    task_title: string | null;
  }>`
    with units as (
      select w.id, w.title, w.updated_at from work_units w
      where w.project_id = ${f.project_id}::uuid and w.status = 'open'
        ${f.system_id ? sql`and w.system_id = ${f.system_id}::uuid` : sql``}
        ${f.plan ? sql`and svc_tsvector(w.title) @@ ${tsquery(f.plan)}` : sql``}
      order by w.updated_at desc, w.id
      limit ${limit + 1}
    )
    select u.id, u.title, u.updated_at,
      count(t.id) filter (where t.status = 'proposed')::int as proposed,
      count(t.id) filter (where t.status = 'in_progress')::int as in_progress,
      count(t.id) filter (where t.status = 'blocked')::int as blocked,
      count(t.id) filter (where t.status = 'done')::int as done,
      (array_agg(t.id::text) filter (where t.status = 'in_progress'))[1] as task_id,
      (array_agg(t.title) filter (where t.status = 'in_progress'))[1] as task_title
    from units u
    left join items t on t.work_unit_id = u.id and t.item_type = 'task' and t.is_head and t.deleted_at is null
    group by u.id, u.title, u.updated_at
    order by u.updated_at desc, u.id`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    updated_at: iso(r.updated_at),
    tasks: { proposed: r.proposed, in_progress: r.in_progress, blocked: r.blocked, done: r.done },
    in_progress_task: r.task_id && r.task_title !== null ? { id: r.task_id, title: r.task_title } : null,
  }));
}

/**
 * The latest current items (tasks and QA checks are shown through their work units), newest first, without
 * expired research; optionally only those matching a search plan. `limit + 1` read to tell truncation.
 */
export async function recentItems(
  db: Kysely<Database>,
  f: { project_id: string; system_id?: string | undefined; research_ttl_days: number; plan?: TsPlan | undefined },
  limit: number,
): Promise<RecentItem[]> {
  const { rows } = await sql<{ id: string; chain_id: string; item_type: string; title: string; version: number; updated_at: Date }>`
    select i.id, i.chain_id, i.item_type, i.title, i.version, i.updated_at from items i
    where i.project_id = ${f.project_id}::uuid and i.is_head and i.deleted_at is null
      and i.item_type not in ('task', 'qa_check')
      and not ${researchExpired('i', f.research_ttl_days)}
      ${f.system_id ? sql`and i.system_id = ${f.system_id}::uuid` : sql``}
      ${f.plan ? sql`and i.search @@ ${tsquery(f.plan)}` : sql``}
    order by i.updated_at desc, i.id
    limit ${limit + 1}`.execute(db);
  return rows.map((r) => ({ ...r, updated_at: iso(r.updated_at) }));
}

export interface DecisionEntry {
  id: string;
  chain_id: string;
  title: string;
  version: number;
  supersedes_id: string | null;
  system_id: string | null;
  system_name: string | null;
  updated_at: string;
  /** Other items this decision supersedes through `supersedes` links, by title: at most `maxLinks`. */
  supersedes_links: { id: string; title: string }[];
  /** True when it supersedes more than were listed. */
  supersedes_more: boolean;
}

/**
 * Current decisions of a project (optionally one system), grouped by system name; `limit + 1` read, and for
 * each at most `maxLinks` superseded items (`maxLinks + 1` read).
 */
export async function currentDecisions(
  db: Kysely<Database>,
  f: { project_id: string; system_id?: string | undefined },
  limit: number,
  maxLinks: number,
): Promise<DecisionEntry[]> {
  const { rows } = await sql<{
    id: string;
    chain_id: string;
    title: string;
    version: number;
    supersedes_id: string | null;
    system_id: string | null;
    system_name: string | null;
    updated_at: Date;
    links: { id: string; title: string }[] | null;
  }>`
    with decisions as (
      select i.id, i.chain_id, i.title, i.version, i.supersedes_id, i.system_id, s.name as system_name, i.updated_at
      from items i left join systems s on s.id = i.system_id
      where i.project_id = ${f.project_id}::uuid and i.item_type = 'decision' and i.is_head and i.deleted_at is null
        ${f.system_id ? sql`and i.system_id = ${f.system_id}::uuid` : sql``}
      order by s.name nulls first, i.updated_at desc, i.id
      limit ${limit + 1}
    )
    select d.*, (
      select json_agg(json_build_object('id', s.id, 'title', s.title) order by s.title, s.id)
      from (
        select t.id, t.title from links l join items t on t.chain_id = l.to_chain_id and t.is_head
        where l.from_chain_id = d.chain_id and l.link_type = 'supersedes'
        order by t.title, t.id limit ${maxLinks + 1}
      ) s
    ) as links
    from decisions d
    order by d.system_name nulls first, d.updated_at desc, d.id`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    chain_id: r.chain_id,
    title: r.title,
    version: r.version,
    supersedes_id: r.supersedes_id,
    system_id: r.system_id,
    system_name: r.system_name,
    updated_at: iso(r.updated_at),
    supersedes_links: (r.links ?? []).slice(0, maxLinks),
    supersedes_more: (r.links ?? []).length > maxLinks,
  }));
}

export async function recordSyncJob(
  db: Transaction<Database>,
  job: { project_id: string; kind: string; details: Record<string, unknown>; created_by: string | null },
): Promise<{ id: string; started_at: string }> {
  const row = await db
    .insertInto('sync_jobs')
    .values({ ...job, status: 'succeeded', details: JSON.stringify(job.details), finished_at: new Date() })
    .returning(['id', 'started_at'])
    .executeTakeFirstOrThrow();
  return { id: row.id, started_at: iso(row.started_at) };
}
