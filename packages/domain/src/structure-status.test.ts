import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QA_STATUSES, TASK_STATUSES } from './item-types.js';
import { CAPTURE_STATES, GLOSSARY_TERM_STATUSES, WORK_UNIT_STATUSES } from './states.js';

/**
 * Statuses are typed from the row to the transition (decision 0034): the store's row types carry the unions
 * of states.ts and a status read from an item is narrowed by taskStatusOf / qaStatusOf. A cast would hide a
 * status the machine does not know, so none may come back, in any source or test of packages/ and apps/.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const self = fileURLToPath(import.meta.url);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') && path !== self) out.push(path);
  }
  return out;
}

const literals = [...new Set([...TASK_STATUSES, ...QA_STATUSES, ...WORK_UNIT_STATUSES, ...CAPTURE_STATES, ...GLOSSARY_TERM_STATUSES])];
const CASTS: [string, RegExp][] = [
  // `x as TaskStatus`, `as CaptureState`, `as WorkUnitStatus[]` …
  ['a status type', /\bas\s+\w*(?:Status|State)\b/],
  // `row.review_state as Capture['review_state']`
  ['a status column type', /\bas\s+\w+\[\s*['"](?:status|review_state|state)['"]\s*\]/],
  // `value as 'closed'`
  ['a status literal', new RegExp(`\\bas\\s+'(?:${literals.join('|')})'`)],
];

describe('no status is cast, no refusal is read by its words', () => {
  const files = ['packages', 'apps'].flatMap((top) => sources(join(root, top)));

  it('finds the sources it guards', () => {
    expect(files.some((f) => f.endsWith(join('service', 'src', 'operations', 'task-start.ts')))).toBe(true);
    expect(files.some((f) => f.endsWith(join('store', 'src', 'captures.ts')))).toBe(true);
  });

  it('has no `as` cast of a status in packages/ or apps/', () => {
    const found: string[] = [];
    for (const file of files) {
      for (const [n, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        for (const [what, pattern] of CASTS) {
          if (pattern.test(line)) found.push(`${relative(root, file)}:${n + 1}: cast to ${what}: ${line.trim()}`);
        }
      }
    }
    expect(found, 'narrow with taskStatusOf / qaStatusOf or type the row (docs/decisions/0034)').toEqual([]);
  });

  const MATCHING = /\.message\??\.(?:includes|startsWith|endsWith|match)\(|instanceof Error && \/|\.test\(\(?(?:e|err|error)\.message\b/;

  it('tells refusals apart by code, never by matching their words (decision 0034)', () => {
    const found: string[] = [];
    for (const file of files.filter((f) => !/\.test\.ts$|[/\\]testing[/\\]|[/\\]e2e[/\\]/.test(f))) {
      for (const [n, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        if (MATCHING.test(line)) found.push(`${relative(root, file)}:${n + 1}: ${line.trim()}`);
      }
    }
    expect(found, 'switch on SvcError.code (packages/domain/src/errors.ts)').toEqual([]);
  });

  it('would catch the casts it was written against', () => {
    const caught = (line: string) => CASTS.some(([, p]) => p.test(line));
    expect(caught("taskTransition(task.status as TaskStatus, 'start')")).toBe(true);
    expect(caught("review_state: row.review_state as Capture['review_state'],")).toBe(true);
    expect(caught("setWorkUnitStatus(db, id, s as 'closed')")).toBe(true);
    expect(caught('const x = [1, 2] as const;')).toBe(false);
    expect(MATCHING.test("if (error.message.includes('is closed')) return;")).toBe(true);
    expect(MATCHING.test('if (error instanceof Error && /closed/.test(error.message)) return;')).toBe(true);
  });
});
