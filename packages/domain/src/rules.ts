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
    description: 'Items wait on each other in a cycle (A depends on B, or B blocks A: A waits on B).',
    fix: 'Remove or reverse one depends/blocks link of the cycle.',
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

/** Which way svc_impact walks a link: from its source to its target (outgoing, the default), or back (incoming). */
export const IMPACT_DIRECTIONS = ['outgoing', 'incoming'] as const;
export type ImpactDirection = (typeof IMPACT_DIRECTIONS)[number];

/** research-expiring reports research that expires within this many days. */
export const RESEARCH_EXPIRING_DAYS = 7;

export function findRule(id: string): RuleInfo | undefined {
  return RULES.find((r) => r.id === id);
}

/** Severity rank for display thresholds: error shows only errors; info shows everything. */
export function atLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(threshold);
}

/**
 * Strongly connected components with more than one node (cycles), by Tarjan's algorithm, iterative so deep
 * graphs cannot overflow the stack. Nodes and each cycle are returned in a stable order, whatever the order
 * of the edges.
 *
 * Sized for a whole project (svc_check: 70k depends/blocks links over 100k items): nodes become integers,
 * and nodes with no incoming or no outgoing edge are trimmed first, again and again — they can lie on no
 * cycle — so Tarjan only walks the knot of edges that might, usually almost nothing.
 */
export function findCycles(edges: readonly (readonly [string, string])[]): string[][] {
  const ids = new Map<string, number>();
  const names: string[] = [];
  const idOf = (name: string) => {
    let id = ids.get(name);
    if (id === undefined) {
      id = names.length;
      ids.set(name, id);
      names.push(name);
    }
    return id;
  };
  const from = new Int32Array(edges.length);
  const to = new Int32Array(edges.length);
  for (const [i, [a, b]] of edges.entries()) {
    from[i] = idOf(a);
    to[i] = idOf(b);
  }
  const n = names.length;
  const outgoing = csr(n, from, to);
  const incoming = csr(n, to, from);

  // Trim: a node left with no incoming or no outgoing edge is on no cycle.
  const inDegree = new Int32Array(n);
  const outDegree = new Int32Array(n);
  for (let e = 0; e < edges.length; e++) {
    const a = from[e] as number;
    const b = to[e] as number;
    outDegree[a] = (outDegree[a] as number) + 1;
    inDegree[b] = (inDegree[b] as number) + 1;
  }
  const removed = new Uint8Array(n);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (inDegree[v] === 0 || outDegree[v] === 0) queue.push(v);
  while (queue.length > 0) {
    const v = queue.pop() as number;
    if (removed[v]) continue;
    removed[v] = 1;
    for (let k = outgoing.start[v] as number; k < (outgoing.start[v + 1] as number); k++) {
      const w = outgoing.target[k] as number;
      if (removed[w]) continue;
      inDegree[w] = (inDegree[w] as number) - 1;
      if (inDegree[w] === 0) queue.push(w);
    }
    for (let k = incoming.start[v] as number; k < (incoming.start[v + 1] as number); k++) {
      const u = incoming.target[k] as number;
      if (removed[u]) continue;
      outDegree[u] = (outDegree[u] as number) - 1;
      if (outDegree[u] === 0) queue.push(u);
    }
  }

  // Tarjan over what is left.
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (removed[root] || index[root] !== -1) continue;
    const work: { node: number; next: number }[] = [{ node: root, next: outgoing.start[root] as number }];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: number; next: number };
      const v = frame.node;
      if (frame.next < (outgoing.start[v + 1] as number)) {
        const w = outgoing.target[frame.next++] as number;
        if (removed[w]) continue;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push({ node: w, next: outgoing.start[w] as number });
        } else if (onStack[w]) {
          low[v] = Math.min(low[v] as number, index[w] as number);
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent.node] = Math.min(low[parent.node] as number, low[v] as number);
      if (low[v] === index[v]) {
        const component: string[] = [];
        let member: number;
        do {
          member = stack.pop() as number;
          onStack[member] = 0;
          component.push(names[member] as string);
        } while (member !== v);
        if (component.length > 1) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** Compressed adjacency: the targets of node v are target[start[v] .. start[v + 1]). */
function csr(n: number, from: Int32Array, to: Int32Array): { start: Int32Array; target: Int32Array } {
  const start = new Int32Array(n + 1);
  for (const v of from) start[v + 1] = (start[v + 1] as number) + 1;
  for (let v = 0; v < n; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number);
  const fill = start.slice(0, n);
  const target = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) {
    const v = from[e] as number;
    const slot = fill[v] as number;
    target[slot] = to[e] as number;
    fill[v] = slot + 1;
  }
  return { start, target };
}

/** Edge-type priority when two edges first reach an item at the same depth (impact traversal). */
export const LINK_PRIORITY = ['depends', 'blocks', 'supersedes', 'conflicts'] as const;
export const MAX_IMPACT_DEPTH = 5;
