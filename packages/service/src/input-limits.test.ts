import { MAX_EXPANSIONS, MAX_SYNONYMS_PER_TERM } from '@svc/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { fromDatabase } from './errors.js';
import { refusal, type TestService, testBackends } from './testing/index.js';
import { useTestService } from './testing/suite.js';

/** `levels` levels of objects, the value itself the first: { a: { a: … { leaf: 1 } } }. */
export function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe.each(testBackends())('input limits on $name', (backend) => {
  let svc: TestService;
  let call: (name: string, input: unknown) => Promise<unknown>;

  useTestService(backend, 'lim', (t) => {
    ({ svc, call } = t);
  });

  describe('nesting depth', () => {
    it('refuses a context nested 5,000 deep with invalid_input naming context, and writes nothing', async () => {
      const error = await refusal(call('svc_item_upsert', { project_id: 'lim', title: 'Deep', context: nested(5_000) }));
      expect(error).toMatchObject({ code: 'invalid_input', message: 'context: nested deeper than 64 levels', details: { field: 'context' } });
      expect(await refusal(call('svc_item_upsert', { project_id: 'lim', title: 'Deep', context: nested(65) }))).toMatchObject({ code: 'invalid_input' });
      const items = await svc.store.db.selectFrom('items').select('id').where('title', '=', 'Deep').execute();
      expect(items).toEqual([]);
    });

    it('keeps a 64-deep context working everywhere: edit, show, export and import under a new slug', async () => {
      const item = (await call('svc_item_upsert', { project_id: 'lim', title: 'Deep', context: nested(64) })) as { id: string };
      const edited = (await call('svc_item_upsert', { project_id: 'lim', item_id: item.id, title: 'Deeper still', context: nested(63) })) as { id: string };
      const shown = (await call('item_show', { item_id: edited.id })) as { item: { context: unknown } };
      expect(shown.item.context).toEqual(nested(63));
      const file = ((await call('project_export', { project_id: 'lim' })) as { lines: string[] }).lines.join('\n');
      expect(await call('project_import', { jsonl: file, as_slug: 'lim-copy' })).toMatchObject({ slug: 'lim-copy' });
    });

    it('refuses deep signals, decisions and type schemas the same way, naming the parameter', async () => {
      const capture = (await call('svc_capture_add', { text: 'note' })) as { id: string };
      expect(await refusal(call('svc_capture_annotate', { capture_id: capture.id, signals: nested(4_000) }))).toMatchObject({
        message: 'signals: nested deeper than 64 levels',
      });
      expect(await refusal(call('svc_save_decisions', { project_id: 'lim', decisions: [{ title: 'D', context: nested(4_000) }] }))).toMatchObject({
        message: 'decisions: nested deeper than 64 levels',
      });
      expect(await refusal(call('type_add', { key: 'deep', schema: nested(4_000) }))).toMatchObject({
        message: 'schema: nested deeper than 64 levels',
      });
    });

    it('refuses an import file holding a value nested 4,000 deep, naming its line, and writes nothing', async () => {
      await call('svc_item_upsert', { project_id: 'lim', title: 'Shallow' });
      const lines = ((await call('project_export', { project_id: 'lim' })) as { lines: string[] }).lines;
      const at = lines.findIndex((l) => l.startsWith('{"type":"item"'));
      const row = JSON.parse(lines[at] as string) as Record<string, unknown>;
      lines[at] = JSON.stringify({ ...row, context: nested(4_000) });
      const error = await refusal(call('project_import', { jsonl: lines.join('\n'), as_slug: 'lim-deep' }));
      expect(error).toMatchObject({ code: 'invalid_input', message: `line ${at + 1}: field 'context' is nested deeper than 64 levels` });
      expect(await svc.store.db.selectFrom('projects').select('id').where('slug', '=', 'lim-deep').execute()).toEqual([]);
    });
  });

  describe('schema patterns', () => {
    it('validates a write against ^(a+)+$ in linear time: 40 a and ! is an ordinary refusal, not a stall', async () => {
      const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } };
      await call('type_add', { key: 'ticket', schema });
      // A backtracking engine needs about 2^40 steps for this input: the call returns only on a linear engine.
      const error = await refusal(call('svc_item_upsert', { project_id: 'lim', item_type: 'ticket', title: 'T', context: { code: `${'a'.repeat(40)}!` } }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'context.code' } });
      expect(await call('svc_item_upsert', { project_id: 'lim', item_type: 'ticket', title: 'T', context: { code: 'aaaa' } })).toMatchObject({ title: 'T' });
    });

    it('refuses at type_add a schema whose pattern needs a backreference or lookaround, naming its path', async () => {
      const backreference = await refusal(call('type_add', { key: 'pairs', schema: { type: 'object', properties: { pair: { type: 'string', pattern: '^(a)\\1$' } } } }));
      expect(backreference).toMatchObject({ code: 'invalid_input', details: { field: 'schema.properties.pair.pattern' } });
      expect(backreference.message).toContain('cannot run on the linear-time engine (RE2)');
      const lookaround = await refusal(call('type_add', { key: 'looks', schema: { type: 'object', patternProperties: { '^(?!x)': {} } } }));
      expect(lookaround).toMatchObject({ code: 'invalid_input', details: { field: 'schema.patternProperties' } });
      expect(await svc.store.db.selectFrom('item_types').select('key').where('key', 'in', ['pairs', 'looks']).execute()).toEqual([]);
    });
  });

  describe('glossary expansion', () => {
    it(`answers a long OR query over a 500-term group, expanding at most ${MAX_SYNONYMS_PER_TERM} per word and ${MAX_EXPANSIONS} in all`, async () => {
      await call('glossary_group_add', { project_id: 'lim', name: 'big' });
      const { projectId } = { projectId: ((await call('project_show', { project_id: 'lim' })) as { id: string }).id };
      const group = (await svc.store.db.selectFrom('glossary_groups').select('id').where('name', '=', 'big').executeTakeFirstOrThrow()).id;
      await sql`
        insert into glossary_terms (project_id, group_id, term, normalized, status, decided_at)
        select ${projectId}::uuid, ${group}::uuid, 'term' || n, 'term' || n, 'accepted', now() from generate_series(0, 499) n`.execute(svc.store.db);
      await call('svc_item_upsert', { project_id: 'lim', title: 'About term7', body: 'term7 is here' });
      await call('svc_item_upsert', { project_id: 'lim', title: 'About term499', body: 'term499 is here' });
      const query = Array.from({ length: 150 }, (_, i) => `term${i}`).join(' OR ');
      const answer = (await call('svc_item_search', { project_id: 'lim', query })) as { items: { title: string }[]; truncated: boolean; expansion_cut: boolean };
      expect(answer.expansion_cut).toBe(true);
      expect(answer.items.map((i) => i.title)).toContain('About term7');
      const plain = (await call('svc_item_search', { project_id: 'lim', query: 'nothing' })) as { expansion_cut: boolean };
      expect(plain.expansion_cut).toBe(false);
    }, 60_000);

    it('reports a statement with more bind parameters than the protocol allows as internal_error, never as the connection', async () => {
      const values = Array.from({ length: 70_000 }, (_, i) => i);
      const failure = await sql`select cardinality(array[${sql.join(values)}]::int[])`.execute(svc.store.db).then(
        () => undefined,
        (error: unknown) => error,
      );
      // The driver writes the count in 16 bits, so the server sees a mangled Bind message (08P01, the SQLSTATE a
      // pooler refusing a connection also uses). Unmapped, the runner logs it and answers internal_error with
      // the request id.
      expect(failure).toMatchObject({ code: '08P01' });
      expect(fromDatabase(failure)).toBeUndefined();
    });
  });
});
