import type { Service } from '@svc/service';
import type { Database, Kysely } from '@svc/store';
import { sql } from 'kysely';
import { int, type Rng, type Vocabulary } from './corpus.js';
import { type Stats, timeRounds } from './measure.js';
import { count, DAY, insertRows, itemRows, type ProjectRef, type Row } from './seed.js';
import { ops } from '@svc/service';

/**
 * The audit half of the benchmark: a link graph and QA checks over the measured project, then svc_impact at
 * depth 5 and svc_check with every rule, through the real operation runner.
 */

export const AUDIT_TARGETS = { impact: 20, check: 500 };

const LINK_TYPES = ['depends', 'blocks', 'supersedes', 'conflicts'] as const;
/**
 * Cumulative shares of the link types: depends 50%, blocks 25%, supersedes 20%, conflicts 5% (a conflict
 * between current decisions is a finding someone should resolve, so even 5% — 5,000 open conflicts — is a
 * project in trouble; conflicting-decisions reads every one of them).
 */
const TYPE_SHARES = [0.5, 0.75, 0.95, 1];

/** A rank in [0, n) skewed toward 0: r³ puts a fifth of the picks on the first 1% of the ranks. */
function skewed(r: Rng, n: number): number {
  return Math.min(n - 1, Math.floor(n * r() ** 3));
}

