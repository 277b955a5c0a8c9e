import { findCycles, type LinkType, RESEARCH_EXPIRING_DAYS, type RuleId, WAIT_LINK_TYPES, waitForEdge } from '@svc/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { researchExpired, researchExpiresAt, researchExpiring } from './research.js';
import type { Database } from './schema.js';

export interface FindingItem {
  id: string;
  title: string;
  kind: string;
}

interface RawFinding {
  items: FindingItem[];
  note: string;
}

/** Most findings one rule reports; the total is still counted. */
export const MAX_FINDINGS_PER_RULE = 50;
/** Items listed in one finding (a cycle, a closed unit's open tasks); its note gives the full count. */
const MAX_ITEMS_PER_FINDING = 10;

type RuleQuery = (db: Kysely<Database>, projectId: string, settings: { research_ttl_days: number }) => Promise<{ findings: RawFinding[]; total: number }>;

interface Row {
  items: FindingItem[];
  note: string;
  total: number;
}

/** Run a query whose rows are (items jsonb, note text); it is wrapped to count and bound its findings. */
async function bounded(db: Kysely<Database>, query: RawBuilder<unknown>): Promise<{ findings: RawFinding[]; total: number }> {
  const { rows } = await sql<Row>`
    select f.items, f.note, (count(*) over ())::int as total
    from (${query}) f
    limit ${MAX_FINDINGS_PER_RULE}`.execute(db);
  return { findings: rows.map((r) => ({ items: r.items, note: r.note })), total: rows[0]?.total ?? 0 };
}

const item = (alias: string) =>
  sql.raw(`jsonb_build_object('id', ${alias}.id, 'title', ${alias}.title, 'kind', ${alias}.item_type)`);

const current = (alias: string) => sql.raw(`${alias}.is_head and ${alias}.deleted_at is null`);

/**
 * When task `alias` last entered in_progress: its latest status change to in_progress in items_history (what
 * svc_task_start records), else, for a task written in that state without one (an import), the row's
 * creation. Edits, deletes and restores do not move it, unlike updated_at.
 */
const startedAt = (alias: string) =>
  sql.raw(`coalesce((select max(h.changed_at) from items_history h
            where h.chain_id = ${alias}.chain_id and h.change_kind = 'status_changed' and h.details->>'to' = 'in_progress'), ${alias}.created_at)`);

/**
 * Rows `o` of project p that end a chain without a head: the last version (nothing supersedes it) is not the
 * head. The unique index items_one_head_per_chain rules out two heads, so this is every broken chain.
 */
const headlessEnds = (p: string) =>
  sql`o.project_id = ${p}::uuid and not o.is_head and not exists (select 1 from items s where s.supersedes_id = o.id)`;

/** Chains of the project without a current version: the head is deleted, or there is no head (chain-integrity). */
const brokenChains = (p: string) => sql`
  select d.chain_id from items d where d.project_id = ${p}::uuid and d.is_head and d.deleted_at is not null
  union all
  select o.chain_id from items o where ${headlessEnds(p)}`;

/** Current research items of project p that `expiry` selects, each noted `expired`/`expires` with its date, oldest refresh first. */
const researchByExpiry = (db: Kysely<Database>, p: string, word: 'expired' | 'expires', expiry: RawBuilder<unknown>, ttlDays: number) =>
  bounded(
    db,
    sql`select jsonb_build_array(${item('i')}) as items,
               ${`${word} `} || to_char(${researchExpiresAt('i', ttlDays)}, 'YYYY-MM-DD') as note
        from items i
        where i.project_id = ${p}::uuid and i.item_type = 'research' and ${current('i')} and ${expiry}
        order by i.refreshed_at, i.id`,
  );

