import { MAX_JSON_CHARS, SEMANTIC_IMPACTS } from '@svc/domain';
import { TABLES } from '@svc/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ops } from '../catalog.js';
import { MAX_EXTERNAL_ID, MAX_NAME, MAX_WORK_TITLE } from '../inputs.js';
import { openTestService, refusal, type TestService, testBackends } from '../testing/index.js';
import { recordColumns } from './file.js';
import { ARRAY_LIMITS, TEXT_LIMITS } from './limits.js';

/**
 * An import holds every value of its file to the length the same field may have when given by hand: a crafted file
 * stored a 1.9 MB project name, work unit title or actor name, which every answer naming them then carried (an
 * attacker, 2026-11-28).
 */
describe.each(testBackends())('import holds each field of a file to its hand-input length on $name', (backend) => {
  let svc: TestService;
  /** The export of project 'long', holding a record of every kind, as lines without the final empty one. */
  let lines: string[];

  const importing = (file: string[]) => svc.call(ops.project_import, { lines: file, as_slug: 'crafted' }, { source: 'cli' });
  const projects = async () => (await svc.store.db.selectFrom('projects').select('slug').orderBy('slug').execute()).map((p) => p.slug);
  /** Line number (1-based) of the first record of `kind`. */
  const lineOf = (kind: string) => lines.findIndex((l) => (JSON.parse(l) as { type: string }).type === kind) + 1;
  /** The file with one field of line `n` set to `value`. */
  const withField = (n: number, field: string, value: unknown) => {
    const copy = [...lines];
    copy[n - 1] = JSON.stringify({ ...(JSON.parse(lines[n - 1] as string) as object), [field]: value });
    return copy;
  };
  /** Refused as invalid input naming the line and the field, and nothing written. */
  const refusedAt = async (file: string[], line: number, field: string, message: RegExp) => {
    const before = await projects();
    const error = await refusal(importing(file));
    expect([field, error.code, error.message]).toEqual([field, 'invalid_input', expect.stringMatching(message)]);
    expect(error.message.startsWith(`line ${line}: field '${field}' `), error.message).toBe(true);
    expect(error.details).toMatchObject({ field: 'file', line, record_field: field });
    expect(await projects()).toEqual(before);
  };

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    const { actorId } = await svc.seed('long');
    const call = svc.as(actorId);
    await call(ops.type_add, { key: 'note', schema: { type: 'object' } });
    await call(ops.system_add, { project_id: 'long', name: 'billing' });
    const unit = (await call(ops.svc_work_open, { project_id: 'long', title: 'Unit', description: 'what it is' })) as { id: string };
    const a = (await call(ops.svc_item_upsert, { project_id: 'long', item_type: 'note', title: 'A', system_id: 'billing' })) as { id: string };
    const a2 = (await call(ops.svc_item_upsert, { project_id: 'long', item_id: a.id, title: 'A2', semantic_impacts: ['scope_change'] })) as { id: string };
    await call(ops.svc_item_upsert, { project_id: 'long', item_type: 'research', title: 'B', source_url: 'https://example.test', links: [{ type: 'depends', target_id: a2.id }] });
    await call(ops.svc_task_add, { work_unit_id: unit.id, title: 'Task' });
    await call(ops.glossary_group_add, { project_id: 'long', name: 'db' });
    await call(ops.glossary_term_add, { project_id: 'long', group: 'db', term: 'postgres' });
    const proposed = (await call(ops.glossary_term_propose, { project_id: 'long', group: 'db', term: 'pg' })) as { id: string };
    await call(ops.glossary_term_reject, { project_id: 'long', term_id: proposed.id, reason: 'too short' });
    const filed = (await call(ops.svc_capture_add, { text: 'filed here', project_id: 'long' })) as { id: string };
    await call(ops.svc_capture_annotate, { capture_id: filed.id, summary: 'a summary', sensitivity_hint: 'internal', signals: { from: 'standup' } });
    const inbox = (await call(ops.svc_capture_add, { text: 'from the inbox' })) as { id: string };
    await call(ops.svc_capture_promote, { capture_id: inbox.id, project_id: 'long', title: 'Promoted' });
    await call(ops.svc_idea_add, { work_unit_id: unit.id, text: 'an idea' });
    await call(ops.svc_page_sync, { project_id: 'long' });
    lines = ((await svc.call(ops.project_export, { project_id: 'long' }, { source: 'cli' })) as { lines: string[] }).lines;
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
  });

  it('knows a bound for every text column of every kind of record an export holds', async () => {
    const columns = await recordColumns(svc.store.db);
    const unbounded: string[] = [];
    for (const { kind } of TABLES) {
      for (const column of columns.get(kind) ?? []) {
        if ((column.type === 'text' || column.type === '_text') && TEXT_LIMITS[kind]?.[column.name] === undefined) unbounded.push(`${kind}.${column.name}`);
        if (column.type === '_text' && ARRAY_LIMITS[kind]?.[column.name] === undefined) unbounded.push(`${kind}.${column.name} (values)`);
      }
    }
    expect(unbounded).toEqual([]);
    // And the file below holds a record of each, so the next test tries every bound.
    expect(TABLES.map((t) => t.kind).filter((kind) => lineOf(kind) === 0)).toEqual([]);
  });

  it('refuses a text one character over its bound, for every text column of every kind, naming the line and field', async () => {
    for (const [kind, bounds] of Object.entries(TEXT_LIMITS)) {
      const n = lineOf(kind);
      for (const [field, most] of Object.entries(bounds)) {
        const long = 'x'.repeat(most + 1);
        const value = Array.isArray((JSON.parse(lines[n - 1] as string) as Record<string, unknown>)[field]) ? [long] : long;
        const words = Array.isArray(value) ? `holds a value ${(most + 1).toLocaleString('en')} characters long; at most` : `is ${(most + 1).toLocaleString('en')} characters long; at most`;
        await refusedAt(withField(n, field, value), n, field, new RegExp(`of a ${kind} record ${words} ${most.toLocaleString('en')}$`));
      }
    }
  }, 120_000);

  it('refuses a project name, work unit title and actor name of 1.9 MB, and takes each at its bound', async () => {
    const huge = 'x'.repeat(1_900_000);
    for (const [kind, field, most] of [
      ['project', 'name', MAX_NAME],
      ['work_unit', 'title', MAX_WORK_TITLE],
      ['actor', 'name', MAX_NAME],
    ] as const) {
      await refusedAt(withField(lineOf(kind), field, huge), lineOf(kind), field, new RegExp(`is 1,900,000 characters long; at most ${most}$`));
    }
    const file = withField(lineOf('project'), 'name', 'p'.repeat(MAX_NAME));
    const edits: [string, string, string][] = [
      ['work_unit', 'title', 'w'.repeat(MAX_WORK_TITLE)],
      // The actor exists here and is kept as it is: its name at the bound only has to pass the checks.
      ['actor', 'name', 'a'.repeat(MAX_NAME)],
    ];
    for (const [kind, field, value] of edits) {
      const n = lineOf(kind);
      file[n - 1] = JSON.stringify({ ...(JSON.parse(file[n - 1] as string) as object), [field]: value });
    }
    expect(await importing(file)).toMatchObject({ slug: 'crafted' });
    const project = await svc.store.db.selectFrom('projects').select(['id', 'name']).where('slug', '=', 'crafted').executeTakeFirstOrThrow();
    expect(project.name).toHaveLength(MAX_NAME);
    const unit = await svc.store.db.selectFrom('work_units').select('title').where('project_id', '=', project.id).executeTakeFirstOrThrow();
    expect(unit.title).toHaveLength(MAX_WORK_TITLE);
    await svc.store.db.deleteFrom('projects').where('slug', '=', 'crafted').execute();
  });

  it('refuses more semantic impacts than there are, and a JSON value over 1 MiB in any JSON column', async () => {
    const h = lineOf('history');
    await refusedAt(withField(h, 'semantic_impacts', [...SEMANTIC_IMPACTS, 'scope_change']), h, 'semantic_impacts', /holds 8 values; at most 7$/);
    const columns = await recordColumns(svc.store.db);
    const big = { s: 'x'.repeat(MAX_JSON_CHARS) };
    let tried = 0;
    for (const { kind } of TABLES) {
      for (const column of (columns.get(kind) ?? []).filter((c) => c.type === 'jsonb')) {
        const n = lineOf(kind);
        await refusedAt(withField(n, column.name, big), n, column.name, /as JSON; at most 1 MiB \(1,048,576 characters\) is stored$/);
        tried++;
      }
    }
    // settings, external_ids, schema, context, history and audit details, signals, a sync job's details.
    expect(tried).toBe(8);
  }, 120_000);

  it("refuses an actor's external id longer than actor add takes", async () => {
    const n = lineOf('actor');
    await refusedAt(withField(n, 'external_ids', { github: 'x'.repeat(MAX_EXTERNAL_ID + 1) }), n, 'external_ids', /must name each id .* as actor add takes them$/);
    await refusedAt(withField(n, 'external_ids', { github: 7 }), n, 'external_ids', /as actor add takes them$/);
    await refusedAt(withField(n, 'external_ids', { ['g'.repeat(101)]: 'octocat' }), n, 'external_ids', /as actor add takes them$/);
  });
});
