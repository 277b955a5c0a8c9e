/**
 * The rule pack of svc_check: a fixed set per release, deterministic (SQL and code, no model, no external
 * calls). This file holds what each rule is; the store holds the query that finds its cases.
 */
export const SEVERITIES = ['error', 'warn', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface RuleInfo {
  id: string;
  severity: Severity;
  description: string;
  fix: string;
}

export const RULES = [
  {
    id: 'conflicting-decisions',
    severity: 'error',
    description: 'Two current items are joined by a conflicts link.',
    fix: 'Supersede one of them, or remove the link once the conflict is resolved.',
  },
  {
    id: 'dependency-cycle',
    severity: 'error',
    description: 'Items depend on or block each other in a cycle.',
    fix: 'Remove one depends/blocks link of the cycle.',
  },
  {
    id: 'chain-integrity',
    severity: 'error',
    description: 'A supersede chain does not have exactly one current version.',
    fix: 'Restore the chain from an export or contact the operators; the service never writes this state.',
  },
  {
    id: 'qa-failed-on-done-task',
    severity: 'error',
    description: 'A QA check failed on a task that is marked done.',
    fix: 'Reopen the work (a new task) or record why the failure is accepted.',
  },
  {
    id: 'dangling-link',
    severity: 'warn',
    description: 'A link touches a deleted item.',
    fix: 'Remove the link (svc link remove) or restore the item.',
  },
  {
    id: 'research-expired',
    severity: 'warn',
    description: "A research item is past the project's research.ttl_days.",
    fix: 'Refresh it (edit it with a current source) or remove it (svc research sweep --soft-delete).',
  },
  {
    id: 'closed-unit-unfinished-tasks',
    severity: 'warn',
    description: 'A closed work unit still has tasks that are not done.',
    fix: 'Finish or move the tasks, or reopen the work unit.',
  },
  {
    id: 'stale-in-progress',
    severity: 'warn',
    description: 'A task has been in progress for 14 days or more.',
    fix: 'Finish it, block it with a reason, or split it.',
  },
  {
    id: 'qa-passed-on-superseded-target',
    severity: 'warn',
    description: 'A QA check passed, but a target it verified has changed since.',
    fix: 'Add a new QA check for the current version.',
  },
  {
    id: 'glossary-term-in-two-groups',
    severity: 'warn',
    description: 'One accepted glossary term belongs to two groups, so it expands to both.',
    fix: 'Keep the term in one group.',
  },
  {
    id: 'research-expiring',
    severity: 'info',
    description: 'A research item expires within 7 days.',
    fix: 'Refresh it if it is still relied on.',
  },
  {
    id: 'done-task-without-qa',
    severity: 'info',
    description: 'A done task has no QA check.',
    fix: 'Add a QA check that targets it, if it needs verifying.',
  },
  {
    id: 'empty-decision',
    severity: 'info',
    description: 'A decision has an empty body.',
    fix: 'Record the reasoning in the body.',
  },
  {
    id: 'stale-work-unit',
    severity: 'info',
    description: 'An open work unit has had no activity for 30 days.',
    fix: 'Close it, or resume it.',
  },
] as const satisfies readonly RuleInfo[];

export type RuleId = (typeof RULES)[number]['id'];

export function findRule(id: string): RuleInfo | undefined {
  return RULES.find((r) => r.id === id);
}

/** Severity rank for display thresholds: error shows only errors; info shows everything. */
export function atLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(threshold);
}

/**
 * Strongly connected components with more than one node (cycles), by Tarjan's algorithm, iterative so deep
 * graphs cannot overflow the stack. Nodes and each cycle are returned in a stable order.
 */
export function findCycles(edges: readonly (readonly [string, string])[]): string[][] {
  const adjacency = new Map<string, string[]>();
  for (const [from, to] of edges) {
    if (!adjacency.has(from)) adjacency.set(from, []);
    if (!adjacency.has(to)) adjacency.set(to, []);
    adjacency.get(from)?.push(to);
  }
  for (const list of adjacency.values()) list.sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  for (const root of [...adjacency.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const neighbours = adjacency.get(frame.node) ?? [];
      if (frame.next < neighbours.length) {
        const next = neighbours[frame.next++] as string;
        if (!index.has(next)) {
          index.set(next, counter);
          low.set(next, counter++);
          stack.push(next);
          onStack.add(next);
          work.push({ node: next, next: 0 });
        } else if (onStack.has(next)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(next) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** Edge-type priority when two edges first reach an item at the same depth (impact traversal). */
export const LINK_PRIORITY = ['depends', 'blocks', 'supersedes', 'conflicts'] as const;
export const MAX_IMPACT_DEPTH = 5;
