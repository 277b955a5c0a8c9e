import { MAX_EXPANSIONS, MAX_SYNONYMS_PER_TERM } from '@svc/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { fromDatabase } from './errors.js';
import { type Call, refusal, type TestService, testBackends, unchecked } from './testing/index.js';
import { useTestService } from './testing/suite.js';
import { ops } from './catalog.js';

/** Space-separated words none of which repeats, `chars` characters in all, each word starting with `tag`. */
export function distinctWords(chars: number, tag = 'w'): string {
  const words: string[] = [];
  for (let i = 0, n = 0; n < chars; i++) {
    const word = `${tag}${i.toString(36)}`;
    words.push(word);
    n += word.length + 1;
  }
  return words.join(' ').slice(0, chars);
}

/** `levels` levels of objects, the value itself the first: { a: { a: … { leaf: 1 } } }. */
export function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe.each(testBackends())('input limits on $name', (backend) => {
  let svc: TestService;
  let call: Call;

  useTestService(backend, 'lim', (t) => {
    ({ svc, call } = t);
  });

  describe('nesting depth', () => {
    it('refuses a context nested 5,000 deep with invalid_input naming context, and writes nothing', async () => {
      const error = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', title: 'Deep', context: nested(5_000) }));
      expect(error).toMatchObject({ code: 'invalid_input', message: 'context: nested deeper than 64 levels', details: { field: 'context' } });
      expect(await refusal(call(ops.svc_item_upsert, { project_id: 'lim', title: 'Deep', context: nested(65) }))).toMatchObject({ code: 'invalid_input' });
      const items = await svc.store.db.selectFrom('items').select('id').where('title', '=', 'Deep').execute();
      expect(items).toEqual([]);
    });

    it('keeps a 64-deep context working everywhere: edit, show, export and import under a new slug', async () => {
      const item = (await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Deep', context: nested(64) })) as { id: string };
      const edited = (await call(ops.svc_item_upsert, { project_id: 'lim', item_id: item.id, title: 'Deeper still', context: nested(63) })) as { id: string };
      const shown = (await call(ops.item_show, { item_id: edited.id })) as { item: { context: unknown } };
      expect(shown.item.context).toEqual(nested(63));
      const file = ((await call(ops.project_export, { project_id: 'lim' })) as { lines: string[] }).lines;
      expect(await call(ops.project_import, { lines: file, as_slug: 'lim-copy' })).toMatchObject({ slug: 'lim-copy' });
    });

    it('refuses deep signals, decisions and type schemas the same way, naming the parameter', async () => {
      const capture = (await call(ops.svc_capture_add, { text: 'note' })) as { id: string };
      expect(await refusal(call(ops.svc_capture_annotate, { capture_id: capture.id, signals: nested(4_000) }))).toMatchObject({
        message: 'signals: nested deeper than 64 levels',
      });
      expect(await refusal(call(ops.svc_save_decisions, { project_id: 'lim', decisions: [{ title: 'D', context: nested(4_000) }] }))).toMatchObject({
        message: 'decisions: nested deeper than 64 levels',
      });
      expect(await refusal(call(ops.type_add, { key: 'deep', schema: nested(4_000) }))).toMatchObject({
        message: 'schema: nested deeper than 64 levels',
      });
    });

    it('refuses an import file holding a value nested 4,000 deep, naming its line, and writes nothing', async () => {
      await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Shallow' });
      const lines = ((await call(ops.project_export, { project_id: 'lim' })) as { lines: string[] }).lines;
      const at = lines.findIndex((l) => l.startsWith('{"type":"item"'));
      const row = JSON.parse(lines[at] as string) as Record<string, unknown>;
      lines[at] = JSON.stringify({ ...row, context: nested(4_000) });
      const error = await refusal(call(ops.project_import, { lines, as_slug: 'lim-deep' }));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toMatch(new RegExp(`^line ${at + 1}: field 'context' .*deeper than 64 levels`));
      expect(await svc.store.db.selectFrom('projects').select('id').where('slug', '=', 'lim-deep').execute()).toEqual([]);
    });
  });

  describe('prototype keys, NUL characters and calendar dates', () => {
    it('refuses an own __proto__ key inside context or signals, naming the field, and writes nothing', async () => {
      const context = JSON.parse('{"__proto__":{"x":1},"k":1}') as unknown;
      expect(await refusal(call(ops.svc_item_upsert, unchecked({ project_id: 'lim', title: 'Proto', context })))).toMatchObject({
        code: 'invalid_input',
        details: { field: 'context' },
      });
      const capture = (await call(ops.svc_capture_add, { text: 'note' })) as { id: string };
      const signals = JSON.parse('{"a":{"__proto__":1}}') as unknown;
      expect(await refusal(call(ops.svc_capture_annotate, unchecked({ capture_id: capture.id, signals })))).toMatchObject({ details: { field: 'signals.a' } });
      expect(await svc.store.db.selectFrom('items').select('id').where('title', '=', 'Proto').execute()).toEqual([]);
    });

    it('refuses a NUL character in title, body or context with invalid_input naming the field and the place in it', async () => {
      for (const [field, input] of [
        ['title', { title: 'a\u0000b' }],
        ['body', { title: 't', body: '\u0000' }],
        ['context.k.0', { title: 't', context: { k: ['\u0000'] } }],
      ] as const) {
        expect(await refusal(call(ops.svc_item_upsert, { project_id: 'lim', ...input }))).toMatchObject({ code: 'invalid_input', details: { field } });
      }
    });

    it('refuses a since or until that is not a real calendar date, and accepts one that is', async () => {
      for (const since of ['2026-02-30T00:00:00Z', '2026-02-29', '2026-04-31T12:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T12:60:00Z']) {
        expect(await refusal(call(ops.svc_history_query, { project_id: 'lim', since }))).toMatchObject({ code: 'invalid_input', details: { field: 'since' } });
      }
      expect(await refusal(call(ops.svc_idea_search, { project_id: 'lim', until: '2025-02-29T00:00:00Z' }))).toMatchObject({ details: { field: 'until' } });
      for (const since of ['2024-02-29T23:59:59.123Z', '2026-01-31', '2026-01-31T12:00+02:00']) {
        await call(ops.svc_history_query, { project_id: 'lim', since });
      }
    });
  });

  describe('source_url', () => {
    const BAD = [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'mailto:someone@example.com',
      'ftp://example.com/file',
      '//example.com/no-scheme',
      'example.com/no-scheme',
      'https:example.com',
      'https:\\\\evil.example',
      'https://',
      'https://exa mple.com/',
      'https://example.com/\tpath',
      ' javascript:alert(1)',
    ];

    it('refuses on create, edit and promote every source_url that is not an absolute http(s) URL, naming source_url, and writes nothing', async () => {
      for (const source_url of BAD) {
        const created = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'research', title: 'Bad source', source_url }));
        expect([source_url, created]).toMatchObject([source_url, { code: 'invalid_input', details: { field: 'source_url' } }]);
        expect(created.message).toMatch(/^source_url: /);
      }
      const good = (await call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'research', title: 'Good source', source_url: 'https://example.com/a?b=c#d' })) as { id: string };
      const edited = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', item_id: good.id, source_url: 'javascript:alert(1)' }));
      expect(edited).toMatchObject({ code: 'invalid_input', details: { field: 'source_url' } });
      const capture = (await call(ops.svc_capture_add, { text: 'a note' })) as { id: string };
      const promoted = await refusal(call(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'lim', title: 'From a note', source_url: 'javascript:alert(1)' }));
      expect(promoted).toMatchObject({ code: 'invalid_input', details: { field: 'source_url' } });
      const stored = await svc.store.db.selectFrom('items').select('source_url').execute();
      expect(stored).toEqual([{ source_url: 'https://example.com/a?b=c#d' }]);
    });

    it('accepts absolute http and https URLs as given, whatever the case of the scheme', async () => {
      for (const source_url of ['http://example.com', 'HTTPS://Example.com/Path?q=1', 'http://127.0.0.1:8080/x', 'https://user@example.com/a%20b']) {
        expect(await call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'research', title: 'Fine', source_url })).toMatchObject({ item_type: 'research' });
      }
      const stored = await svc.store.db.selectFrom('items').select('source_url').orderBy('created_at').execute();
      expect(stored.map((r) => r.source_url)).toEqual(['http://example.com', 'HTTPS://Example.com/Path?q=1', 'http://127.0.0.1:8080/x', 'https://user@example.com/a%20b']);
    });

    it('refuses an edit that keeps a stored javascript: source_url until it is replaced or cleared, saying where it came from', async () => {
      const item = (await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Old', source_url: 'https://example.com' })) as { id: string };
      // A value stored before the rule existed.
      await svc.store.db.updateTable('items').set({ source_url: 'javascript:alert(1)' }).where('id', '=', item.id).execute();
      const kept = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', item_id: item.id, title: 'Old, renamed' }));
      expect(kept).toMatchObject({ code: 'invalid_input', details: { field: 'source_url' } });
      expect(kept.message).toContain('current version');
      expect(await call(ops.svc_item_upsert, { project_id: 'lim', item_id: item.id, title: 'Old, renamed', source_url: null })).toMatchObject({ version: 2 });
    });

    it('refuses an import file whose item carries a javascript: source_url, naming the line and field, and writes nothing', async () => {
      await call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'research', title: 'Study', source_url: 'https://example.com/study' });
      const lines = ((await call(ops.project_export, { project_id: 'lim' })) as { lines: string[] }).lines;
      const at = lines.findIndex((l) => l.includes('https://example.com/study') && l.startsWith('{"type":"item"'));
      lines[at] = (lines[at] as string).replace('https://example.com/study', 'javascript:alert(1)');
      const error = await refusal(call(ops.project_import, { lines, as_slug: 'lim-js' }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { line: at + 1, record_field: 'source_url' } });
      expect(error.message).toMatch(new RegExp(`^line ${at + 1}: field 'source_url'`));
      expect(await svc.store.db.selectFrom('projects').select('id').where('slug', '=', 'lim-js').execute()).toEqual([]);
    });
  });

  describe('numbers', () => {
    it('refuses a number that overflowed to Infinity (JSON 1e400) anywhere in context, naming its place, and writes nothing', async () => {
      for (const [context, field] of [
        [{ a: { b: Number.POSITIVE_INFINITY } }, 'context.a.b'],
        [{ list: [1, Number.NEGATIVE_INFINITY] }, 'context.list.1'],
        [{ n: Number.NaN }, 'context.n'],
      ] as const) {
        const error = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', title: 'Huge', context }));
        expect(error).toMatchObject({ code: 'invalid_input', details: { field } });
        expect(error.message).toMatch(new RegExp(`^${field.replaceAll('.', '\\.')}: .*finite`));
      }
      const decisions = [{ title: 'D', context: { x: Number.POSITIVE_INFINITY } }];
      expect(await refusal(call(ops.svc_save_decisions, { project_id: 'lim', decisions }))).toMatchObject({ details: { field: 'decisions.0.context.x' } });
      const capture = (await call(ops.svc_capture_add, { text: 'note' })) as { id: string };
      expect(await refusal(call(ops.svc_capture_annotate, { capture_id: capture.id, signals: { score: Number.POSITIVE_INFINITY } }))).toMatchObject({
        details: { field: 'signals.score' },
      });
      expect(await svc.store.db.selectFrom('items').select('id').execute()).toEqual([]);
      expect(await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Large', context: { n: 1.7e308 } })).toMatchObject({ version: 1 });
    });

    it('refuses a numeric parameter that overflowed to Infinity, naming it', async () => {
      const unit = (await call(ops.svc_work_open, { project_id: 'lim', title: 'U' })) as { id: string };
      expect(await refusal(call(ops.svc_task_add, { work_unit_id: unit.id, title: 'T', sort_order: Number.POSITIVE_INFINITY }))).toMatchObject({
        code: 'invalid_input',
        details: { field: 'sort_order' },
      });
      const limit = await refusal(call(ops.svc_item_search, { project_id: 'lim', query: 'x', limit: Number.POSITIVE_INFINITY }));
      expect(limit).toMatchObject({ code: 'invalid_input', details: { field: 'limit' } });
      expect(limit.message).toMatch(/^limit: .*finite/);
    });

    it('reads a time without a zone as UTC, whatever the server\'s zone (SPEC reader, 2026-11-27)', async () => {
      const item = (await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Timed' })) as { id: string };
      const hourBefore = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19);
      const zone = process.env.TZ;
      process.env.TZ = 'America/New_York';
      try {
        for (const since of [hourBefore, `${hourBefore}Z`]) {
          const { entries } = (await call(ops.svc_history_query, { project_id: 'lim', item_id: item.id, since })) as { entries: unknown[] };
          expect(entries.length, since).toBeGreaterThan(0);
        }
      } finally {
        if (zone === undefined) delete process.env.TZ;
        else process.env.TZ = zone;
      }
      // Out of the database's range, once the zone is applied: refused naming the field (PGlite answered 500).
      for (const since of ['9999-12-31T23:59:59.999-23:59', '0000-01-01', '0001-01-01T00:00:00+01:00']) {
        expect(await refusal(call(ops.svc_history_query, { project_id: 'lim', since })), since).toMatchObject({
          code: 'invalid_input',
          message: 'since: must name an instant from 0001-01-01 to 9999-12-31 (UTC)',
        });
      }
      expect(await call(ops.svc_history_query, { project_id: 'lim', since: '9999-12-31T23:59:59Z' })).toMatchObject({ entries: [] });
    });

    it('refuses a limit above 200 instead of cutting it, on every list (decision 0049)', async () => {
      for (const [op, input] of [
        [ops.svc_item_search, { project_id: 'lim', query: 'x' }],
        [ops.svc_capture_list, {}],
        [ops.project_list, {}],
      ] as const) {
        const error = await refusal(call(op, { ...input, limit: 201 }));
        expect(error).toMatchObject({ code: 'invalid_input', message: 'limit: at most 200; ask for fewer and narrow the query or filters to see the rest', details: { field: 'limit' } });
        expect(await call(op, { ...input, limit: 200 })).toBeTypeOf('object');
      }
      expect((await refusal(call(ops.project_list, { limit: 0 }))).message).toBe('limit: must be at least 1');
      expect((await refusal(call(ops.project_list, { limit: 2.5 }))).message).toBe('limit: must be a whole number');
    });

    it('refuses an import file holding 1e400 in a context, naming the line and field, and writes nothing', async () => {
      await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Numbers', context: { n: 1 } });
      const lines = ((await call(ops.project_export, { project_id: 'lim' })) as { lines: string[] }).lines;
      const at = lines.findIndex((l) => l.startsWith('{"type":"item"'));
      lines[at] = (lines[at] as string).replace('"n":1', '"n":1e400');
      expect(lines[at]).toContain('1e400');
      const error = await refusal(call(ops.project_import, { lines, as_slug: 'lim-inf' }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { line: at + 1, record_field: 'context' } });
      expect(error.message).toMatch(new RegExp(`^line ${at + 1}: field 'context' .*finite`));
      expect(await svc.store.db.selectFrom('projects').select('id').where('slug', '=', 'lim-inf').execute()).toEqual([]);
    });
  });

  describe('context size', () => {
    const MiB = 1024 * 1024;
    /** A context whose JSON text is exactly `chars` characters long. */
    const contextOf = (chars: number) => ({ s: 'x'.repeat(chars - '{"s":""}'.length) });

    it('refuses a context over 1 MiB of JSON with invalid_input naming context and the limit; 1 MiB is stored', async () => {
      const error = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', title: 'Big', context: contextOf(MiB + 1) }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'context' } });
      expect(error.message).toMatch(/^context: .*1 MiB/);
      expect(await svc.store.db.selectFrom('items').select('id').execute()).toEqual([]);
      expect(await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Big', context: contextOf(MiB) })).toMatchObject({ version: 1 });
    });

    it('bounds every context the same way: in a batch, in a promotion, in signals and in an import file', async () => {
      const decisions = [{ title: 'Fine' }, { title: 'Big', context: contextOf(MiB + 1) }];
      expect(await refusal(call(ops.svc_save_decisions, { project_id: 'lim', decisions }))).toMatchObject({ details: { field: 'decisions[1].context' } });
      const capture = (await call(ops.svc_capture_add, { text: 'note' })) as { id: string };
      expect(await refusal(call(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'lim', title: 'Big', context: contextOf(MiB + 1) }))).toMatchObject({
        details: { field: 'context' },
      });
      const signals = await refusal(call(ops.svc_capture_annotate, { capture_id: capture.id, signals: contextOf(MiB + 1) }));
      expect(signals).toMatchObject({ code: 'invalid_input', details: { field: 'signals' } });
      expect(signals.message).toMatch(/^signals: .*1 MiB/);

      await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Small', context: { s: 'x' } });
      const lines = ((await call(ops.project_export, { project_id: 'lim' })) as { lines: string[] }).lines;
      const at = lines.findIndex((l) => l.startsWith('{"type":"item"'));
      lines[at] = (lines[at] as string).replace('"s":"x"', `"s":"${'x'.repeat(MiB + 1)}"`);
      const error = await refusal(call(ops.project_import, { lines, as_slug: 'lim-big' }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { line: at + 1, record_field: 'context' } });
      expect(error.message).toContain('1 MiB');
      expect(await svc.store.db.selectFrom('projects').select('id').where('slug', '=', 'lim-big').execute()).toEqual([]);
    });
  });

  describe('search index', () => {
    /** About 1.65 bytes of tsvector per character: past PostgreSQL's 1 MiB (lexemes and positions) of one vector. */
    const tooMany = () => distinctWords(1_000_000);

    it('refuses an item whose body holds more distinct words than the search index can hold, naming title and body, and writes nothing', async () => {
      const created = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', title: 'Words', body: tooMany() }));
      expect(created).toMatchObject({ code: 'invalid_input', details: { field: 'body', fields: ['title', 'body'] } });
      expect(created.message).toMatch(/^title and body: .*distinct words.*search index/);
      const item = (await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Words', body: 'few' })) as { id: string };
      const edited = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', item_id: item.id, body: tooMany() }));
      expect(edited).toMatchObject({ code: 'invalid_input', details: { field: 'body' } });
      const decisions = [{ title: 'Fine' }, { title: 'Words', body: tooMany() }];
      expect(await refusal(call(ops.svc_save_decisions, { project_id: 'lim', decisions }))).toMatchObject({
        code: 'invalid_input',
        details: { field: 'decisions[1].body', fields: ['decisions[1].title', 'decisions[1].body'] },
      });
      expect((await svc.store.db.selectFrom('items').select('body').execute()).map((r) => r.body)).toEqual(['few']);
    }, 60_000);

    it('refuses a capture text, a summary that tips it over, and an idea the same way, naming their fields', async () => {
      const text = await refusal(call(ops.svc_capture_add, { text: tooMany() }));
      expect(text).toMatchObject({ code: 'invalid_input', details: { field: 'text' } });
      expect(text.message).toMatch(/^text: .*distinct words/);
      const capture = (await call(ops.svc_capture_add, { text: distinctWords(580_000) })) as { id: string };
      const summary = await refusal(call(ops.svc_capture_annotate, { capture_id: capture.id, summary: distinctWords(100_000, 's') }));
      expect(summary).toMatchObject({ code: 'invalid_input', details: { field: 'summary', fields: ['text', 'summary'] } });
      const unit = (await call(ops.svc_work_open, { project_id: 'lim', title: 'U' })) as { id: string };
      const idea = await refusal(call(ops.svc_idea_add, { work_unit_id: unit.id, text: tooMany() }));
      expect(idea).toMatchObject({ code: 'invalid_input', details: { field: 'text' } });
      expect(await svc.store.db.selectFrom('ideas').select('id').execute()).toEqual([]);
      expect((await svc.store.db.selectFrom('captures').select('summary').execute()).map((r) => r.summary)).toEqual([null]);
    }, 60_000);

    it('refuses an import file whose item holds too many distinct words, naming the line and the search index, and writes nothing', async () => {
      await call(ops.svc_item_upsert, { project_id: 'lim', title: 'Words', body: 'few' });
      const lines = ((await call(ops.project_export, { project_id: 'lim' })) as { lines: string[] }).lines;
      const at = lines.findIndex((l) => l.startsWith('{"type":"item"'));
      lines[at] = (lines[at] as string).replace('"body":"few"', `"body":"${tooMany()}"`);
      const error = await refusal(call(ops.project_import, { lines, as_slug: 'lim-words' }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { line: at + 1 } });
      expect(error.message).toMatch(new RegExp(`^line ${at + 1}: .*distinct words than the search index can hold`));
      expect(await svc.store.db.selectFrom('projects').select('id').where('slug', '=', 'lim-words').execute()).toEqual([]);
    }, 60_000);
  });

  describe('schema patterns', () => {
    it('validates a write against ^(a+)+$ in linear time: 40 a and ! is an ordinary refusal, not a stall', async () => {
      const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } };
      await call(ops.type_add, { key: 'ticket', schema });
      // A backtracking engine needs about 2^40 steps for this input: the call returns only on a linear engine.
      const error = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'ticket', title: 'T', context: { code: `${'a'.repeat(40)}!` } }));
      expect(error).toMatchObject({ code: 'invalid_input', details: { field: 'context.code' } });
      expect(await call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'ticket', title: 'T', context: { code: 'aaaa' } })).toMatchObject({ item_type: 'ticket', version: 1 });
    });

    it('refuses at type_add a schema whose pattern needs a backreference or lookaround, naming its path', async () => {
      const backreference = await refusal(call(ops.type_add, { key: 'pairs', schema: { type: 'object', properties: { pair: { type: 'string', pattern: '^(a)\\1$' } } } }));
      expect(backreference).toMatchObject({ code: 'invalid_input', details: { field: 'schema.properties.pair.pattern' } });
      expect(backreference.message).toContain('cannot run on the linear-time engine (RE2)');
      const lookaround = await refusal(call(ops.type_add, { key: 'looks', schema: { type: 'object', patternProperties: { '^(?!x)': {} } } }));
      expect(lookaround).toMatchObject({ code: 'invalid_input', details: { field: 'schema.patternProperties' } });
      expect(await svc.store.db.selectFrom('item_types').select('key').where('key', 'in', ['pairs', 'looks']).execute()).toEqual([]);
    });

    it('refuses at type_add and in an import file a schema that refers to itself without end, which made every write of the type an internal error (an attacker, 2026-11-27)', async () => {
      const loopy = { allOf: [{ $ref: '#' }] };
      const added = await refusal(call(ops.type_add, { key: 'loopy', schema: loopy }));
      expect(added).toMatchObject({ code: 'invalid_input', details: { field: 'schema' } });
      expect(added.message).toMatch(/^schema: refers to itself without descending into the value/);
      // The same schema in an exported file: the type's line is refused, nothing is written.
      await call(ops.type_add, { key: 'fine', schema: { type: 'object' } });
      await call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'fine', title: 'Typed' });
      const lines = ((await call(ops.project_export, { project_id: 'lim' })) as { lines: string[] }).lines;
      const at = lines.findIndex((l) => l.includes('"key":"fine"'));
      expect(at).toBeGreaterThanOrEqual(0);
      const row = JSON.parse(lines[at] as string) as Record<string, unknown>;
      lines[at] = JSON.stringify({ ...row, key: 'fine_loopy', schema: loopy });
      const imported = await refusal(call(ops.project_import, { lines: lines.map((l) => l.replaceAll('"item_type":"fine"', '"item_type":"fine_loopy"')), as_slug: 'lim-loopy' }));
      expect(imported.code).toBe('invalid_input');
      expect(imported.message).toMatch(new RegExp(`^line ${at + 1}: field 'schema' of item type 'fine_loopy': .*refers to itself`));
      expect(await svc.store.db.selectFrom('item_types').select('key').where('key', 'in', ['loopy', 'fine_loopy']).execute()).toEqual([]);
    });

    it('refuses at type_add a uniqueItems that ajv would check pairwise, naming its path; a scalar one takes 100,000 items', async () => {
      for (const [schema, path] of [
        [{ type: 'object', properties: { a: { type: 'array', uniqueItems: true } } }, 'schema.properties.a.uniqueItems'],
        [{ type: 'object', properties: { a: { type: 'array', uniqueItems: true, items: { type: 'object' } } } }, 'schema.properties.a.uniqueItems'],
        [{ type: 'object', properties: { a: { type: 'array', items: { type: 'array', uniqueItems: true, items: {} } } } }, 'schema.properties.a.items.uniqueItems'],
        [{ type: 'object', $defs: { d: { uniqueItems: true, items: { type: ['string', 'array'] } } } }, 'schema.$defs.d.uniqueItems'],
      ] as const) {
        const error = await refusal(call(ops.type_add, { key: 'sets', schema }));
        expect(error).toMatchObject({ code: 'invalid_input', details: { field: path } });
        expect(error.message).toContain('uniqueItems');
      }
      expect(await svc.store.db.selectFrom('item_types').select('key').where('key', '=', 'sets').execute()).toEqual([]);

      const schema = { type: 'object', properties: { a: { type: 'array', uniqueItems: true, items: { type: 'integer' } }, uniqueItems: { type: 'string' } } };
      await call(ops.type_add, { key: 'sets', schema });
      const many = Array.from({ length: 100_000 }, (_, i) => i);
      expect(await call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'sets', title: 'Many', context: { a: many } })).toMatchObject({ item_type: 'sets', version: 1 });
      const twice = await refusal(call(ops.svc_item_upsert, { project_id: 'lim', item_type: 'sets', title: 'Twice', context: { a: [...many, 7] } }));
      expect(twice).toMatchObject({ code: 'invalid_input', details: { field: 'context.a' } });
    });
  });

  describe('glossary expansion', () => {
    it(`answers a long OR query over a 500-term group, expanding at most ${MAX_SYNONYMS_PER_TERM} per word and ${MAX_EXPANSIONS} in all`, async () => {
      await call(ops.glossary_group_add, { project_id: 'lim', name: 'big' });
      const { projectId } = { projectId: ((await call(ops.project_show, { project_id: 'lim' })) as { id: string }).id };
      const group = (await svc.store.db.selectFrom('glossary_groups').select('id').where('name', '=', 'big').executeTakeFirstOrThrow()).id;
      await sql`
        insert into glossary_terms (project_id, group_id, term, normalized, status, decided_at)
        select ${projectId}::uuid, ${group}::uuid, 'term' || n, 'term' || n, 'accepted', now() from generate_series(0, 499) n`.execute(svc.store.db);
      await call(ops.svc_item_upsert, { project_id: 'lim', title: 'About term7', body: 'term7 is here' });
      await call(ops.svc_item_upsert, { project_id: 'lim', title: 'About term499', body: 'term499 is here' });
      const query = Array.from({ length: 30 }, (_, i) => `term${i}`).join(' OR ');
      const answer = (await call(ops.svc_item_search, { project_id: 'lim', query })) as { items: { title: string }[]; truncated: boolean; expansion_cut: boolean };
      expect(answer.expansion_cut).toBe(true);
      expect(answer.items.map((i) => i.title)).toContain('About term7');
      const plain = (await call(ops.svc_item_search, { project_id: 'lim', query: 'nothing' })) as { expansion_cut: boolean };
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
