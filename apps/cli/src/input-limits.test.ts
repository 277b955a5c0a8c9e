import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDataDir, svc, svcEnv } from './testing/svc-process.js';

function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{"leaf":1}${'}'.repeat(levels - 1)}`;
}

describe('hostile files given to the svc binary', () => {
  const env = svcEnv({ SVC_DATA_DIR: freshDataDir() });
  const dir = mkdtempSync(join(tmpdir(), 'svc-limits-'));

  it('`type add --schema` refuses a pattern RE2 cannot run, naming its path, and a schema nested 4,000 deep', async () => {
    const backreference = join(dir, 'pairs.json');
    writeFileSync(backreference, JSON.stringify({ type: 'object', properties: { pair: { type: 'string', pattern: '^(a)\\1$' } } }));
    const refused = await svc(['type', 'add', 'pairs', '--schema', backreference], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/invalid_input: --schema \(schema\.properties\.pair\.pattern\): the pattern '\^\(a\)\\1\$' cannot run on the linear-time engine \(RE2\)/);
    const deep = join(dir, 'deep.json');
    writeFileSync(deep, nestedJson(4_000));
    const tooDeep = await svc(['type', 'add', 'deep', '--schema', deep], env);
    expect(tooDeep.code).toBe(1);
    expect(tooDeep.stderr).toContain('invalid_input: --schema: nested deeper than 64 levels');
    const catastrophic = join(dir, 'ticket.json');
    writeFileSync(catastrophic, JSON.stringify({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }));
    expect((await svc(['type', 'add', 'ticket', '--schema', catastrophic], env)).code).toBe(0);
    expect((await svc(['type', 'list'], env)).stdout).toContain('ticket');
  }, 240_000);

  it('`import --as` refuses a file holding a value nested 4,000 deep, naming the line, and writes nothing', async () => {
    expect((await svc(['project', 'create', 'lim'], env)).code).toBe(0);
    const file = join(dir, 'lim.jsonl');
    expect((await svc(['export', 'lim', '--out', file], env)).code).toBe(0);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"type":"project"'));
    const project = JSON.parse(lines[at] as string) as Record<string, unknown>;
    lines[at] = JSON.stringify({ ...project, settings: 'DEEP' }).replace('"DEEP"', nestedJson(4_000));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const refused = await svc(['import', file, '--as', 'lim-copy'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`invalid_input: line ${at + 1}: field 'settings' of a project record nests deeper than 64 levels`);
    expect((await svc(['project', 'list'], env)).stdout).not.toContain('lim-copy');
  }, 240_000);

  it('`import --as` refuses a project name of 1.9 MB, where by hand a name is at most 200 characters, and writes nothing', async () => {
    expect((await svc(['project', 'create', 'named'], env)).code).toBe(0);
    const file = join(dir, 'named.jsonl');
    expect((await svc(['export', 'named', '--out', file], env)).code).toBe(0);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"type":"project"'));
    lines[at] = JSON.stringify({ ...(JSON.parse(lines[at] as string) as object), name: 'n'.repeat(1_900_000) });
    writeFileSync(file, `${lines.join('\n')}\n`);
    const refused = await svc(['import', file, '--as', 'named-copy'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`invalid_input: line ${at + 1}: field 'name' of a project record is 1,900,000 characters long; at most 200`);
    expect(refused.stderr.length).toBeLessThan(1_000);
    expect((await svc(['project', 'list'], env)).stdout).not.toContain('named-copy');
  }, 240_000);
});
