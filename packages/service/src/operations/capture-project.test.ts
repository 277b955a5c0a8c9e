import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, openTestService, refusal, testBackends, type TestService, unchecked } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';
import { ops } from '../catalog.js';

interface Capture {
  id: string;
  text: string;
  summary: string | null;
  review_state: string;
  project_id: string | null;
}

describe.each(testBackends())('captures filed under a project on $name', (backend) => {
  let call: Call;
  let alpha: string;
  let svc: TestService;

  useTestService(backend, 'alpha', (t) => {
    ({ call, svc } = t);
    alpha = t.seeded.projectId;
  });

  const add = async (text: string, project_id?: string) => (await call(ops.svc_capture_add, { text, ...(project_id ? { project_id } : {}) })) as { id: string; state: string };
  const list = async (input: Record<string, unknown> = {}) => ((await call(ops.svc_capture_list, input)) as { captures: Capture[] }).captures.map((c) => c.id);
  const search = async (query: string, input: Record<string, unknown> = {}) =>
    ((await call(ops.svc_capture_search, { query, ...input })) as { captures: Capture[] }).captures.map((c) => c.id);

  it('capture_show resolves a prefix among the project\'s captures only, and finds no capture of another project', async () => {
    await call(ops.project_create, { slug: 'beta' });
    const mine = await add('mine', 'alpha');
    const theirs = await add('theirs', 'beta');
    // Give both the same first eight characters, as two random ids sometimes have.
    const prefix = 'abcdef01';
    const same = (id: string) => `${prefix}${id.slice(8)}`;
    for (const id of [mine.id, theirs.id]) await svc.store.db.updateTable('captures').set({ id: same(id) }).where('id', '=', id).execute();
    expect((await call(ops.capture_show, { project_id: 'alpha', capture_id: prefix })).id).toBe(same(mine.id));
    expect((await call(ops.capture_show, { project_id: 'beta', capture_id: prefix })).id).toBe(same(theirs.id));
    const foreign = await refusal(call(ops.capture_show, { project_id: 'alpha', capture_id: same(theirs.id) }));
    expect(foreign).toMatchObject({ code: 'not_found', details: { field: 'capture_id' } });
  });

  it('files a capture under a project; list and search filter by it; omitted (or "") means every capture', async () => {
    const beta = (await call(ops.project_create, { slug: 'beta' })) as { id: string };
    const a = await add('kiwi in alpha', 'alpha');
    const b = await add('kiwi in beta', beta.id.slice(0, 8));
    const c = await add('kiwi in the inbox');
    expect(a.state).toBe('inbox');
    const all = (await call(ops.svc_capture_list, {})) as { captures: Capture[] };
    expect(Object.fromEntries(all.captures.map((x) => [x.id, x.project_id]))).toEqual({ [a.id]: alpha, [b.id]: beta.id, [c.id]: null });

    expect(await list({ project_id: 'alpha' })).toEqual([a.id]);
    expect(await list({ project_id: 'beta' })).toEqual([b.id]);
    expect(await list()).toEqual([c.id, b.id, a.id]);
    expect(await list({ project_id: '' })).toEqual([c.id, b.id, a.id]);
    expect(await search('kiwi', { project_id: 'beta' })).toEqual([b.id]);
    expect(await search('', { project_id: alpha })).toEqual([a.id]);
    expect((await search('kiwi')).sort()).toEqual([a.id, b.id, c.id].sort());

    const unknown = await refusal(call(ops.svc_capture_list, { project_id: 'nowhere' }));
    expect(unknown.code).toBe('not_found');
    expect((await refusal(call(ops.svc_capture_search, { query: 'kiwi', project_id: 'nowhere' }))).code).toBe('not_found');
    // A write naming an unknown record in its arguments is invalid input (400), not a missing target (decision 0017).
    expect(await refusal(call(ops.svc_capture_add, { text: 'x', project_id: 'nowhere' }))).toMatchObject({ code: 'invalid_input', details: { field: 'project_id' } });
  });

  it('lists and shows the shared inbox alone: inbox_list and inbox_show find no capture filed under a project', async () => {
    const beta = (await call(ops.project_create, { slug: 'beta' })) as { id: string };
    const filed = await add('pear filed', 'alpha');
    const loose = await add('pear loose');
    const gone = await add('pear promoted');
    const dropped = await add('pear dropped');
    await call(ops.svc_capture_promote, { capture_id: gone.id, project_id: 'beta', title: 'Pear' });
    await call(ops.svc_capture_discard, { capture_id: dropped.id });
    type Listed = { captures: (Capture & { promoted_project_id: string | null })[]; truncated: boolean };
    const inbox = async (input: Record<string, unknown> = {}) => (await call(ops.inbox_list, input)) as Listed;
    // svc_capture_list's defaults: discarded hidden unless asked for; a promoted capture names its project.
    expect((await inbox()).captures.map((c) => [c.id, c.promoted_project_id])).toEqual([
      [gone.id, beta.id],
      [loose.id, null],
    ]);
    expect((await inbox({ include_discarded: true })).captures.map((c) => c.id)).toEqual([dropped.id, gone.id, loose.id]);
    expect((await inbox({ review_state: 'promoted' })).captures.map((c) => c.id)).toEqual([gone.id]);
    expect(await inbox({ limit: 1 })).toMatchObject({ captures: [{ id: gone.id }], truncated: true });

    expect(await call(ops.inbox_show, { capture_id: loose.id.slice(0, 8) })).toMatchObject({ id: loose.id, text: 'pear loose', project_id: null });
    expect(await refusal(call(ops.inbox_show, { capture_id: filed.id }))).toMatchObject({ code: 'not_found', details: { field: 'capture_id' } });
    // And the other way: capture_show finds no capture of the shared inbox in a project.
    expect((await refusal(call(ops.capture_show, { project_id: 'alpha', capture_id: loose.id }))).code).toBe('not_found');
  });

  it('keeps the other filters working inside a project: discarded and redacted stay hidden, redacted stays masked', async () => {
    const kept = await add('plum kept', 'alpha');
    const dropped = await add('plum dropped', 'alpha');
    const secret = await add('plum secret', 'alpha');
    await add('plum elsewhere');
    await call(ops.svc_capture_discard, { capture_id: dropped.id });
    await call(ops.svc_capture_redact, { capture_id: secret.id });
    expect(await list({ project_id: 'alpha' })).toEqual([kept.id]);
    expect(await search('plum', { project_id: 'alpha' })).toEqual([kept.id]);
    const masked = ((await call(ops.svc_capture_list, { project_id: 'alpha', include_redacted: true })) as { captures: Capture[] }).captures;
    expect(masked.find((x) => x.id === secret.id)).toMatchObject({ text: '[redacted]', project_id: alpha });
  });

  it('refuses to promote a capture filed under one project into another, naming project_id; its own project or the inbox is fine', async () => {
    await call(ops.project_create, { slug: 'beta' });
    const filed = await add('belongs to beta', 'beta');
    const error = await refusal(call(ops.svc_capture_promote, { capture_id: filed.id, project_id: 'alpha', title: 'Stolen' }));
    expect(error.code).toBe('invalid_input');
    expect(error.details.field).toBe('project_id');
    expect(error.message).toMatch(/^project_id: capture .* is filed under another project/);
    expect(((await call(ops.svc_capture_list, { project_id: 'beta' })) as { captures: Capture[] }).captures[0]).toMatchObject({ review_state: 'inbox' });
    expect((await call(ops.svc_item_search, { project_id: 'alpha', query: 'Stolen' })) as { items: unknown[] }).toMatchObject({ items: [] });

    expect(await call(ops.svc_capture_promote, { capture_id: filed.id, project_id: 'beta', title: 'Kept' })).toMatchObject({ state: 'promoted' });
    const loose = await add('from the inbox');
    expect(await call(ops.svc_capture_promote, { capture_id: loose.id, project_id: 'alpha', title: 'Picked' })).toMatchObject({ state: 'promoted' });
  });
});