function shuffled<T>(r: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const linkCount = (db: Kysely<Database>, project: ProjectRef) =>
  count(db, sql<{ n: string }>`select count(*) as n from links where project_id = ${project.id}::uuid`);

/**
 * `edges` distinct links between the project's chains (deleted ones included, as in a real project). Most
 * ends are uniform; a share of them prefer a few busy items, so some items have many outgoing links and some
 * are depended on by many: the shape that makes a blast radius large.
 */
async function seedLinks(db: Kysely<Database>, r: Rng, project: ProjectRef, edges: number): Promise<void> {
  const { rows } = await sql<{ chain_id: string }>`
    select chain_id from items where project_id = ${project.id}::uuid and is_head order by chain_id`.execute(db);
  const chains = rows.map((x) => x.chain_id);
  const busyFrom = shuffled(r, chains);
  const busyTo = shuffled(r, chains);
  const n = chains.length;
  for (let have = await linkCount(db, project); have < edges; have = await linkCount(db, project)) {
    const from: string[] = [];
    const to: string[] = [];
    const types: string[] = [];
    for (let k = 0; k < Math.min(10_000, edges - have); k++) {
      const a = r() < 0.8 ? (chains[Math.floor(r() * n)] as string) : (busyFrom[skewed(r, n)] as string);
      const b = r() < 0.6 ? (chains[Math.floor(r() * n)] as string) : (busyTo[skewed(r, n)] as string);
      if (a === b) continue;
      const u = r();
      from.push(a);
      to.push(b);
      types.push(LINK_TYPES[TYPE_SHARES.findIndex((share) => u < share)] as string);
    }
    await sql`
      insert into links (project_id, from_chain_id, link_type, to_chain_id)
      select ${project.id}::uuid, f::uuid, t, d::uuid from unnest(${from}::text[], ${types}::text[], ${to}::text[]) as u(f, t, d)
      on conflict do nothing`.execute(db);
  }
}

/**
 * QA checks on most done tasks (passed, failed or pending; some also target a decision), with the history the
 * service writes when a check passes, and a later edit of some passed targets: every QA rule has rows to read.
 */
async function seedQa(db: Kysely<Database>, v: Vocabulary, r: Rng, project: ProjectRef, now: number): Promise<number> {
  const { rows: tasks } = await sql<{ chain_id: string; work_unit_id: string }>`
    select chain_id, work_unit_id from items
    where project_id = ${project.id}::uuid and item_type = 'task' and is_head and status = 'done' order by chain_id`.execute(db);
  const { rows: decisions } = await sql<{ chain_id: string }>`
    select chain_id from items where project_id = ${project.id}::uuid and item_type = 'decision' and is_head
    order by chain_id limit 5000`.execute(db);
  const checks: Row[] = [];
  const passed: { check: Row; target: string }[] = [];
  for (const task of tasks) {
    if (r() >= 0.7) continue;
    const u = r();
    const status = u < 0.6 ? 'passed' : u < 0.7 ? 'failed' : 'pending';
    const items = r() < 0.3 ? [(decisions[int(r, 0, decisions.length - 1)] as { chain_id: string }).chain_id] : [];
    const context = JSON.stringify({ coverage: 'human_only', target_task_ids: [task.chain_id], target_item_ids: items });
    const at = now - r() * 60 * DAY;
    const [check] = itemRows(v, r, project.id, at, { item_type: 'qa_check', status, context, work_unit_id: task.work_unit_id, deleted_at: null }, false);
    if (!check) continue;
    checks.push(check);
    if (status === 'passed') passed.push({ check, target: task.chain_id });
  }
  await insertRows(db, checks);
  const h = { chain: [] as string[], item: [] as string[], kind: [] as string[], at: [] as string[], details: [] as string[] };
  const add = (chain: string, item: string, kind: string, at: number, details: object) => {
    h.chain.push(chain);
    h.item.push(item);
    h.kind.push(kind);
    h.at.push(new Date(at).toISOString());
    h.details.push(JSON.stringify(details));
  };
  for (const { check, target } of passed) {
    const at = Date.parse(check.at) + DAY;
    add(check.chain_id, check.id, 'status_changed', at, { from: 'pending', to: 'passed' });
    // A fifth of the passed checks see their task edited afterwards: the check verified an older version.
    if (r() < 0.2) add(target, target, 'superseded', at + DAY, {});
  }
  await sql`
    insert into items_history (project_id, chain_id, item_id, version, change_kind, source, changed_at, details)
    select ${project.id}::uuid, c::uuid, i::uuid, 1, k, 'cli', a::timestamptz, d::jsonb
    from unnest(${h.chain}::text[], ${h.item}::text[], ${h.kind}::text[], ${h.at}::text[], ${h.details}::text[]) as u(c, i, k, a, d)`.execute(db);
  return checks.length;
}

export interface AuditSeed {
  edges: number;
  qaChecks: number;
}

export async function seedAudit(db: Kysely<Database>, v: Vocabulary, r: Rng, project: ProjectRef, edges: number, now: number): Promise<AuditSeed> {
  await seedLinks(db, r, project, edges);
  const qaChecks = await seedQa(db, v, r, project, now);
  return { edges, qaChecks };
}

interface ImpactShape {
  name: string;
  /** Beyond the shape (a typical item of a project with 100k links): reported, not counted in the target. */
  stress?: boolean;
  /** Reachable items at depth 5: the median and the largest over the start items. */
  reached: { median: number; max: number };
  starts: number;
  stats: Stats;
}

export interface AuditResult {
  links: number;
  impact: ImpactShape[];
  check: Stats;
  /** Findings of the full check, by severity. */
  findings: Record<'error' | 'warn' | 'info', number>;
  /** Each rule on its own (rule = id), to show where the time of the full check goes. */
  rules: { rule: string; total: number; stats: Stats }[];
}

const DEPTH = 5;

/** Start items for svc_impact: a deterministic sample of current items, and the items with most outgoing links. */
async function starts(db: Kysely<Database>, project: ProjectRef): Promise<{ sample: string[]; busiest: string[] }> {
  const { rows: sample } = await sql<{ id: string }>`
    select i.id from items i
    where i.project_id = ${project.id}::uuid and i.is_head and i.deleted_at is null
      and exists (select 1 from links l where l.from_chain_id = i.chain_id)
    order by md5(i.id::text) limit 200`.execute(db);
  const { rows: busiest } = await sql<{ id: string }>`
    select i.id from links l join items i on i.chain_id = l.from_chain_id and i.is_head and i.deleted_at is null
    where l.project_id = ${project.id}::uuid
    group by i.id order by count(*) desc, i.id limit 20`.execute(db);
  return { sample: sample.map((x) => x.id), busiest: busiest.map((x) => x.id) };
}

/** One timed function that walks through `ids` in turn, so every call starts from another item. */
function cycling(ids: string[], call: (id: string) => Promise<unknown>): () => Promise<unknown> {
  let k = 0;
  return () => call(ids[k++ % ids.length] as string);
}

export async function measureAudit(
  service: Service,
  db: Kysely<Database>,
  project: ProjectRef,
  budget: { iterations: number; warmup: number; rounds: number; checkIterations: number; ruleIterations: number },
  log: (message: string) => void,
): Promise<AuditResult> {
  const cli = { source: 'cli' as const };
  const impactCall = (id: string) => service.call(ops.svc_impact, { project_id: project.id, item_id: id, depth: DEPTH }, cli);
  const { sample, busiest } = await starts(db, project);
  const reached = async (ids: string[]) => {
    const totals: number[] = [];
    for (const id of ids) totals.push(((await impactCall(id)) as { total: number }).total);
    totals.sort((a, b) => a - b);
    return { median: totals[Math.floor(totals.length / 2)] ?? 0, max: totals.at(-1) ?? 0 };
  };
  const shapes = [
    { name: `depth ${DEPTH} from ${sample.length} sampled items with outgoing links`, ids: sample },
    { name: `stress: depth ${DEPTH} from the ${busiest.length} items with most outgoing links`, ids: busiest, stress: true },
  ];
  log(`  timing svc_impact at depth ${DEPTH} (${shapes.length} shapes) in ${budget.rounds} interleaved rounds`);
  const impactStats = await timeRounds(
    shapes.map((s) => cycling(s.ids, impactCall)),
    budget,
  );
  const impact: ImpactShape[] = [];
  for (const [i, s] of shapes.entries()) {
    impact.push({ name: s.name, stress: s.stress, starts: s.ids.length, reached: await reached(s.ids), stats: impactStats[i] as Stats });
  }

  const checkCall = (rule?: string) => () => service.call(ops.svc_check, { project_id: project.id, ...(rule ? { rule } : {}) }, cli);
  const full = (await checkCall()()) as { counts: Record<'error' | 'warn' | 'info', number>; ran: string[]; results: { rule: string; total: number }[] };
  log(`  timing svc_check with every rule (${full.ran.length} rules)`);
  const [check] = await timeRounds([checkCall()], { iterations: budget.checkIterations, warmup: 2, rounds: 1 });
  const perRule = await timeRounds(
    full.ran.map((rule) => checkCall(rule)),
    { iterations: budget.ruleIterations, warmup: 1, rounds: 2 },
  );
  const totals = new Map(full.results.map((x) => [x.rule, x.total]));
  return {
    links: await linkCount(db, project),
    impact,
    check: check as Stats,
    findings: full.counts,
    rules: full.ran.map((rule, i) => ({ rule, total: totals.get(rule) ?? 0, stats: perRule[i] as Stats })),
  };
}
