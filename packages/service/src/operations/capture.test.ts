import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { findOperation } from '../catalog.js';
import { refusal, type TestService, testBackends } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';

const run = promisify(execFile);


interface Capture {
  id: string;
  text: string;
  summary: string | null;
  signals: Record<string, unknown>;
  review_state: string;
}

describe.each(testBackends())('captures and ideas on $name', (backend) => {
  let svc: TestService;
  let call: (name: string, input: unknown) => Promise<unknown>;
  let actorId: string;

  useTestService(backend, 'cap', (t) => {
    ({ svc, call } = t);
    actorId = t.seeded.actorId;
  });

  const add = async (text: string) => (await call('svc_capture_add', { text })) as { id: string; state: string };
  const list = async (input: Record<string, unknown> = {}) => ((await call('svc_capture_list', input)) as { captures: Capture[] }).captures;
  const search = async (query: string, input: Record<string, unknown> = {}) =>
    ((await call('svc_capture_search', { query, ...input })) as { captures: Capture[] }).captures;

  it('acknowledges an add with the id prefix and state, and stores the text as given', async () => {
    const ack = await add('  raw words, as typed  ');
    expect(ack.state).toBe('inbox');
    const op = findOperation('svc_capture_add')!;
    expect(op.presentation.kind === 'ack' && op.presentation.render(ack as never)).toBe(`capture ${ack.id.slice(0, 8)} inbox`);
    expect((await list())[0]).toMatchObject({ id: ack.id, text: '  raw words, as typed  ', summary: null, signals: {} });
  });

  it('rejects signals that are not a JSON object and stores an object exactly as given', async () => {
    const { id } = await add('note');
    for (const signals of [[1, 2], 'loud', 42, true]) {
      const error = await refusal(call('svc_capture_annotate', { capture_id: id, signals }));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toMatch(/^signals: /);
    }
    // null would mean "clear", and signals cannot be cleared (give {}): refused, naming the field.
    const cleared = await refusal(call('svc_capture_annotate', { capture_id: id, signals: null }));
    expect(cleared).toMatchObject({ code: 'invalid_input', details: { field: 'signals' } });
    expect(cleared.message).toMatch(/^signals: cannot be cleared/);
    const signals = { urgency: 'high', nested: { list: [1, 'two'], __proto__x: true }, constructor: 'x' };
    const annotated = (await call('svc_capture_annotate', { capture_id: id, summary: 'short', sensitivity_hint: 'internal', signals })) as Capture;
    expect(annotated.signals).toEqual(signals);
    expect(annotated.summary).toBe('short');
  });

  it('refuses set_state to redacted or promoted, naming the tool to use', async () => {
    const { id } = await add('note');
    expect((await refusal(call('svc_capture_set_state', { capture_id: id, review_state: 'redacted' }))).message).toContain('svc_capture_redact');
    expect((await refusal(call('svc_capture_set_state', { capture_id: id, review_state: 'promoted' }))).message).toContain('svc_capture_promote');
    expect((await refusal(call('svc_capture_set_state', { capture_id: id, review_state: 'bogus' }))).code).toBe('invalid_input');
    const moved = (await call('svc_capture_set_state', { capture_id: id, review_state: 'review' })) as { state: string };
    expect(moved.state).toBe('review');
  });

  it('hides discarded captures from the default list and search', async () => {
    const { id } = await add('discard this pineapple');
    await call('svc_capture_discard', { capture_id: id });
    expect(await list()).toEqual([]);
    expect(await search('pineapple')).toEqual([]);
    expect((await list({ include_discarded: true })).map((c) => c.id)).toEqual([id]);
    expect((await search('pineapple', { include_discarded: true })).map((c) => c.id)).toEqual([id]);
  });

  it('redaction masks the capture, hides it by default, and its words match nothing', async () => {
    const { id } = await add('the launch code is swordfish');
    await call('svc_capture_annotate', { capture_id: id, summary: 'swordfish summary', signals: { secret: 'swordfish' } });
    await call('svc_capture_redact', { capture_id: id });
    expect(await list()).toEqual([]);
    expect(await search('swordfish')).toEqual([]);
    expect(await search('swordfish', { include_redacted: true })).toEqual([]);
    const [shown] = await list({ include_redacted: true });
    expect(shown).toMatchObject({ id, text: '[redacted]', summary: '[redacted]', signals: {}, review_state: 'redacted' });
    expect((await refusal(call('svc_capture_set_state', { capture_id: id, review_state: 'inbox' }))).code).toBe('refused_transition');
    expect((await refusal(call('svc_capture_annotate', { capture_id: id, summary: 'back' }))).code).toBe('refused_transition');
    expect((await refusal(call('svc_capture_promote', { capture_id: id, project_id: 'cap', title: 't' }))).code).toBe('refused_transition');
  });

  it('leaves a redacted marker nowhere in the database', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    const { id } = await add(`secret ${marker} inside`);
    await call('svc_capture_annotate', { capture_id: id, summary: `about ${marker}`, sensitivity_hint: marker, signals: { [marker]: marker } });
    await call('svc_capture_set_state', { capture_id: id, review_state: 'review' });
    await call('svc_capture_redact', { capture_id: id });
    await expectNowhere(marker, id);
  });

  it('redacting a promoted capture masks its text in every version of the item that still holds it', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    const { id } = await add(`token ${marker} for the staging API`);
    const promoted = (await call('svc_capture_promote', { capture_id: id, project_id: 'cap', title: 'Staging access' })) as { item_id: string };
    const v2 = (await call('svc_item_upsert', {
      project_id: 'cap',
      item_id: promoted.item_id,
      body: `token ${marker} for the staging API\nRotate it monthly.`,
    })) as { id: string };
    const findMarker = async () =>
      ((await call('svc_item_search', { project_id: 'cap', query: marker })) as { items: unknown[] }).items.length;
    expect(await findMarker()).toBe(1);

    await call('svc_capture_redact', { capture_id: id });
    const shown = (await call('item_show', { item_id: v2.id })) as { item: { body: string; title: string } };
    expect(shown.item).toMatchObject({ title: 'Staging access', body: '[redacted]\nRotate it monthly.' });
    expect(await findMarker()).toBe(0);
    const audit = await svc.store.db.selectFrom('audit_log').select('details').where('operation', '=', 'svc_capture_redact').executeTakeFirstOrThrow();
    expect(audit.details).toEqual({ from: 'promoted', to: 'redacted', item_id: promoted.item_id, masked_item_versions: 2 });
    await expectNowhere(marker, id);
  });

  /** No row of any table holds `marker` (PostgreSQL: the whole pg_dump), while `id` is still there. */
  async function expectNowhere(marker: string, id: string): Promise<void> {
    if (svc.store.url) {
      const { stdout } = await run('pg_dump', ['--data-only', svc.store.url], { maxBuffer: 64 * 1024 * 1024 });
      expect(stdout).toContain(id);
      expect(stdout).not.toContain(marker);
    } else {
      const { rows: tables } = await sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(svc.store.db);
      expect(tables.length).toBeGreaterThan(15);
      for (const { table_name } of tables) {
        const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(svc.store.db);
        for (const { row } of rows) expect(row).not.toContain(marker);
      }
    }
  }

  it('promotes through the item path: refused without project_id, searchable, bridged, body "" uses the text', async () => {
    const { id } = await add('Use blue-green deploys for the payment API');
    expect((await refusal(call('svc_capture_promote', { capture_id: id, title: 'Deploys' }))).message).toMatch(/^project_id: /);
    const promoted = (await call('svc_capture_promote', {
      capture_id: id,
      project_id: 'cap',
      item_type: 'decision',
      title: 'Blue-green deploys',
      body: '',
    })) as { id: string; state: string; item_id: string };
    expect(promoted.state).toBe('promoted');
    const op = findOperation('svc_capture_promote')!;
    expect(op.presentation.kind === 'ack' && op.presentation.render(promoted as never)).toBe(
      `capture ${id.slice(0, 8)} promoted item ${promoted.item_id.slice(0, 8)}`,
    );
    const hits = (await call('svc_item_search', { project_id: 'cap', query: 'payment' })) as { items: { id: string }[] };
    expect(hits.items.map((h) => h.id)).toEqual([promoted.item_id]);
    const bridge = await svc.store.db.selectFrom('capture_promotions').selectAll().executeTakeFirstOrThrow();
    expect(bridge).toMatchObject({ capture_id: id, item_id: promoted.item_id, promoted_by: actorId });
    const item = ((await call('item_show', { item_id: promoted.item_id })) as { item: { body: string } }).item;
    expect(item.body).toBe('Use blue-green deploys for the payment API');
    expect((await refusal(call('svc_capture_promote', { capture_id: id, project_id: 'cap', title: 'Again' }))).code).toBe('refused_transition');
  });

  it('captures never reach item search until promoted', async () => {
    await add('kumquat logistics');
    const hits = (await call('svc_item_search', { project_id: 'cap', query: 'kumquat' })) as { items: unknown[] };
    expect(hits.items).toEqual([]);
  });

  it('attributes a capture to actor_id when given and refuses an unknown one', async () => {
    const other = (await svc.call('actor_add', { email: 'other@example.test' }, { source: 'cli' })) as { id: string };
    const { id } = (await call('svc_capture_add', { text: 'x', actor_id: other.id })) as { id: string };
    const row = await svc.store.db.selectFrom('captures').select('created_by').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.created_by).toBe(other.id);
    const error = await refusal(call('svc_capture_add', { text: 'x', actor_id: '11111111-1111-4111-8111-111111111111' }));
    expect(error.code).toBe('unknown_actor');
  });

  it('ideas: newest first; search by project narrowed by work unit, author and time; redact keeps the row, masked', async () => {
    const unitA = ((await call('svc_work_open', { project_id: 'cap', title: 'A' })) as { id: string }).id;
    const unitB = ((await call('svc_work_open', { project_id: 'cap', title: 'B' })) as { id: string }).id;
    const other = (await svc.call('actor_add', { email: 'idea-author@example.test' }, { source: 'cli' })) as { id: string };
    const first = (await call('svc_idea_add', { work_unit_id: unitA, text: 'cache the catalog' })) as { id: string; created_at: string };
    await new Promise((r) => setTimeout(r, 15));
    const second = (await call('svc_idea_add', { work_unit_id: unitA, text: 'shard the catalog', actor_id: other.id })) as { id: string; created_at: string };
    await call('svc_idea_add', { work_unit_id: unitB, text: 'catalog in another unit' });

    const listed = (await call('svc_idea_list', { work_unit_id: unitA })) as { ideas: { id: string }[] };
    expect(listed.ideas.map((i) => i.id)).toEqual([second.id, first.id]);
    const texts = async (input: Record<string, unknown>) =>
      ((await call('svc_idea_search', { project_id: 'cap', ...input })) as { ideas: { text: string }[] }).ideas.map((i) => i.text);
    expect(await texts({ query: 'catalog' })).toHaveLength(3);
    expect(await texts({ query: 'catalog', work_unit_id: unitA })).toEqual(['shard the catalog', 'cache the catalog']);
    expect(await texts({ author_id: other.id })).toEqual(['shard the catalog']);
    expect(await texts({ work_unit_id: unitA, since: second.created_at })).toEqual(['shard the catalog']);
    expect(await texts({ work_unit_id: unitA, until: second.created_at })).toEqual(['cache the catalog']);

    const ack = (await call('svc_idea_redact', { idea_id: first.id })) as { state: string };
    expect(ack.state).toBe('redacted');
    const after = (await call('svc_idea_list', { work_unit_id: unitA })) as { ideas: { id: string; text: string; redacted: boolean }[] };
    expect(after.ideas).toHaveLength(2);
    expect(after.ideas[1]).toMatchObject({ id: first.id, text: '[redacted]', redacted: true });
    expect(await texts({ query: 'cache' })).toEqual([]);
  });
});