describe.each(testBackends())('export and import carry captures on $name', (backend) => {
  let svc: TestService;
  let projectFile: string[];
  let inboxFile: string[];
  const ids: Record<string, string> = {};

  const cli = { source: 'cli' as const };
  const exportOf = async (project: string) => ((await svc.call(ops.project_export, { project_id: project }, cli)) as { lines: string[] }).lines;
  const exportInbox = async () => ((await svc.call(ops.inbox_export, {}, cli)) as { lines: string[] }).lines;
  const importing = (lines: string[], as_slug?: string) => svc.call(ops.project_import, { lines, ...(as_slug ? { as_slug } : {}) }, cli);
  const records = (lines: string[], type: string) => lines.slice(1, -1).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.type === type);
  const lineOf = (lines: string[], id: string) => lines.findIndex((l) => l.startsWith('{"type":"capture",') && l.includes(`"id":"${id}"`)) + 1;
  const edited = (lines: string[], n: number, edit: (r: Record<string, unknown>) => void) => {
    const copy = [...lines];
    const r = JSON.parse(copy[n - 1] as string) as Record<string, unknown>;
    edit(r);
    copy[n - 1] = JSON.stringify(r);
    return copy;
  };
  const captureCount = async () => Number((await svc.store.db.selectFrom('captures').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    const { actorId } = await svc.seed('proj');
    const call = svc.as(actorId);
    await call(ops.project_create, { slug: 'other' });
    const add = async (name: string, text: string, project_id?: string) => {
      ids[name] = ((await call(ops.svc_capture_add, { text, ...(project_id ? { project_id } : {}) })) as { id: string }).id;
    };
    await add('filed', 'filed under proj', 'proj');
    await call(ops.svc_capture_annotate, unchecked({ capture_id: ids.filed, summary: 'a summary', signals: { n: 1 } }));
    await add('filedRedacted', 'filed swordfish', 'proj');
    await call(ops.svc_capture_redact, unchecked({ capture_id: ids.filedRedacted }));
    await add('filedPromoted', 'filed and promoted', 'proj');
    await call(ops.svc_capture_promote, unchecked({ capture_id: ids.filedPromoted, project_id: 'proj', title: 'Filed and promoted' }));
    await add('promoted', 'promoted from the inbox');
    await call(ops.svc_capture_promote, unchecked({ capture_id: ids.promoted, project_id: 'proj', title: 'From the inbox' }));
    await add('promotedRedacted', 'promoted swordfish');
    await call(ops.svc_capture_promote, unchecked({ capture_id: ids.promotedRedacted, project_id: 'proj', title: 'Swordfish item' }));
    await call(ops.svc_capture_redact, unchecked({ capture_id: ids.promotedRedacted }));
    await add('inbox', 'left in the inbox');
    await add('inboxRedacted', 'inbox swordfish');
    await call(ops.svc_capture_redact, unchecked({ capture_id: ids.inboxRedacted }));
    await add('others', 'filed under other', 'other');
    projectFile = await exportOf('proj');
    inboxFile = await exportInbox();
  }, 120_000);
  afterAll(async () => {
    await svc.close();
  });

  it("a project's export carries the captures filed under it or promoted into it, masked when redacted, with their promotions", () => {
    const captures = records(projectFile, 'capture');
    expect(captures.map((c) => c.id).sort()).toEqual([ids.filed, ids.filedRedacted, ids.filedPromoted, ids.promoted, ids.promotedRedacted].sort());
    expect(records(projectFile, 'capture_promotion').map((p) => p.capture_id).sort()).toEqual([ids.filedPromoted, ids.promoted, ids.promotedRedacted].sort());
    expect(captures.find((c) => c.id === ids.filedRedacted)).toMatchObject({ text: '[redacted]', summary: '[redacted]', review_state: 'redacted' });
    expect(captures.find((c) => c.id === ids.filed)).toMatchObject({ summary: 'a summary', signals: { n: 1 } });
    expect(projectFile.join('\n')).not.toContain('swordfish');
  });

  it('the inbox export carries only captures of no project that were never promoted, masked when redacted', () => {
    expect(JSON.parse(inboxFile[0] as string)).toMatchObject({ format: 'svc-export', inbox: true });
    expect(JSON.parse(inboxFile[0] as string)).not.toHaveProperty('project');
    expect(records(inboxFile, 'capture').map((c) => c.id).sort()).toEqual([ids.inbox, ids.inboxRedacted].sort());
    expect(records(inboxFile, 'actor')).toHaveLength(1);
    expect(new Set(records(inboxFile, 'capture').concat(records(inboxFile, 'actor')).map((r) => r.type))).toEqual(new Set(['capture', 'actor']));
    expect(inboxFile.join('\n')).not.toContain('swordfish');
  });

  it('round-trips both files byte for byte into an empty database; redacted captures stay masked', async () => {
    await svc.store.reset();
    await importing(projectFile);
    const restored = (await importing(inboxFile)) as { inbox: boolean; counts: Record<string, number> };
    expect(restored).toMatchObject({ inbox: true, counts: { capture: 2, actor: 1 } });
    expect(await exportOf('proj')).toEqual(projectFile);
    expect(await exportInbox()).toEqual(inboxFile);
    const masked = ((await svc.call(ops.svc_capture_list, { include_redacted: true, limit: 200 }, cli)) as { captures: Capture[] }).captures;
    expect(masked.filter((c) => c.review_state === 'redacted').map((c) => c.text)).toEqual(['[redacted]', '[redacted]', '[redacted]']);
    const filed = ((await svc.call(ops.svc_capture_list, { project_id: 'proj', include_redacted: true }, cli)) as { captures: Capture[] }).captures;
    expect(filed.map((c) => c.id).sort()).toEqual([ids.filed, ids.filedRedacted, ids.filedPromoted].sort());
  });

  it('imports a project with fresh ids: its captures are filed under the copy', async () => {
    const copy = (await importing(projectFile, 'proj-copy')) as { project_id: string };
    const filed = ((await svc.call(ops.svc_capture_list, { project_id: 'proj-copy', include_redacted: true }, cli)) as { captures: Capture[] }).captures;
    expect(filed).toHaveLength(3);
    expect(filed.every((c) => c.project_id === copy.project_id && !Object.values(ids).includes(c.id))).toBe(true);
  });

  it('refuses an inbox file whose capture ids exist here, naming the line, and writes nothing', async () => {
    const before = await captureCount();
    const error = await refusal(importing(inboxFile));
    expect(error.code).toBe('conflict');
    expect(error.message).toMatch(/^line \d+: a capture with id .* already exists in this database/);
    expect(error.details).toMatchObject({ field: 'file', record_field: 'id' });
    expect(await captureCount()).toBe(before);
  });

  it("refuses a stranger's inbox file that unmasks a redacted capture, files a capture under a project, or carries other records", async () => {
    await svc.store.reset();
    const before = await captureCount();
    const r = lineOf(inboxFile, ids.inboxRedacted as string);
    const unmasked = await refusal(importing(edited(inboxFile, r, (x) => { x.text = 'inbox swordfish'; })));
    expect(unmasked).toMatchObject({ code: 'invalid_input', details: { line: r, record_field: 'text' } });
    expect(unmasked.message).toMatch(/redacted text never travels/);
    const p = lineOf(inboxFile, ids.inbox as string);
    const other = '11111111-1111-4111-8111-111111111111';
    expect((await refusal(importing(edited(inboxFile, p, (x) => { x.project_id = other; })))).details).toMatchObject({ line: p, record_field: 'project_id' });
    expect((await refusal(importing(edited(inboxFile, p, (x) => { x.review_state = 'promoted'; })))).details).toMatchObject({ line: p, record_field: 'review_state' });
    expect((await refusal(importing(edited(inboxFile, p, (x) => { x.created_by = other; })))).details).toMatchObject({ line: p, record_field: 'created_by' });
    const withProject = [inboxFile[0] as string, projectFile[1] as string, ...inboxFile.slice(1, -1), JSON.stringify({ type: 'end', records: inboxFile.length - 1 })];
    expect((await refusal(importing(withProject))).details).toMatchObject({ line: 2, record_field: 'type' });
    expect((await refusal(importing(inboxFile, 'copy'))).details).toMatchObject({ field: 'as_slug' });
    expect(await captureCount()).toBe(before);
  });

  it("refuses a project file that unmasks a redacted capture, files a capture under another project, or carries a stray inbox capture", async () => {
    const r = lineOf(projectFile, ids.promotedRedacted as string);
    const unmasked = await refusal(importing(edited(projectFile, r, (x) => { x.summary = 'promoted swordfish'; }), 'crafted'));
    expect(unmasked).toMatchObject({ code: 'invalid_input', details: { line: r, record_field: 'summary' } });
    const f = lineOf(projectFile, ids.filed as string);
    const elsewhere = await refusal(importing(edited(projectFile, f, (x) => { x.project_id = '11111111-1111-4111-8111-111111111111'; }), 'crafted'));
    expect(elsewhere).toMatchObject({ code: 'invalid_input', details: { line: f, record_field: 'project_id' } });
    expect((await refusal(importing(edited(projectFile, f, (x) => { x.project_id = null; }), 'crafted'))).details).toMatchObject({ line: f, record_field: 'project_id' });
    expect((await refusal(importing(edited(projectFile, f, (x) => { x.review_state = 'promoted'; }), 'crafted'))).details).toMatchObject({ line: f, record_field: 'review_state' });
    expect(await captureCount()).toBe(0);
  });
});
