import { atLeast, findRule, invalidInput, RULES, SEVERITIES, type Severity, shortId } from '@svc/domain';
import { type FindingItem, MAX_FINDINGS_PER_RULE, RULE_QUERIES, resolveProject } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { inline } from '../markdown.js';
import { defineOperation } from '../operation.js';

interface RuleResult {
  rule: string;
  severity: Severity;
  description: string;
  fix: string;
  total: number;
  findings: { items: FindingItem[]; note: string }[];
  truncated: boolean;
}

export interface CheckResult {
  project: { id: string; slug: string };
  threshold: Severity;
  ran: string[];
  /** Rules skipped because the project's settings disable them. */
  disabled: string[];
  /** The rule asked for by name although the settings disable it: it ran because it was asked for. */
  disabled_but_requested: string[];
  counts: Record<Severity, number>;
  hidden_below_threshold: number;
  results: RuleResult[];
}

function render(r: CheckResult): string {
  const c = r.counts;
  const lines = [
    `# Checks: ${inline(r.project.slug)}`,
    '',
    `${c.error} error${c.error === 1 ? '' : 's'}, ${c.warn} warning${c.warn === 1 ? '' : 's'}, ${c.info} info` +
      ` (${r.ran.length} rule${r.ran.length === 1 ? '' : 's'} run${r.disabled.length > 0 ? `; disabled: ${r.disabled.join(', ')}` : ''}` +
      `${r.hidden_below_threshold > 0 ? `; ${r.hidden_below_threshold} finding(s) below the ${r.threshold} threshold not shown` : ''}).`,
  ];
  for (const rule of r.disabled_but_requested) {
    lines.push('', `Rule \`${rule}\` is disabled in the project's settings; it ran because it was asked for.`);
  }
  const shown = r.results.filter((x) => x.total > 0);
  if (shown.length === 0) lines.push('', '_No findings._');
  for (const result of shown) {
    lines.push('', `## ${result.severity} \`${result.rule}\`: ${result.description}`, '');
    for (const f of result.findings) {
      const items = f.items.map((i) => `${inline(i.title, 80)} (\`${shortId(i.id)}\`)`).join(' ↔ ');
      lines.push(`- ${items}${items && f.note ? ' — ' : ''}${inline(f.note, 160)}`);
    }
    if (result.truncated) lines.push(`- _${result.total - result.findings.length} more not shown._`);
    lines.push(`- Fix: ${result.fix}`);
  }
  return lines.join('\n');
}

export const check = defineOperation({
  name: 'svc_check',
  surface: 'tool',
  title: 'Run the rule checks',
  description:
    'Run the deterministic rule pack (no model) over a project; findings as markdown: conflicting decisions, ' +
    'dependency cycles, failed QA on done tasks, expired research, stale work, and more. rule runs one rule, even a ' +
    'disabled one (the answer says so). severity hides lesser findings only, not checks.',
  input: z.object({
    project_id: projectRef,
    rule: z.string().max(100).optional().describe('One rule id to run (empty: every enabled rule)'),
    severity: z.enum(SEVERITIES).optional().describe('Display threshold: error, warn or info (default info: show all)'),
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  presentation: { kind: 'markdown', render },
  async run(ctx, input): Promise<CheckResult> {
    const project = await resolveProject(ctx.db, input.project_id);
    const threshold = input.severity ?? 'info';
    const disabled = project.settings.checks.disabled_rules;
    let selected: readonly (typeof RULES)[number][];
    if (input.rule) {
      if (!findRule(input.rule)) {
        throw invalidInput('rule', `unknown rule '${input.rule}'; rules: ${RULES.map((r) => r.id).join(', ')}`);
      }
      selected = RULES.filter((r) => r.id === input.rule);
    } else {
      selected = RULES.filter((r) => !disabled.includes(r.id));
    }
    const counts: Record<Severity, number> = { error: 0, warn: 0, info: 0 };
    const results: RuleResult[] = [];
    let hidden = 0;
    for (const rule of selected) {
      const { findings, total } = await RULE_QUERIES[rule.id](ctx.db, project.id, { research_ttl_days: project.settings.research.ttl_days });
      counts[rule.severity] += total;
      if (!atLeast(rule.severity, threshold)) {
        hidden += total;
        continue;
      }
      results.push({ rule: rule.id, severity: rule.severity, description: rule.description, fix: rule.fix, total, findings, truncated: total > MAX_FINDINGS_PER_RULE });
    }
    return {
      project: { id: project.id, slug: project.slug },
      threshold,
      ran: selected.map((r) => r.id),
      disabled: input.rule ? [] : disabled.filter((d) => findRule(d) !== undefined),
      disabled_but_requested: input.rule && disabled.includes(input.rule) ? [input.rule] : [],
      counts,
      hidden_below_threshold: hidden,
      results,
    };
  },
});
