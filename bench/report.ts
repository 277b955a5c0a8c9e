import { AUDIT_TARGETS, type AuditResult } from './audit.js';
import type { ShapeResult, Stats } from './measure.js';
import { type TypedResult, typedTable } from './typed.js';

export const TARGETS = { brief: 15 };

/**
 * svc_item_search's in-process p95 targets on PostgreSQL (issue 18, "Speed"): ≤ 5 ms at 100k items in the
 * project, ≤ 15 ms at 1M items in the database. A run is judged against the first size that holds it, by the
 * current items of the measured project and the rows of `items` in all projects (superseded versions and
 * tasks included: the 100k run holds about 206k rows, the 1M run about 1.03M). Beyond 1M the issue sets none.
 */
export const SEARCH_TARGETS = [
  { size: '100k items in the project', projectItems: 100_000, rows: 250_000, p95: 5 },
  { size: '1M items in the database', projectItems: 100_000, rows: 1_100_000, p95: 15 },
] as const;

/** The search p95 target (ms) for a run of this size, or undefined when the issue sets none. */
function searchTarget(rows: RunResult['rows']): number | undefined {
  return SEARCH_TARGETS.find((t) => rows.projectHeads <= t.projectItems && rows.items <= t.rows)?.p95;
}

export interface RunResult {
  backend: 'postgres' | 'pglite';
  title: string;
  /** Rows of `items` in all projects, current items of the measured project, projects. */
  rows: { items: number; projectHeads: number; projects: number };
  seedSeconds: number;
  sizes?: { table: string; searchIndex: string } | undefined;
  shapes: ShapeResult[];
  brief?: Stats | undefined;
  audit?: AuditResult | undefined;
  /** Queries as assistants type them (bench/typed.ts), each called `rounds` times. */
  typed?: { results: TypedResult[]; rounds: number } | undefined;
  /** 1-minute load average before and after the svc timings. */
  load?: string | undefined;
  /** Targets apply to PostgreSQL only. */
  targeted: boolean;
}