export const RULE_QUERIES: Record<RuleId, RuleQuery> = {
  'conflicting-decisions': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('a')}, ${item('b')}) as items, 'conflicts' as note
          from links l
          join items a on a.chain_id = l.from_chain_id and ${current('a')}
          join items b on b.chain_id = l.to_chain_id and ${current('b')}
          where l.project_id = ${p}::uuid and l.link_type = 'conflicts'
          order by a.title, b.title`,
    ),

  'dependency-cycle': async (db, p) => {
    // The waiting links straight from the links index (no join per edge), less those touching one of the few
    // chains without a current version: cycles are reported among current items only. Each link becomes its
    // wait-for edge (domain: a blocks link points the other way), so a cycle is items waiting on each other.
    const { rows } = await sql<{ link_type: LinkType; from_chain_id: string; to_chain_id: string }>`
      with broken as (${brokenChains(p)})
      select l.link_type, l.from_chain_id, l.to_chain_id from links l
      where l.project_id = ${p}::uuid and l.link_type in (${sql.join(WAIT_LINK_TYPES)})
        and l.from_chain_id not in (select chain_id from broken) and l.to_chain_id not in (select chain_id from broken)`.execute(db);
    const edges = rows
      .map((e) => waitForEdge(e.link_type, e.from_chain_id, e.to_chain_id))
      .filter((e): e is readonly [string, string] => e !== null);
    const cycles = findCycles(edges);
    const shown = cycles.slice(0, MAX_FINDINGS_PER_RULE).map((cycle) => ({ size: cycle.length, listed: cycle.slice(0, MAX_ITEMS_PER_FINDING) }));
    const chains = [...new Set(shown.flatMap((c) => c.listed))];
    const heads =
      chains.length === 0
        ? []
        : await db
            .selectFrom('items')
            .select(['id', 'chain_id', 'title', 'item_type'])
            .where('chain_id', 'in', chains)
            .where('is_head', '=', true)
            .execute();
    const byChain = new Map(heads.map((h) => [h.chain_id, { id: h.id, title: h.title, kind: h.item_type }]));
    return {
      findings: shown.map(({ size, listed }) => ({
        items: listed.map((c) => byChain.get(c)).filter((x): x is FindingItem => x !== undefined),
        note: `cycle of ${size}${size > listed.length ? `, first ${listed.length} listed` : ''}`,
      })),
      total: cycles.length,
    };
  },

  'chain-integrity': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('o')}) as items, 'no current version' as note
          from items o where ${headlessEnds(p)}
          order by o.title, o.id`,
    ),

  'qa-failed-on-done-task': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('q')}, ${item('t')}) as items, 'failed check on a done task' as note
          from items q
          join lateral jsonb_array_elements_text(q.context->'target_task_ids') target(chain) on true
          join items t on t.chain_id = target.chain::uuid and ${current('t')} and t.status = 'done'
          where q.project_id = ${p}::uuid and q.item_type = 'qa_check' and ${current('q')} and q.status = 'failed'
          order by q.title`,
    ),

  // From the few deleted heads to their links (both directions), not from every link to its ends.
  'dangling-link': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('a')}, ${item('b')}) as items,
                 l.link_type || case when a.deleted_at is not null then ' from a deleted item' else ' to a deleted item' end as note
          from (
            select l.link_type, l.from_chain_id, l.to_chain_id
            from items d join links l on l.from_chain_id = d.chain_id and l.project_id = d.project_id
            where d.project_id = ${p}::uuid and d.is_head and d.deleted_at is not null
            union
            select l.link_type, l.from_chain_id, l.to_chain_id
            from items d join links l on l.to_chain_id = d.chain_id and l.project_id = d.project_id
            where d.project_id = ${p}::uuid and d.is_head and d.deleted_at is not null
          ) l
          join items a on a.chain_id = l.from_chain_id and a.is_head
          join items b on b.chain_id = l.to_chain_id and b.is_head
          order by a.title, b.title`,
    ),

  'research-expired': (db, p, s) => researchByExpiry(db, p, 'expired', researchExpired('i', s.research_ttl_days), s.research_ttl_days),

  'closed-unit-unfinished-tasks': (db, p) =>
    bounded(
      db,
      sql`select to_jsonb((array_agg(${item('t')} order by t.title, t.id))[1:${sql.lit(MAX_ITEMS_PER_FINDING)}]) as items,
                 'work unit ' || w.title || ' is closed with ' || count(*) || ' unfinished task(s)' ||
                   case when count(*) > ${sql.lit(MAX_ITEMS_PER_FINDING)} then ${sql.lit(`, first ${MAX_ITEMS_PER_FINDING} listed`)} else '' end as note
          from work_units w
          join items t on t.work_unit_id = w.id and t.item_type = 'task' and ${current('t')} and t.status <> 'done'
          where w.project_id = ${p}::uuid and w.status = 'closed'
          group by w.id, w.title
          order by w.title`,
    ),

  'stale-in-progress': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('t')}) as items, 'in progress since ' || to_char(s.started_at, 'YYYY-MM-DD HH24:MI') as note
          from items t
          cross join lateral (select ${startedAt('t')} as started_at) s
          where t.project_id = ${p}::uuid and t.item_type = 'task' and ${current('t')} and t.status = 'in_progress'
            and s.started_at < now() - interval '14 days'
          order by s.started_at`,
    ),

  'qa-passed-on-superseded-target': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('q')}, ${item('t')}) as items, 'target changed after the check passed' as note
          from items q
          join lateral (
            select max(h.changed_at) as passed_at from items_history h
            where h.chain_id = q.chain_id and h.change_kind = 'status_changed' and h.details->>'to' = 'passed'
          ) pass on pass.passed_at is not null
          join lateral (
            select jsonb_array_elements_text(coalesce(q.context->'target_task_ids', '[]') || coalesce(q.context->'target_item_ids', '[]')) as chain
          ) target on true
          join items t on t.chain_id = target.chain::uuid and ${current('t')}
          where q.project_id = ${p}::uuid and q.item_type = 'qa_check' and ${current('q')} and q.status = 'passed'
            and exists (
              select 1 from items_history h
              where h.chain_id = t.chain_id and h.change_kind = 'superseded' and h.changed_at > pass.passed_at
            )
          order by q.title, t.title`,
    ),

  'glossary-term-in-two-groups': (db, p) =>
    bounded(
      db,
      sql`select jsonb_agg(jsonb_build_object('id', t.id, 'title', t.term || ' (' || g.name || ')', 'kind', 'glossary_term') order by g.name) as items,
                 'term ' || min(t.term) || ' is in groups ' || string_agg(g.name, ', ' order by g.name) as note
          from glossary_terms t join glossary_groups g on g.id = t.group_id
          where t.project_id = ${p}::uuid and t.status = 'accepted'
          group by t.normalized
          having count(distinct t.group_id) > 1
          order by t.normalized`,
    ),

  'research-expiring': (db, p, s) =>
    researchByExpiry(db, p, 'expires', researchExpiring('i', s.research_ttl_days, RESEARCH_EXPIRING_DAYS), s.research_ttl_days),

  'done-task-without-qa': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('t')}) as items, 'done without a QA check' as note
          from items t
          where t.project_id = ${p}::uuid and t.item_type = 'task' and ${current('t')} and t.status = 'done'
            and not exists (
              select 1 from items q
              where q.project_id = t.project_id and q.item_type = 'qa_check' and ${current('q')}
                and q.context->'target_task_ids' ? t.chain_id::text
            )
          order by t.updated_at desc`,
    ),

  'empty-decision': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(${item('i')}) as items, 'no body' as note
          from items i
          where i.project_id = ${p}::uuid and i.item_type = 'decision' and ${current('i')} and btrim(i.body) = ''
          order by i.updated_at desc`,
    ),

  'stale-work-unit': (db, p) =>
    bounded(
      db,
      sql`select jsonb_build_array(jsonb_build_object('id', w.id, 'title', w.title, 'kind', 'work_unit')) as items,
                 'idle since ' || to_char(w.updated_at, 'YYYY-MM-DD') as note
          from work_units w
          where w.project_id = ${p}::uuid and w.status = 'open' and w.updated_at < now() - interval '30 days'
          order by w.updated_at`,
    ),
};
