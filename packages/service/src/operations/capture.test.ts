import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ops } from '../catalog.js';
import { type Call, operation, refusal, testBackends, type TestService, unchecked } from '../testing/index.js';
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
  let call: Call;
  let actorId: string;

  useTestService(backend, 'cap', (t) => {
    ({ svc, call } = t);
    actorId = t.seeded.actorId;
  });

  const add = async (text: string) => (await call(ops.svc_capture_add, { text })) as { id: string; state: string };
  const list = async (input: Record<string, unknown> = {}) => ((await call(ops.svc_capture_list, input)) as { captures: Capture[] }).captures;
  const search = async (query: string, input: Record<string, unknown> = {}) =>
    ((await call(ops.svc_capture_search, { query, ...input })) as { captures: Capture[] }).captures;

  it('bounds list and search answers by the size of their text, not only their count, and says so', async () => {
    const big = (word: string) => `${word} ${'x'.repeat(300 * 1024)}`;
    for (const word of ['first', 'second', 'third']) await call(ops.svc_capture_add, { project_id: 'cap', text: big(`bulky ${word}`) });
    type Captures = { captures: { text: string }[]; truncated: unknown };
    const listed = (await call(ops.svc_capture_list, { project_id: 'cap' })) as Captures;
    // 300 KiB each: the second would pass ANSWER_TEXT_BUDGET (512 KiB). The newest comes first.
    expect([listed.captures.map((c) => c.text.slice(0, 11)), listed.truncated]).toEqual([['bulky third'], true]);
    const found = (await call(ops.svc_capture_search, { project_id: 'cap', query: 'bulky' })) as Captures;
    expect([found.captures.length, found.truncated]).toEqual([1, ['size']]);
    // Within the budget nothing is cut.
    expect(((await call(ops.svc_capture_search, { project_id: 'cap', query: 'nothing-bulky-here' })) as Captures).truncated).toBe(false);

    const unit = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'Bulky ideas' })) as { id: string }).id;
    for (const word of ['one', 'two']) await call(ops.svc_idea_add, { work_unit_id: unit, text: big(`bulky idea ${word}`) });
    type Ideas = { ideas: { text: string }[]; truncated: unknown };
    const ideas = (await call(ops.svc_idea_list, { work_unit_id: unit })) as Ideas;
    expect([ideas.ideas.length, ideas.truncated]).toEqual([1, true]);
    const ideaHits = (await call(ops.svc_idea_search, { project_id: 'cap', query: 'bulky' })) as Ideas;
    expect([ideaHits.ideas.length, ideaHits.truncated]).toEqual([1, ['size']]);
  });

  it('acknowledges an add with the id prefix and state, and stores the text as given', async () => {
    const ack = await add('  raw words, as typed  ');
    expect(ack.state).toBe('inbox');
    const op = ops.svc_capture_add;
    expect(op.presentation.kind === 'ack' && op.presentation.render(ack)).toBe(`capture ${ack.id.slice(0, 8)} inbox`);
    expect((await list())[0]).toMatchObject({ id: ack.id, text: '  raw words, as typed  ', summary: null, signals: {} });
  });

  it('rejects signals that are not a JSON object and stores an object exactly as given', async () => {
    const { id } = await add('note');
    for (const signals of [[1, 2], 'loud', 42, true]) {
      const error = await refusal(call(ops.svc_capture_annotate, unchecked({ capture_id: id, signals })));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toMatch(/^signals: /);
    }
    // null would mean "clear", and signals cannot be cleared (give {}): refused, naming the field.
    const cleared = await refusal(call(ops.svc_capture_annotate, unchecked({ capture_id: id, signals: null })));
    expect(cleared).toMatchObject({ code: 'invalid_input', details: { field: 'signals' } });
    expect(cleared.message).toMatch(/^signals: cannot be cleared/);
    const signals = { urgency: 'high', nested: { list: [1, 'two'], __proto__x: true }, constructor: 'x' };
    await call(ops.svc_capture_annotate, { capture_id: id, summary: 'short', sensitivity_hint: 'internal', signals });
    const annotated = ((await call(ops.svc_capture_list, {})) as { captures: Capture[] }).captures.find((c) => c.id === id) as Capture;
    expect(annotated.signals).toEqual(signals);
    expect(annotated.summary).toBe('short');
  });

  it('refuses set_state to redacted or promoted, naming the tool to use', async () => {
    const { id } = await add('note');
    expect((await refusal(call(ops.svc_capture_set_state, { capture_id: id, review_state: 'redacted' }))).message).toContain('svc_capture_redact');
    expect((await refusal(call(ops.svc_capture_set_state, { capture_id: id, review_state: 'promoted' }))).message).toContain('svc_capture_promote');
    expect((await refusal(call(ops.svc_capture_set_state, { capture_id: id, review_state: 'bogus' }))).code).toBe('invalid_input');
    const moved = (await call(ops.svc_capture_set_state, { capture_id: id, review_state: 'review' })) as { state: string };
    expect(moved.state).toBe('review');
  });

  it('hides discarded captures from the default list and search', async () => {
    const { id } = await add('discard this pineapple');
    await call(ops.svc_capture_discard, { capture_id: id });
    expect(await list()).toEqual([]);
    expect(await search('pineapple')).toEqual([]);
    expect((await list({ include_discarded: true })).map((c) => c.id)).toEqual([id]);
    expect((await search('pineapple', { include_discarded: true })).map((c) => c.id)).toEqual([id]);
  });

  it('redaction masks the capture, hides it by default, and its words match nothing', async () => {
    const { id } = await add('the launch code is swordfish');
    await call(ops.svc_capture_annotate, { capture_id: id, summary: 'swordfish summary', signals: { secret: 'swordfish' } });
    await call(ops.svc_capture_redact, { capture_id: id });
    expect(await list()).toEqual([]);
    expect(await search('swordfish')).toEqual([]);
    expect(await search('swordfish', { include_redacted: true })).toEqual([]);
    const [shown] = await list({ include_redacted: true });
    expect(shown).toMatchObject({ id, text: '[redacted]', summary: '[redacted]', signals: {}, review_state: 'redacted' });
    expect((await refusal(call(ops.svc_capture_set_state, { capture_id: id, review_state: 'inbox' }))).code).toBe('refused_transition');
    expect((await refusal(call(ops.svc_capture_annotate, { capture_id: id, summary: 'back' }))).code).toBe('refused_transition');
    expect((await refusal(call(ops.svc_capture_promote, { capture_id: id, project_id: 'cap', title: 't' }))).code).toBe('refused_transition');
  });

  it('leaves a redacted marker nowhere in the database', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    const { id } = await add(`secret ${marker} inside`);
    await call(ops.svc_capture_annotate, { capture_id: id, summary: `about ${marker}`, sensitivity_hint: marker, signals: { [marker]: marker } });
    await call(ops.svc_capture_set_state, { capture_id: id, review_state: 'review' });
    await call(ops.svc_capture_redact, { capture_id: id });
    await expectNowhere(marker, id);
  });

  interface Version {
    id: string;
    title: string;
    body: string;
    item_type: string;
    status: string | null;
    context: Record<string, unknown>;
    source_url: string | null;
    version: number;
    deleted_at: string | null;
  }
  interface Chain {
    versions: Version[];
    entries: { change_kind: string; version: number; semantic_impacts: string[]; details: unknown }[];
  }
  const chainOf = async (itemId: string) => (await call(ops.item_history, { item_id: itemId })) as Chain;
  const itemHits = async (query: string) =>
    ((await call(ops.svc_item_search, { project_id: 'cap', query })) as { items: { id: string }[] }).items.map((i) => i.id);

  it('redacting a promoted capture redacts the item made from it: title and body of every version, nothing else', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    const { id } = await add(`token ${marker} for the staging API`);
    // The title is typed at promotion from a fragment of the capture; the body is copied from it.
    const promoted = (await call(ops.svc_capture_promote, {
      capture_id: id,
      project_id: 'cap',
      title: `Staging ${marker}`,
      context: { ticket: marker, n: 5, deep: { list: [`key ${marker}`, 3, true, null] } },
      source_url: `https://user:${marker}@example.test/keys/${marker}?token=${marker}#${marker}`,
    })) as { item_id: string };
    // An edit after promotion that no longer holds the capture text verbatim, but still the secret.
    const v2 = (await call(ops.svc_item_upsert, {
      project_id: 'cap',
      item_id: promoted.item_id,
      body: `Token ${marker}, fixed for staging.\nRotate it monthly.`,
      context: { ticket: 'OPS-1', n: 6, [`${marker}`.slice(0, 3)]: { note: `rotated ${marker}` } },
    })) as { id: string };
    const other = (await call(ops.svc_item_upsert, { project_id: 'cap', item_type: 'knowledge', title: 'Rotation', body: 'Rotate every token monthly.' })) as { id: string };
    await call(ops.link_add, { project_id: 'cap', from_id: other.id, type: 'depends', to_id: promoted.item_id });
    expect(await itemHits(marker)).toEqual([v2.id]);
    // Deleted versions are redacted too (restored below, so search would see them again).
    await call(ops.item_delete, { project_id: 'cap', item_id: promoted.item_id });
    const before = await chainOf(promoted.item_id);
    const otherBefore = await chainOf(other.id);

    const ack = (await call(ops.svc_capture_redact, { capture_id: id })) as { id: string; state: string; item_id: string };
    expect(ack).toEqual({ id, state: 'redacted', item_id: promoted.item_id });
    const op = ops.svc_capture_redact;
    expect(op.presentation.kind === 'ack' && op.presentation.render(ack)).toBe(`capture ${id.slice(0, 8)} redacted item ${promoted.item_id.slice(0, 8)}`);

    const after = await chainOf(promoted.item_id);
    expect(after.versions.map((v) => [v.version, v.title, v.body])).toEqual([
      [1, '[redacted]', '[redacted]'],
      [2, '[redacted]', '[redacted]'],
    ]);
    // The context goes whole: the caller's keys and values, at any depth (a knowledge item has no structural field).
    expect(after.versions.map((v) => v.context)).toEqual([{}, {}]);
    // The source keeps its origin only: a token in its path, query, fragment or user part goes.
    expect(after.versions.map((v) => v.source_url)).toEqual(['https://example.test/', 'https://example.test/']);
    // Everything else stays: ids, type, status, deletion, history entries and their labels.
    const rest = (c: Chain) => ({
      versions: c.versions.map(({ title: _t, body: _b, context: _c, source_url: _s, ...v }) => v),
      entries: c.entries,
    });
    expect(rest(after)).toEqual(rest(before));
    expect(await chainOf(other.id)).toEqual(otherBefore);
    const links = (await call(ops.item_show, { item_id: other.id })) as { links: { to_chain_id: string }[] };
    expect(links.links.map((l) => l.to_chain_id)).toEqual([promoted.item_id]);

    await call(ops.item_restore, { project_id: 'cap', item_id: promoted.item_id });
    const shown = (await call(ops.item_show, { item_id: v2.id })) as { item: Version };
    expect(shown.item).toMatchObject({ id: v2.id, title: '[redacted]', body: '[redacted]', version: 2 });
    expect(JSON.stringify(shown)).not.toContain(marker);
    for (const word of [marker, 'staging', 'monthly']) {
      expect(await itemHits(word)).toEqual(word === 'monthly' ? [other.id] : []);
    }
    const history = (await call(ops.svc_history_query, { project_id: 'cap', item_id: promoted.item_id })) as { entries: unknown[] };
    expect(JSON.stringify(history)).not.toContain(marker);
    const exported = (await call(ops.project_export, { project_id: 'cap' })) as { lines: string[] };
    expect(exported.lines.join('\n')).not.toContain(marker);
    expect(exported.lines.join('\n')).toContain('Rotate every token monthly.');
    const audit = await svc.store.db.selectFrom('audit_log').select('details').where('operation', '=', 'svc_capture_redact').executeTakeFirstOrThrow();
    expect(audit.details).toEqual({ from: 'promoted', to: 'redacted', item_id: promoted.item_id, redacted_item_versions: 2 });
    await expectNowhere(marker, id);
  });

  // PostgreSQL runs writes side by side (the embedded database one at a time): an edit racing the redaction must
  // not leave a version the redaction did not see.
  it.runIf(backend.name === 'postgres')('redacts every version even when an edit of the item races the redaction', async () => {
    for (let round = 0; round < 8; round++) {
      const marker = `zqxrace${round}${Date.now().toString(36)}`;
      const { id } = await add(`race ${marker}`);
      const promoted = (await call(ops.svc_capture_promote, { capture_id: id, project_id: 'cap', title: `race ${marker}` })) as { item_id: string };
      await Promise.all([
        call(ops.svc_item_upsert, { project_id: 'cap', item_id: promoted.item_id, context: { m: round } }).catch(() => undefined),
        call(ops.svc_capture_redact, { capture_id: id }),
      ]);
      const rows = await svc.store.db
        .selectFrom('items')
        .select(['version', 'title', 'body'])
        .where('chain_id', '=', promoted.item_id)
        .orderBy('version')
        .execute();
      for (const row of rows) expect([row.version, row.title, row.body], marker).toEqual([row.version, '[redacted]', '[redacted]']);
    }
  });

  it('redacting a promoted capture leaves no context key or number of it in any answer: show, list, search, export', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    // A token-like number (15 digits: no id, timestamp or count in any row can hold it by chance).
    const pin = 900_000_000_000_000 + (Date.now() % 1_000_000_000);
    const { id } = await add(`vault ${marker} pin ${pin}`);
    await call(ops.svc_capture_annotate, { capture_id: id, summary: `pin ${pin}`, signals: { [marker]: pin } });
    const promoted = (await call(ops.svc_capture_promote, {
      capture_id: id,
      project_id: 'cap',
      title: 'Vault access',
      context: { [marker]: pin, pin, deep: { [marker]: [pin, { [`${marker}_2`]: true }] } },
    })) as { item_id: string };
    const v2 = (await call(ops.svc_item_upsert, { project_id: 'cap', item_id: promoted.item_id, context: { rotated: pin + 1, [marker]: null } })) as { id: string };
    const shownBefore = JSON.stringify(await call(ops.item_show, { item_id: v2.id }));
    expect([shownBefore.includes(marker), shownBefore.includes(String(pin))]).toEqual([true, true]);

    await call(ops.svc_capture_redact, { capture_id: id });

    // Every version's context loses the caller's keys and values alike; only the row's shape (ids, version) stays.
    const after = await chainOf(promoted.item_id);
    expect(after.versions.map((v) => [v.version, v.title, v.context])).toEqual([
      [1, '[redacted]', {}],
      [2, '[redacted]', {}],
    ]);
    const answers = {
      show: await call(ops.item_show, { item_id: v2.id }),
      history: after,
      history_query: await call(ops.svc_history_query, { project_id: 'cap', item_id: promoted.item_id }),
      capture_list: await call(ops.svc_capture_list, { include_redacted: true }),
      capture_search: await call(ops.svc_capture_search, { query: '', include_redacted: true }),
      brief: await call(ops.svc_brief, { project_id: 'cap' }),
      resume: await call(ops.svc_work_resume, { project_id: 'cap', keyword: '' }),
      export: await call(ops.project_export, { project_id: 'cap' }),
      inbox_export: await call(ops.inbox_export, {}),
    };
    for (const [name, answer] of Object.entries(answers)) {
      const text = JSON.stringify(answer);
      expect({ name, key: text.includes(marker), number: text.includes(String(pin)) || text.includes(String(pin + 1)) }).toEqual({
        name,
        key: false,
        number: false,
      });
    }
    for (const query of [marker, String(pin), `"${marker}"`]) {
      expect(await itemHits(query)).toEqual([]);
      expect(await search(query, { include_redacted: true })).toEqual([]);
    }
    await expectNowhere(marker, id);
    await expectNowhere(String(pin), id);
    await expectNowhere(String(pin + 1), id);
  });

  it('redacting a capture promoted as a task leaves no copy in the decision svc_task_block made', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    const unit = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'Rotation' })) as { id: string }).id;
    const { id } = await add(`rotate ${marker} today`);
    const promoted = (await call(ops.svc_capture_promote, {
      capture_id: id,
      project_id: 'cap',
      item_type: 'task',
      title: `rotate ${marker}`,
      work_unit_id: unit,
    })) as { item_id: string };
    await call(ops.svc_task_start, { task_id: promoted.item_id });
    const blocked = (await call(ops.svc_task_block, { task_id: promoted.item_id, reason: 'waiting on the vault team' })) as { chain_id: string; decision_id: string };
    const task = { chain_id: blocked.chain_id };
    const decision = ((await call(ops.item_show, { item_id: blocked.decision_id })) as { item: { id: string; chain_id: string; title: string; body: string } }).item;
    expect(decision).toMatchObject({ title: `Blocked: task ${task.chain_id.slice(0, 8)}`, body: 'waiting on the vault team' });
    const links = await svc.store.db.selectFrom('links').select(['link_type', 'to_chain_id']).where('from_chain_id', '=', decision.chain_id).execute();
    expect(links).toEqual([{ link_type: 'blocks', to_chain_id: task.chain_id }]);
    await call(ops.svc_capture_redact, { capture_id: id });
    expect(await itemHits(marker)).toEqual([]);
    expect(await itemHits('Blocked')).toEqual([decision.id]);
    await expectNowhere(marker, id);
  });

  it('redacting a promoted capture "ok" corrupts no word anywhere: "token" stays "token"', async () => {
    const { id } = await add('ok');
    const promoted = (await call(ops.svc_capture_promote, { capture_id: id, project_id: 'cap', title: 'Token rotation' })) as { item_id: string };
    await call(ops.svc_item_upsert, { project_id: 'cap', item_id: promoted.item_id, body: 'ok: the token rotates monthly' });
    const other = (await call(ops.svc_item_upsert, {
      project_id: 'cap',
      item_type: 'knowledge',
      title: 'token looks ok',
      body: 'The broken tokens are not ok; this token is ok.',
    })) as { id: string };
    const otherBefore = await chainOf(other.id);

    await call(ops.svc_capture_redact, { capture_id: id });
    expect(await chainOf(other.id)).toEqual(otherBefore);
    expect((await chainOf(promoted.item_id)).versions.map((v) => [v.title, v.body])).toEqual([
      ['[redacted]', '[redacted]'],
      ['[redacted]', '[redacted]'],
    ]);
    expect(await itemHits('token')).toEqual([other.id]);
    expect(await itemHits('ok')).toEqual([other.id]);
    const { rows } = await sql<{ n: string }>`select count(*)::text as n from items where title || body like '%[redacted]%' and title <> '[redacted]'`.execute(svc.store.db);
    expect(rows[0]?.n).toBe('0');
    for (const table of await publicTables()) {
      const { rows: hits } = await sql<{ row: string }>`select t::text as row from ${sql.table(table)} t where t::text like '%_[redacted]%' escape '!'`.execute(svc.store.db);
      expect(hits.filter((h) => /\w\[redacted\]|\[redacted\]\w/.test(h.row))).toEqual([]);
    }
  });

  it('redacting a capture promoted to a QA check keeps its coverage and targets, so the check stays valid', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    const target = (await call(ops.svc_item_upsert, { project_id: 'cap', item_type: 'knowledge', title: 'Target' })) as { id: string };
    const { id } = await add(`check the ${marker} login`);
    const promoted = (await call(ops.svc_capture_promote, {
      capture_id: id,
      project_id: 'cap',
      item_type: 'qa_check',
      title: 'Login check',
      context: { coverage: 'mixed', target_item_ids: [target.id] },
    })) as { item_id: string };
    await call(ops.svc_capture_redact, { capture_id: id });
    const [version] = (await chainOf(promoted.item_id)).versions;
    expect(version?.context).toEqual({ coverage: 'mixed', target_item_ids: [target.id], target_task_ids: [] });
    // The redacted context still satisfies the qa_check schema: a later edit validates.
    const again = (await call(ops.svc_item_upsert, { project_id: 'cap', item_id: promoted.item_id, title: 'Login check again' })) as { id: string };
    expect(((await call(ops.item_show, { item_id: again.id })) as { item: { title: string } }).item.title).toBe('Login check again');
    await expectNowhere(marker, id);
  });

  it('redacting a capture that was never promoted touches no item', async () => {
    const { id } = await add('ok');
    const item = (await call(ops.svc_item_upsert, { project_id: 'cap', item_type: 'knowledge', title: 'ok', body: 'ok' })) as { id: string };
    const ack = await call(ops.svc_capture_redact, { capture_id: id });
    expect(ack).toEqual({ id, state: 'redacted' });
    expect((await chainOf(item.id)).versions.map((v) => [v.title, v.body])).toEqual([['ok', 'ok']]);
  });

  async function publicTables(): Promise<string[]> {
    const { rows } = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(svc.store.db);
    return rows.map((r) => r.table_name);
  }

  /**
   * No row of any table holds `marker`, generated search vectors included (each row as text), while `id` is
   * still there; on PostgreSQL the whole pg_dump too.
   */
  async function expectNowhere(marker: string, id: string): Promise<void> {
    if (svc.store.url) {
      const { stdout } = await run('pg_dump', ['--data-only', svc.store.url], { maxBuffer: 64 * 1024 * 1024 });
      expect(stdout).toContain(id);
      expect(stdout).not.toContain(marker);
    }
    const tables = await publicTables();
    expect(tables.length).toBeGreaterThan(15);
    let seen = false;
    for (const table of tables) {
      const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(table)} t`.execute(svc.store.db);
      for (const { row } of rows) {
        expect(row).not.toContain(marker);
        seen ||= row.includes(id);
      }
    }
    expect(seen).toBe(true);
  }

  it('promotes through the item path: refused without project_id, searchable, bridged, body "" uses the text', async () => {
    const { id } = await add('Use blue-green deploys for the payment API');
    expect((await refusal(call(ops.svc_capture_promote, unchecked({ capture_id: id, title: 'Deploys' })))).message).toMatch(/^project_id: /);
    const promoted = (await call(ops.svc_capture_promote, {
      capture_id: id,
      project_id: 'cap',
      item_type: 'decision',
      title: 'Blue-green deploys',
      body: '',
    })) as { id: string; state: string; item_id: string };
    expect(promoted.state).toBe('promoted');
    const op = ops.svc_capture_promote;
    expect(op.presentation.kind === 'ack' && op.presentation.render(promoted)).toBe(
      `capture ${id.slice(0, 8)} promoted item ${promoted.item_id.slice(0, 8)}`,
    );
    const hits = (await call(ops.svc_item_search, { project_id: 'cap', query: 'payment' })) as { items: { id: string }[] };
    expect(hits.items.map((h) => h.id)).toEqual([promoted.item_id]);
    const bridge = await svc.store.db.selectFrom('capture_promotions').selectAll().executeTakeFirstOrThrow();
    expect(bridge).toMatchObject({ capture_id: id, item_id: promoted.item_id, promoted_by: actorId });
    const item = ((await call(ops.item_show, { item_id: promoted.item_id })) as { item: { body: string } }).item;
    expect(item.body).toBe('Use blue-green deploys for the payment API');
    expect((await refusal(call(ops.svc_capture_promote, { capture_id: id, project_id: 'cap', title: 'Again' }))).code).toBe('refused_transition');
  });

  it('promotes to research with its source_url, and refuses research without one naming source_url', async () => {
    const { id } = await add('RFC 9110 says 308 keeps the method');
    const missing = await refusal(call(ops.svc_capture_promote, { capture_id: id, project_id: 'cap', item_type: 'research', title: 'Redirects' }));
    expect(missing.code).toBe('invalid_input');
    expect(missing.details.field).toBe('source_url');
    const op = ops.svc_capture_promote;
    expect(Object.keys(op.input.shape)).toContain(missing.details.field);
    const promoted = (await call(ops.svc_capture_promote, {
      capture_id: id,
      project_id: 'cap',
      item_type: 'research',
      title: 'Redirects',
      source_url: 'https://www.rfc-editor.org/rfc/rfc9110',
    })) as { item_id: string };
    const item = ((await call(ops.item_show, { item_id: promoted.item_id })) as { item: { item_type: string; source_url: string } }).item;
    expect(item).toMatchObject({ item_type: 'research', source_url: 'https://www.rfc-editor.org/rfc/rfc9110' });
  });

  it('promotes to a task in a work unit: proposed, after the last task; refused without work_unit_id, naming it', async () => {
    const unit = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'Unit' })) as { id: string }).id;
    await call(ops.svc_task_add, { work_unit_id: unit, title: 'Existing', sort_order: 4 });
    const { id } = await add('We should rotate the signing key');
    const missing = await refusal(call(ops.svc_capture_promote, { capture_id: id, project_id: 'cap', item_type: 'task', title: 'Rotate key' }));
    expect(missing.details.field).toBe('work_unit_id');
    const promoted = (await call(ops.svc_capture_promote, {
      capture_id: id,
      project_id: 'cap',
      item_type: 'task',
      title: 'Rotate key',
      work_unit_id: unit.slice(0, 8),
    })) as { item_id: string };
    const tasks = ((await call(ops.svc_task_list, { work_unit_id: unit })) as { tasks: { id: string; status: string; context: unknown }[] }).tasks;
    expect(tasks.map((t) => [t.status, t.context])).toEqual([
      ['proposed', { sort_order: 4 }],
      ['proposed', { sort_order: 5 }],
    ]);
    expect(tasks[1]!.id).toBe(promoted.item_id);
  });

  it('captures never reach item search until promoted', async () => {
    await add('kumquat logistics');
    const hits = (await call(ops.svc_item_search, { project_id: 'cap', query: 'kumquat' })) as { items: unknown[] };
    expect(hits.items).toEqual([]);
  });

  it('refuses a body actor_id alone as actor_required on every surface, writing nothing; over the default actor it names the author', async () => {
    const other = (await svc.call(ops.actor_add, { email: 'other@example.test' }, { source: 'cli' })) as { id: string };
    const unit = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'Anon' })) as { id: string }).id;
    for (const source of ['test', 'mcp', 'http', 'cli'] as const) {
      for (const [name, attempt] of [
        ['svc_capture_add', () => svc.call(ops.svc_capture_add, { text: 'anonymous', actor_id: other.id }, { source })],
        ['svc_idea_add', () => svc.call(ops.svc_idea_add, { work_unit_id: unit, text: 'anonymous', actor_id: other.id }, { source })],
      ] as const) {
        const error = await refusal(attempt());
        expect(error, `${source} ${name}`).toMatchObject({ code: 'actor_required', details: { field: 'actor' } });
      }
    }
    expect(await svc.store.db.selectFrom('captures').select('id').where('text', '=', 'anonymous').execute()).toEqual([]);
    expect(await svc.store.db.selectFrom('ideas').select('id').where('text', '=', 'anonymous').execute()).toEqual([]);

    const withDefault = svc.sibling({ defaultActorId: actorId });
    const { id } = (await withDefault.call(ops.svc_capture_add, { text: 'x', actor_id: other.id }, { source: 'mcp' })) as { id: string };
    const row = await svc.store.db.selectFrom('captures').select('created_by').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.created_by).toBe(other.id);
    const error = await refusal(withDefault.call(ops.svc_capture_add, { text: 'x', actor_id: '11111111-1111-4111-8111-111111111111' }, { source: 'mcp' }));
    expect(error.code).toBe('unknown_actor');
  });

  it('refuses an actor_id naming another actor than the surface does, on every tool that takes one', async () => {
    const other = (await svc.call(ops.actor_add, { email: 'spoofed@example.test' }, { source: 'cli' })) as { id: string };
    const { id } = await add('mine');
    const unit = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'Spoof' })) as { id: string }).id;
    const attempts: [string, Record<string, unknown>][] = [
      ['svc_capture_add', { text: 'spoof' }],
      ['svc_capture_set_state', { capture_id: id, review_state: 'review' }],
      ['svc_capture_promote', { capture_id: id, project_id: 'cap', title: 'Spoof' }],
      ['svc_idea_add', { work_unit_id: unit, text: 'spoof' }],
    ];
    for (const [name, input] of attempts) {
      const error = await refusal(call(operation(name), unchecked({ ...input, actor_id: other.id })));
      expect(error, name).toMatchObject({ code: 'invalid_input', details: { field: 'actor_id' } });
    }
    expect((await call(ops.svc_capture_set_state, { capture_id: id, review_state: 'review', actor_id: actorId })) as { state: string }).toMatchObject({ state: 'review' });
  });

  it('ideas: newest first; search by project narrowed by work unit, author and time; redact keeps the row, masked', async () => {
    const unitA = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'A' })) as { id: string }).id;
    const unitB = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'B' })) as { id: string }).id;
    const other = (await svc.call(ops.actor_add, { email: 'idea-author@example.test' }, { source: 'cli' })) as { id: string };
    const first = (await call(ops.svc_idea_add, { work_unit_id: unitA, text: 'cache the catalog' })) as { id: string };
    await new Promise((r) => setTimeout(r, 15));
    const { id: secondId } = (await svc.as(other.id)(ops.svc_idea_add, { work_unit_id: unitA, text: 'shard the catalog' })) as {
      id: string;
    };
    await call(ops.svc_idea_add, { work_unit_id: unitB, text: 'catalog in another unit' });

    const listed = (await call(ops.svc_idea_list, { work_unit_id: unitA })) as { ideas: { id: string; created_at: string }[] };
    expect(listed.ideas.map((i) => i.id)).toEqual([secondId, first.id]);
    const second = listed.ideas[0] as { id: string; created_at: string };
    const texts = async (input: Record<string, unknown>) =>
      ((await call(ops.svc_idea_search, { project_id: 'cap', ...input })) as { ideas: { text: string }[] }).ideas.map((i) => i.text);
    expect(await texts({ query: 'catalog' })).toHaveLength(3);
    expect(await texts({ query: 'catalog', work_unit_id: unitA })).toEqual(['shard the catalog', 'cache the catalog']);
    expect(await texts({ author_id: other.id })).toEqual(['shard the catalog']);
    expect(await texts({ work_unit_id: unitA, since: second.created_at })).toEqual(['shard the catalog']);
    expect(await texts({ work_unit_id: unitA, until: second.created_at })).toEqual(['cache the catalog']);

    const ack = (await call(ops.svc_idea_redact, { idea_id: first.id })) as { state: string };
    expect(ack.state).toBe('redacted');
    const after = (await call(ops.svc_idea_list, { work_unit_id: unitA })) as { ideas: { id: string; text: string; redacted: boolean }[] };
    expect(after.ideas).toHaveLength(2);
    expect(after.ideas[1]).toMatchObject({ id: first.id, text: '[redacted]', redacted: true });
    expect(await texts({ query: 'cache' })).toEqual([]);
  });

  it('redacting an idea leaves its words, a token or a number, in no answer and no row', async () => {
    const marker = `zqxmarker${Date.now().toString(36)}`;
    const pin = 900_000_000_000_000 + (Date.now() % 1_000_000_000);
    const unit = ((await call(ops.svc_work_open, { project_id: 'cap', title: 'Vault' })) as { id: string }).id;
    const idea = (await call(ops.svc_idea_add, { work_unit_id: unit, text: `the vault key is ${marker}, pin ${pin}` })) as { id: string };
    await call(ops.svc_idea_redact, { idea_id: idea.id });
    const answers = [
      await call(ops.svc_idea_list, { work_unit_id: unit }),
      await call(ops.svc_idea_search, { project_id: 'cap', query: '' }),
      await call(ops.project_export, { project_id: 'cap' }),
    ];
    for (const answer of answers) expect(JSON.stringify(answer)).not.toMatch(new RegExp(`${marker}|${pin}`));
    for (const query of [marker, String(pin)]) expect((await call(ops.svc_idea_search, { project_id: 'cap', query })) as { ideas: unknown[] }).toMatchObject({ ideas: [] });
    await expectNowhere(marker, idea.id);
    await expectNowhere(String(pin), idea.id);
  });
});
