import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lockHead } from '@svc/store';
import { describe, expect, it } from 'vitest';
import { catalog } from './catalog.js';
import type { ReadContext, WriteContext } from './operation.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** `as Transaction<…>`, `as Kysely<…>`, `as unknown as Transaction`: a handle cast instead of typed (decision 0033). */
const HANDLE_CAST = /\bas\s+(?:unknown\s+as\s+)?(?:Transaction|Kysely|ControlledTransaction)\b/;

describe('structure: reads and writes told apart by type (decision 0033)', () => {
  it('casts no transaction or database handle anywhere in packages/ or apps/', () => {
    const self = fileURLToPath(import.meta.url);
    const files = [...sources(join(root, 'packages')), ...sources(join(root, 'apps'))].filter((file) => file !== self);
    expect(files.length).toBeGreaterThan(50);
    const casts = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (HANDLE_CAST.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(casts).toEqual([]);
  });

  it('declares a kind on every operation, and only a write may skip the transaction', () => {
    for (const op of catalog) {
      expect(['read', 'write'], op.name).toContain(op.kind);
      if (op.kind === 'read') expect(op, op.name).not.toHaveProperty('outsideTransaction');
    }
  });

  it('keeps a read from a store function that needs a transaction (checked by the type checker)', () => {
    const readOnly = (ctx: ReadContext) =>
      // @ts-expect-error a read holds no Transaction: lockHead (a row lock) only runs in a write's transaction
      lockHead(ctx.db, 'chain');
    const write = (ctx: WriteContext) => lockHead(ctx.tx, 'chain');
    expect([typeof readOnly, typeof write]).toEqual(['function', 'function']);
  });
});

describe('structure: one operation per file', () => {
  const dir = join(root, 'packages/service/src/operations');
  const files = readdirSync(dir).filter((name) => /\.ts$/.test(name) && !name.endsWith('.test.ts'));

  it("finds each operation in the file named after it (svc_task_start: operations/task-start.ts)", () => {
    const misplaced = catalog.flatMap((op) => {
      const file = `${op.name.replace(/^svc_/, '').replaceAll('_', '-')}.ts`;
      return files.includes(file) && readFileSync(join(dir, file), 'utf8').includes(`'${op.name}'`) ? [] : [`${op.name} is not in operations/${file}`];
    });
    expect(misplaced).toEqual([]);
  });

  it('keeps nothing else in operations/ but the helpers a family of operations shares (<family>-shared.ts)', () => {
    const names = new Set(catalog.map((op) => `${op.name.replace(/^svc_/, '').replaceAll('_', '-')}.ts`));
    expect(files.filter((file) => !names.has(file) && !file.endsWith('-shared.ts'))).toEqual([]);
  });
});
