import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atLeast, findCycles, RULES } from './rules.js';

describe('rule pack', () => {
  it('has the fourteen rule ids of the design, each with severity, description and fix', () => {
    expect(RULES.map((r) => r.id)).toHaveLength(14);
    expect(new Set(RULES.map((r) => r.id)).size).toBe(14);
    for (const rule of RULES) {
      expect(rule.description.length).toBeGreaterThan(10);
      expect(rule.fix.length).toBeGreaterThan(10);
    }
  });

  it('orders severities for thresholds: error < warn < info', () => {
    expect(atLeast('error', 'warn')).toBe(true);
    expect(atLeast('info', 'warn')).toBe(false);
    expect(atLeast('warn', 'info')).toBe(true);
  });
});

describe('findCycles', () => {
  it('finds each cycle once and ignores acyclic parts', () => {
    expect(
      findCycles([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
        ['c', 'd'],
        ['e', 'f'],
        ['f', 'e'],
      ]),
    ).toEqual([
      ['a', 'b', 'c'],
      ['e', 'f'],
    ]);
    expect(findCycles([['a', 'b']])).toEqual([]);
  });

  it('agrees with reachability: two nodes share a cycle iff each reaches the other', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 14 })), { maxLength: 40 }), (pairs) => {
        const edges = pairs.filter(([a, b]) => a !== b).map(([a, b]) => [`n${a}`, `n${b}`] as const);
        const reach = (from: string, to: string) => {
          const seen = new Set<string>();
          const queue = [from];
          while (queue.length > 0) {
            const node = queue.shift() as string;
            for (const [a, b] of edges) {
              if (a === node && !seen.has(b)) {
                if (b === to) return true;
                seen.add(b);
                queue.push(b);
              }
            }
          }
          return false;
        };
        const cycles = findCycles(edges);
        expect(findCycles([...edges].reverse())).toEqual(cycles);
        const inCycle = new Map<string, string[]>();
        for (const cycle of cycles) for (const n of cycle) inCycle.set(n, cycle);
        const nodes = [...new Set(edges.flat())];
        for (const a of nodes) {
          for (const b of nodes) {
            if (a === b) continue;
            const together = inCycle.get(a)?.includes(b) ?? false;
            expect(together).toBe(reach(a, b) && reach(b, a));
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('handles a long chain without overflowing the stack', () => {
    const edges = Array.from({ length: 50_000 }, (_, i) => [`n${i}`, `n${i + 1}`] as const);
    expect(findCycles([...edges, ['n50000', 'n0']])).toHaveLength(1);
  });
});