export interface Machine {
  cpu: string;
  nproc: number;
  memoryGiB: number;
  node: string;
  os: string;
  postgres?: string | undefined;
  postgresSettings?: string | undefined;
  pglite?: string | undefined;
  /** 1-minute load averages when the run started and ended (other work on the machine skews the tails). */
  load?: string | undefined;
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;

function verdict(p95: number, target: number | undefined, targeted: boolean, stress = false): string {
  if (!targeted) return '—';
  if (target === undefined) return 'no target at this size';
  if (stress) return p95 <= target ? `within ${target} (stress)` : `over by ${ms(p95 - target)} ms (stress)`;
  return p95 <= target ? `met (≤ ${target})` : `**missed by ${ms(p95 - target)} ms**`;
}

function table(run: RunResult): string {
  const lines = [
    `### ${run.title}`,
    '',
    `${run.rows.items.toLocaleString('en')} rows in \`items\` across ${run.rows.projects} projects; ` +
      `${run.rows.projectHeads.toLocaleString('en')} current items in the measured project. ` +
      `Seeding took ${run.seedSeconds.toFixed(0)} s` +
      (run.sizes ? `; items table ${run.sizes.table}, items_project_search index ${run.sizes.searchIndex}.` : '.') +
      (run.load ? ` Load average (1 min) before / after the svc timings: ${run.load}.` : ''),
    '',
    '| shape | query | matches | svc p50 | svc p95 | svc p99 | bare GIN p50 / p95 | plain ranked p50 / p95 | svc ÷ bare (p50) | plain ranked ÷ svc (p50) | exact top 20 kept | rank kept | p95 target |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const s of run.shapes) {
    lines.push(
      `| ${s.name} | \`${s.query}\` | ${s.matches.toLocaleString('en')} | ${ms(s.service.p50)} | ${ms(s.service.p95)} | ${ms(s.service.p99)} | ` +
        `${ms(s.bare.p50)} / ${ms(s.bare.p95)} | ${ms(s.ranked.p50)} / ${ms(s.ranked.p95)} (n=${s.ranked.n}) | ` +
        `${ratio(s.service.p50, s.bare.p50)} | ${ratio(s.ranked.p50, s.service.p50)} | ${Math.round(s.overlap * 100)}% | ` +
        `${Math.round(s.rankKept * 100)}% | ` +
        `${verdict(s.service.p95, searchTarget(run.rows), run.targeted, s.stress)} |`,
    );
  }
  if (run.brief) {
    const b = run.brief;
    lines.push(`| svc_brief | — | — | ${ms(b.p50)} | ${ms(b.p95)} | ${ms(b.p99)} | — | — | — | — | — | — | ${verdict(b.p95, TARGETS.brief, run.targeted)} |`);
  } else {
    lines.push('| svc_brief | — | — | not in the catalog | | | | | | | | | |');
  }
  if (run.typed) lines.push('', typedTable(run.typed.results, run.typed.rounds));
  if (run.audit) lines.push('', auditTable(run.audit, run.targeted));
  return lines.join('\n');
}

function auditTable(a: AuditResult, targeted: boolean): string {
  const f = a.findings;
  const lines = [
    `Audit: ${a.links.toLocaleString('en')} links in the measured project. svc_check with every rule found ` +
      `${f.error.toLocaleString('en')} errors, ${f.warn.toLocaleString('en')} warnings and ${f.info.toLocaleString('en')} infos.`,
    '',
    '| operation | items reached (median / max) | n | p50 | p95 | p99 | p95 target |',
    '|---|--:|--:|--:|--:|--:|---|',
  ];
  for (const s of a.impact) {
    lines.push(
      `| svc_impact, ${s.name} | ${s.reached.median.toLocaleString('en')} / ${s.reached.max.toLocaleString('en')} | ${s.stats.n} | ` +
        `${ms(s.stats.p50)} | ${ms(s.stats.p95)} | ${ms(s.stats.p99)} | ${verdict(s.stats.p95, AUDIT_TARGETS.impact, targeted, s.stress)} |`,
    );
  }
  const c = a.check;
  lines.push(`| svc_check, every rule | — | ${c.n} | ${ms(c.p50)} | ${ms(c.p95)} | ${ms(c.p99)} | ${verdict(c.p95, AUDIT_TARGETS.check, targeted)} |`);
  lines.push('', 'Each rule alone (`rule` given), to show where the full check spends its time:', '', '| rule | findings | n | p50 | p95 |', '|---|--:|--:|--:|--:|');
  for (const r of a.rules) lines.push(`| \`${r.rule}\` | ${r.total.toLocaleString('en')} | ${r.stats.n} | ${ms(r.stats.p50)} | ${ms(r.stats.p95)} |`);
  return lines.join('\n');
}

/** A one-line summary per run for the console. */
export function summary(run: RunResult): string {
  const required = run.shapes.filter((s) => !s.stress);
  const worst = required.reduce((w, s) => (s.service.p95 > w.service.p95 ? s : w));
  const brief = run.brief ? `, brief p95 ${ms(run.brief.p95)} ms` : '';
  const impact = run.audit ? Math.max(...run.audit.impact.filter((s) => !s.stress).map((s) => s.stats.p95)) : undefined;
  const audit = run.audit ? `, impact p95 ${ms(impact as number)} ms (stress aside), check p95 ${ms(run.audit.check.p95)} ms` : '';
  return `${run.title}: worst search p95 ${ms(worst.service.p95)} ms (${worst.name}, stress shapes aside)${brief}${audit}`;
}

export function document(machine: Machine, command: string, date: string, runs: RunResult[], notes: string, sections: string[] = []): string {
  const out = [
    '# Benchmarks',
    '',
    '<!-- Generated by `pnpm bench` (bench/run.ts); edit the script, not this file. -->',
    '',
    `Generated ${date} by \`${command}\`.`,
    '',
    '## Machine',
    '',
    `- CPU: ${machine.cpu}, nproc ${machine.nproc}`,
    `- Memory: ${machine.memoryGiB.toFixed(1)} GiB`,
    `- OS: ${machine.os}`,
    `- Node.js: ${machine.node}`,
  ];
  if (machine.postgres) out.push(`- PostgreSQL: ${machine.postgres}${machine.postgresSettings ? ` (${machine.postgresSettings})` : ''}`);
  if (machine.pglite) out.push(`- PGlite: ${machine.pglite} (in memory)`);
  if (machine.load) out.push(`- Load average (1 min) at start / end: ${machine.load}`);
  out.push('', '## Method', '', notes, '', '## Results', '', 'Times in milliseconds.', '');
  for (const run of runs) out.push(table(run), '');
  for (const section of sections) out.push(section, '');
  return `${out.join('\n').trimEnd()}\n`;
}
