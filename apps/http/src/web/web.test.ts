import { type AnyOperation, type InputOf, type OutputOf, ops, type Service } from '@svc/service';
import { openTestService, type TestService, testBackends } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../app.js';
import { type RunningHttpServer, startHttpServer } from '../server.js';
import { DIFF_LIMITS } from './diff.js';
import { MARKDOWN_LIMIT } from './markdown.js';
import { send } from '../testing/index.js';
import { CSS_PATH, JS_PATH } from './static.js';

/** The web view's guards, in process (the browser suite drives the pages themselves). */
describe.each(testBackends())('web view guards on $name', (backend) => {
  let svc: TestService;
  let withDefault: Service;
  let actorId: string;
  let slug: string;
  let captureId: string;

  beforeAll(async () => {
    svc = await openTestService(backend);
    ({ actorId, slug } = await svc.seed('webg'));
    captureId = ((await svc.as(actorId)(ops.svc_capture_add, { project_id: slug, text: 'a capture' })) as { id: string }).id;
    withDefault = svc.sibling({ defaultActorId: actorId });
  });
  afterAll(async () => {
    await svc.close();
  });

  const summary = async () =>
    ((await svc.call(ops.svc_capture_list, { project_id: slug }, { source: 'cli' })) as { captures: { id: string; summary: string | null }[] }).captures.find(
      (c) => c.id === captureId,
    )?.summary;

  /** Open the inbox as a browser would: the token is in the form and in the cookie. */
  async function session(app: ReturnType<typeof createHttpApp>, headers: Record<string, string> = {}) {
    const page = await app.request(`/p/${slug}/inbox`, { headers });
    const html = await page.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    const cookie = page.headers.get('set-cookie')?.split(';', 1)[0];
    return { page, html, token, cookie };
  }

  const post = (app: ReturnType<typeof createHttpApp>, path: string, headers: Record<string, string>, body: string) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

  it('serves pages with a strict Content-Security-Policy and assets named by their hash, cached for a year', async () => {
    const app = createHttpApp(withDefault);
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\sstyle=/);
    for (const path of [CSS_PATH, JS_PATH]) {
      const asset = await app.request(path);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await app.request('/static/000000000000/app.js')).status).toBe(404);
  });

  it('without X-Actor or SVC_DEFAULT_ACTOR_ID says how to set one and offers no write form', async () => {
    const { page, html } = await session(createHttpApp(svc));
    expect(page.status).toBe(200);
    expect(html).toContain('read-only');
    expect(html).toContain('X-Actor');
    expect(html).toContain('SVC_DEFAULT_ACTOR_ID');
    expect(html).not.toContain('method="post"');
    // With the header set by a proxy, the forms are there.
    expect((await session(createHttpApp(svc), { 'x-actor': actorId })).html).toContain('method="post"');
  });

  it('runs a same-origin form post with the token, attributed to the default actor', async () => {
    const app = createHttpApp(withDefault);
    const { token, cookie } = await session(app);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const answer = await post(app, `/p/${slug}/inbox/${captureId}/annotate`, { cookie: cookie!, origin: 'http://localhost' }, `_csrf=${token}&summary=Kept`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/p/${slug}/inbox?done=annotated`);
    expect(await summary()).toBe('Kept');
  });

  it('refuses a form post without the token, with another token, or from another origin, and writes nothing', async () => {
    const app = createHttpApp(withDefault);
    const { token, cookie } = await session(app);
    const path = `/p/${slug}/inbox/${captureId}/annotate`;
    const before = await summary();
    const refusals = [
      await post(app, path, { cookie: cookie!, origin: 'http://localhost' }, 'summary=Forged'),
      await post(app, path, { cookie: cookie!, origin: 'http://localhost' }, `_csrf=${'x'.repeat(43)}&summary=Forged`),
      await post(app, path, { origin: 'http://localhost' }, `_csrf=${token}&summary=Forged`),
      // Same host name, another port: another origin (and the token alone does not make it ours).
      await post(app, path, { cookie: cookie!, origin: 'http://localhost:8081' }, `_csrf=${token}&summary=Forged`),
      await post(app, path, { cookie: cookie!, 'sec-fetch-site': 'cross-site' }, `_csrf=${token}&summary=Forged`),
      // Neither Origin nor Sec-Fetch-Site: not provably same-origin.
      await post(app, path, { cookie: cookie! }, `_csrf=${token}&summary=Forged`),
    ];
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(await summary()).toBe(before);
    // Sec-Fetch-Site: same-origin is enough without Origin.
    const ok = await post(app, path, { cookie: cookie!, 'sec-fetch-site': 'same-origin' }, `_csrf=${token}&summary=Fine`);
    expect(ok.status).toBe(303);
    expect(await summary()).toBe('Fine');
  });

  it('keeps the form exception to the web paths and the form media type: REST still answers 415, a foreign Host 403', async () => {
    const app = createHttpApp(withDefault);
    const { token, cookie } = await session(app);
    const rest = await post(app, '/captures', { cookie: cookie!, origin: 'http://localhost' }, `_csrf=${token}&text=forged`);
    expect(rest.status).toBe(415);
    const json = await app.request(`/p/${slug}/inbox/${captureId}/discard`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: cookie!, origin: 'http://localhost' },
      body: JSON.stringify({ _csrf: token }),
    });
    expect(json.status).toBe(415);
    const plain = await app.request(`/p/${slug}/inbox/${captureId}/discard`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie: cookie!, origin: 'http://localhost' },
      body: `_csrf=${token}`,
    });
    expect(plain.status).toBe(415);
    expect((await app.request('/', { headers: { host: 'attacker.example' } })).status).toBe(403);
  });

  it('answers a write without any actor with a page saying how to name one', async () => {
    const app = createHttpApp(svc);
    // A read-only page has no form; the token from a page opened with X-Actor, the post without it.
    const { token, cookie } = await session(app, { 'x-actor': actorId });
    const answer = await post(app, `/p/${slug}/inbox/${captureId}/discard`, { cookie: cookie!, origin: 'http://localhost' }, `_csrf=${token}`);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('X-Actor');
  });

  it('answers an unknown project or item with a 404 page, and bad search syntax on the search page', async () => {
    const app = createHttpApp(withDefault);
    const missing = await app.request('/p/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await app.request(`/p/${slug}/items/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    const long = await app.request(`/p/${slug}/search?q=${'a '.repeat(2000)}`);
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('role="alert"');
    // An unknown type is named as the form names it (a newcomer read `item_types[0]` as a field they had not filled).
    const type = await app.request(`/p/${slug}/search?q=pool&type=bogus`);
    expect(type.status).toBe(400);
    const html = await type.text();
    expect(html).toContain('type: unknown item type');
    expect(html).not.toContain('item_types[0]');
  });

  it('shows near misses, naming the words each lacks, when no item holds every word', async () => {
    const app = createHttpApp(withDefault);
    await svc.as(actorId)(ops.svc_item_upsert, { project_id: slug, title: 'Autovacuum tuning', body: 'Thresholds for autovacuum on big tables.' });
    const page = await app.request(`/p/${slug}/search?q=${encodeURIComponent('autovacuum zebra')}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('0 results');
    expect(html).toContain('Near misses');
    const near = html.slice(html.indexOf('id="near-misses"'));
    expect(near).toContain('Autovacuum tuning');
    expect(near).toContain('lacks: zebra');
  });
});

/** The web view over a listening server and real HTTP requests: the outsider review's defects, each kept as a test. */
describe.each(testBackends())('web view over a listening server on $name', (backend) => {
  let svc: TestService;
  let server: RunningHttpServer;
  let readOnly: RunningHttpServer;
  let small: RunningHttpServer;
  let actorId: string;
  let slug: string;
  let other: string;

  beforeAll(async () => {
    svc = await openTestService(backend);
    ({ actorId, slug } = await svc.seed('weba'));
    ({ slug: other } = await svc.seed('webb'));
    // close() of a server closes its service: each server has a service of its own over the shared store.
    server = await startHttpServer(svc.sibling({ defaultActorId: actorId }), { host: '127.0.0.1', port: 0 });
    readOnly = await startHttpServer(svc.sibling(), { host: '127.0.0.1', port: 0 });
    // A body limit of 64 KiB: an over-limit body is sent whole before the answer (2 MiB races the early close).
    small = await startHttpServer(svc.sibling({ defaultActorId: actorId }), { host: '127.0.0.1', port: 0, maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await server?.close();
    await readOnly?.close();
    await small?.close();
    await svc.close();
  });

  const as = <Op extends AnyOperation>(op: Op, input: InputOf<Op>) => svc.call(op, input, { source: 'test', actorId }) as Promise<OutputOf<Op>>;
  const get = (path: string, base = server.url) => fetch(base + path, { redirect: 'manual' });

  /** Open a page as a browser would, and keep its form token and cookie for the posts. */
  async function session(path: string) {
    const page = await get(path);
    const html = await page.text();
    const cookie = page.headers.get('set-cookie')?.split(';', 1)[0] ?? '';
    // The token a form carries is the cookie's value (double submit); a page without forms still sets it.
    return { html, token: cookie.slice(cookie.indexOf('=') + 1), cookie };
  }
  async function post(path: string, fields: Record<string, string>, base = server.url) {
    const { token, cookie } = await session(`/p/${slug}/inbox`);
    return fetch(base + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: base },
      body: new URLSearchParams({ _csrf: token, ...fields }).toString(),
    });
  }
  const capture = async (id: string) => (await as(ops.capture_show, { project_id: other, capture_id: id })) as { review_state: string; summary: string | null };

  it("refuses a form posted by another local app's page (another port, name or scheme), token and cookie in hand", async () => {
    const id = (await as(ops.svc_capture_add, { project_id: slug, text: 'Triage me' })).id;
    const { token, cookie } = await session(`/p/${slug}/inbox`);
    const port = new URL(server.url).port;
    // The browser addressed svc as localhost:<port>; cookies are not kept apart by port, so a page of
    // http://localhost:3000 can hold the token too: only the origin tells the two apart.
    const annotate = (headers: Record<string, string>, summary: string) =>
      send(server.url, 'POST', `/p/${slug}/inbox/${id}/annotate`, {
        host: `localhost:${port}`,
        'content-type': 'application/x-www-form-urlencoded',
        cookie,
        ...headers,
      }, new URLSearchParams({ _csrf: token, summary }).toString());
    for (const [origin, site] of [
      ['http://localhost:3000', 'same-site'],
      [`http://127.0.0.1:${port}`, 'cross-site'],
      [`https://localhost:${port}`, 'cross-site'],
    ] as const) {
      const refused = await annotate({ origin, 'sec-fetch-site': site }, 'Forged');
      expect({ origin, status: refused.status }).toEqual({ origin, status: 403 });
    }
    expect((await as(ops.capture_show, { project_id: slug, capture_id: id })).summary).toBeNull();
    // Its own page, opened as the README says (localhost or 127.0.0.1, the port svc listens on): accepted.
    expect((await annotate({ origin: `http://localhost:${port}`, 'sec-fetch-site': 'same-origin' }, 'Kept')).status).toBe(303);
    const direct = await post(`/p/${slug}/inbox/${id}/annotate`, { summary: 'Kept again' });
    expect(direct.status).toBe(303);
    expect((await as(ops.capture_show, { project_id: slug, capture_id: id })).summary).toBe('Kept again');
  });

  it("answers an inbox action on another project's capture with a 404 page and leaves the capture alone", async () => {
    const foreign = (await as(ops.svc_capture_add, { project_id: other, text: 'filed under the other project' })).id;
    const attempts: [string, Record<string, string>][] = [
      ['annotate', { summary: 'Hijacked' }],
      ['state', { review_state: 'review' }],
      ['promote', { title: 'Hijacked', item_type: 'knowledge', body: '' }],
      ['discard', {}],
      ['redact', {}],
    ];
    for (const [verb, fields] of attempts) {
      const answer = await post(`/p/${slug}/inbox/${foreign}/${verb}`, fields);
      expect({ verb, status: answer.status }).toEqual({ verb, status: 404 });
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await answer.text()).toContain('Not found');
    }
    expect(await capture(foreign)).toMatchObject({ review_state: 'inbox', summary: null });
    const confirm = await get(`/p/${slug}/inbox/${foreign}/redact`);
    expect(confirm.status).toBe(404);
    // In its own project the same capture is found.
    expect((await get(`/p/${other}/inbox/${foreign}/redact`)).status).toBe(200);
  });

  it('lists the shared inbox (captures of no project) on a page of its own, linked from the projects page, and triages it there', async () => {
    const loose = (await as(ops.svc_capture_add, { text: 'Shared note: rotate the signing keys yearly.' })).id;
    const filed = (await as(ops.svc_capture_add, { project_id: other, text: 'Filed note: only for the other project.' })).id;
    expect(await (await get('/')).text()).toContain('<a href="/inbox">Shared inbox</a>');
    const page = await (await get('/inbox')).text();
    expect(page).toContain('Shared note: rotate the signing keys yearly.');
    expect(page).not.toContain('Filed note');
    // It is in no project's inbox.
    expect(await (await get(`/p/${slug}/inbox`)).text()).not.toContain('Shared note');

    // The same triage as a project's inbox: annotate, set state, and the redact confirmation.
    const annotated = await post(`/inbox/${loose}/annotate`, { summary: 'Key rotation', sensitivity_hint: 'internal' });
    expect({ status: annotated.status, location: annotated.headers.get('location') }).toEqual({ status: 303, location: '/inbox?done=annotated' });
    const moved = await post(`/inbox/${loose}/state`, { review_state: 'review' });
    expect(moved.headers.get('location')).toBe('/inbox?done=state');
    expect(await as(ops.inbox_show, { capture_id: loose })).toMatchObject({ summary: 'Key rotation', sensitivity_hint: 'internal', review_state: 'review' });
    expect(await (await get('/inbox?state=review')).text()).toContain('Shared note: rotate the signing keys yearly.');
    const confirm = await get(`/inbox/${loose}/redact`);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain(`action="/inbox/${loose}/redact"`);

    // A capture filed under a project is not the shared inbox's: 404, and left alone.
    expect((await post(`/inbox/${filed}/annotate`, { summary: 'Hijacked' })).status).toBe(404);
    expect((await get(`/inbox/${filed}/redact`)).status).toBe(404);
    expect(await capture(filed)).toMatchObject({ summary: null });
    // The form guard covers these posts too: no token, no write.
    const forged = await fetch(`${server.url}/inbox/${loose}/discard`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: '',
    });
    expect(forged.status).toBe(403);

    // Promoting asks for the project: the item is made there, and the capture links to it.
    const form = await (await get('/inbox?state=review')).text();
    expect(form).toMatch(new RegExp(`<select id="proj-${loose}" name="project_id" required=""`));
    const promoted = await post(`/inbox/${loose}/promote`, { project_id: slug, title: 'Rotate signing keys yearly', item_type: 'policy', body: '' });
    expect(promoted.status).toBe(303);
    const location = promoted.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^/p/${slug}/items/[0-9a-f-]+\\?done=promoted$`));
    const itemId = /\/items\/([^?]+)/.exec(location)?.[1] ?? '';
    expect((await as(ops.item_show, { project_id: slug, item_id: itemId })).item).toMatchObject({ item_type: 'policy', title: 'Rotate signing keys yearly' });
    expect(await (await get('/inbox?state=promoted')).text()).toContain(`Promoted to <a href="/p/${slug}/items/${itemId}">an item</a>`);
  });

  it('promotes from the shared inbox only into a project the form names, naming project_id otherwise', async () => {
    const loose = (await as(ops.svc_capture_add, { text: 'Shared note without a project chosen.' })).id;
    for (const project_id of ['', 'no-such-project']) {
      const refused = await post(`/inbox/${loose}/promote`, { project_id, title: 'Orphan', item_type: 'knowledge', body: '' });
      const html = await refused.text();
      expect({ project_id, status: refused.status, names: /role="alert">project_id: /.test(html) }).toEqual({ project_id, status: 400, names: true });
    }
    expect(await as(ops.inbox_show, { capture_id: loose })).toMatchObject({ review_state: 'inbox' });
  });

  it('promotes a capture to research with its source_url, and names source_url when it is missing', async () => {
    const id = (await as(ops.svc_capture_add, { project_id: slug, text: 'PG 17 ships incremental backups.' })).id;
    const page = await (await get(`/p/${slug}/inbox`)).text();
    expect(page).toMatch(/<input[^>]*type="url"[^>]*name="source_url"/);
    const missing = await post(`/p/${slug}/inbox/${id}/promote`, { title: 'PG 17 backups', item_type: 'research', body: '', source_url: '' });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await missing.text()).toContain('source_url: research items');
    const answer = await post(`/p/${slug}/inbox/${id}/promote`, {
      title: 'PG 17 backups',
      item_type: 'research',
      body: '',
      source_url: 'https://www.postgresql.org/docs/17/release-17.html',
    });
    expect(answer.status).toBe(303);
    const itemId = decodeURIComponent(/\/items\/([^?]+)/.exec(answer.headers.get('location') ?? '')?.[1] ?? '');
    const shown = await as(ops.item_show, { project_id: slug, item_id: itemId });
    expect(shown.item).toMatchObject({ item_type: 'research', source_url: 'https://www.postgresql.org/docs/17/release-17.html' });
  });

  it('lists every QA check targeting an item with its status, and marks the stale one', async () => {
    const item = await as(ops.svc_item_upsert, { project_id: slug, title: 'Invoices in UTC', body: 'All invoice times are UTC.' });
    await as(ops.svc_qa_add, { project_id: slug, title: 'QA pending one', target_item_ids: [item.id] });
    const failed = await as(ops.svc_qa_add, { project_id: slug, title: 'QA failed one', target_item_ids: [item.id] });
    const stale = await as(ops.svc_qa_add, { project_id: slug, title: 'QA passed then stale', target_item_ids: [item.id] });
    await as(ops.svc_qa_fail, { qa_id: failed.id });
    await as(ops.svc_qa_pass, { qa_id: stale.id });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const v2 = await as(ops.svc_item_upsert, { project_id: slug, item_id: item.id, body: 'All invoice times are UTC, stored as timestamptz.' });
    const fresh = await as(ops.svc_qa_add, { project_id: slug, title: 'QA passed and fresh', target_item_ids: [v2.id] });
    await as(ops.svc_qa_pass, { qa_id: fresh.id });
    const html = await (await get(`/p/${slug}/items/${v2.id}`)).text();
    const section = html.slice(html.indexOf('id="qa-h"'), html.indexOf('</section>', html.indexOf('id="qa-h"')));
    const rows = [...section.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
    expect(rows).toEqual([
      'QA pending one pending',
      'QA failed one failed',
      'QA passed then stale passed stale: this item changed after the check passed',
      'QA passed and fresh passed not stale',
    ]);
  });

  it('shows the work board truthfully: the empty wording, the cut list of units and the task in progress of each unit', async () => {
    const { slug: empty } = await svc.seed('webw0');
    const none = await (await get(`/p/${empty}/work`)).text();
    expect(none).toContain('No work units in this project yet');
    expect(none).not.toContain('No open work units');
    const { slug: busy } = await svc.seed('webw1');
    const started: string[] = [];
    for (let i = 1; i <= 6; i++) {
      const unit = await as(ops.svc_work_open, { project_id: busy, title: `Unit ${i}` });
      const task = await as(ops.svc_task_add, { work_unit_id: unit.id, title: `Task of unit ${i}` });
      await as(ops.svc_task_add, { work_unit_id: unit.id, title: `Waiting task of unit ${i}` });
      await as(ops.svc_task_start, { task_id: task.id });
      started.push(`Task of unit ${i}`);
    }
    const html = await (await get(`/p/${busy}/work`)).text();
    // svc_work_resume lists 5 units and says on the last one that more matched.
    expect(html).toContain('id="work-cut"');
    const inProgress = [...html.matchAll(/<p class="in-progress">(.*?)<\/p>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim());
    expect(inProgress).toHaveLength(5);
    for (const line of inProgress) expect(started.map((t) => `In progress: ${t}`)).toContain(line);
    const filtered = await (await get(`/p/${busy}/work?keyword=${encodeURIComponent('no such unit')}`)).text();
    expect(filtered).toContain('No work unit has “no such unit” in its title.');
    expect(filtered).not.toContain('id="work-cut"');
  });

  it("says on a work unit that its tasks, or its QA checks, were cut only once the board's 200 of each are passed", async () => {
    const { slug: full } = await svc.seed('webw2');
    const unit = await as(ops.svc_work_open, { project_id: full, title: 'Migration to the new ledger' });
    // svc_work_resume lists at most 200 tasks and 200 checks in all: exactly 200 of each is the whole board.
    for (let i = 1; i <= 200; i++) {
      await as(ops.svc_task_add, { work_unit_id: unit.id, title: `Ledger step ${i}` });
      await as(ops.svc_qa_add, { project_id: full, title: `Ledger check ${i}`, work_unit_id: unit.id });
    }
    const TASKS_CUT = 'Not every task of this work unit is shown';
    const CHECKS_CUT = 'Not every QA check of this work unit is shown';
    const section = async () => {
      const html = await (await get(`/p/${full}/work`)).text();
      const start = html.indexOf(`id="wu-${unit.id}"`);
      expect(start).toBeGreaterThan(-1);
      return html.slice(start);
    };
    const whole = await section();
    expect(whole.split('Ledger step ').length - 1).toBe(200);
    expect(whole.split('Ledger check ').length - 1).toBe(200);
    expect(whole).not.toContain(TASKS_CUT);
    expect(whole).not.toContain(CHECKS_CUT);

    const last = await as(ops.svc_task_add, { work_unit_id: unit.id, title: 'Ledger step 201' });
    const tasksCut = await section();
    expect(tasksCut.split('Ledger step ').length - 1).toBe(200);
    expect(tasksCut).toContain(TASKS_CUT);
    expect(tasksCut).not.toContain(CHECKS_CUT);

    await as(ops.svc_qa_add, { project_id: full, title: 'Ledger check 201', work_unit_id: unit.id });
    const bothCut = await section();
    expect(bothCut.split('Ledger check ').length - 1).toBe(200);
    expect(bothCut).toContain(TASKS_CUT);
    expect(bothCut).toContain(CHECKS_CUT);
    expect(bothCut).toContain('In progress: <span class="muted">nothing</span>');

    // The task in progress is the one the board's 200 left out: the board still names it, never "nothing".
    await as(ops.svc_task_start, { task_id: last.id });
    const running = await section();
    const inProgress = /<p class="in-progress">(.*?)<\/p>/.exec(running)?.[1]?.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
    expect(inProgress).toBe('In progress: Ledger step 201');
    expect(running).toContain(TASKS_CUT);
  });

  it('says how to set an actor once on every project page when there is none, and offers no write', async () => {
    const item = await as(ops.svc_item_upsert, { project_id: slug, title: 'Read-only probe', body: 'x' });
    await as(ops.svc_capture_add, { project_id: slug, text: 'read-only inbox probe' });
    for (const path of [`/p/${slug}`, `/p/${slug}/items/${item.id}`, `/p/${slug}/work`, `/p/${slug}/inbox`, `/p/${slug}/glossary`, `/p/${slug}/checks`]) {
      const html = await (await get(path, readOnly.url)).text();
      expect({ path, notices: html.split('SVC_DEFAULT_ACTOR_ID').length - 1 }).toEqual({ path, notices: 1 });
      expect(html).toContain('X-Actor');
      expect(html).not.toContain('method="post"');
    }
    // With an actor there is nothing to explain.
    expect(await (await get(`/p/${slug}/work`)).text()).not.toContain('SVC_DEFAULT_ACTOR_ID');
  });

  it('shows the words search marked, a glossary synonym too, as highlighting and never the ** markers', async () => {
    await as(ops.glossary_group_add, { project_id: slug, name: 'Databases' });
    await as(ops.glossary_term_add, { project_id: slug, group: 'Databases', term: 'pg' });
    await as(ops.glossary_term_add, { project_id: slug, group: 'Databases', term: 'postgres' });
    await as(ops.svc_item_upsert, { project_id: slug, title: 'Primary database', body: 'We run postgres in production, latency < 5 ms, **all of it** & more.' });
    const html = await (await get(`/p/${slug}/search?q=pg`)).text();
    const results = html.slice(html.indexOf('id="results-h"'));
    const snippet = /<p class="muted">(.*?)<\/p>/.exec(results.slice(results.indexOf('Primary database')))?.[1] ?? '';
    expect(snippet).toContain('<mark>postgres</mark>');
    expect(snippet).not.toContain('**postgres');
    // The rest is text, escaped, the body's own bold phrase as written.
    expect(snippet).toContain('latency &lt; 5 ms');
    expect(snippet).toContain('**all of it** &amp; more');
  });

  it("shows a body's own **bold** word as text with its asterisks, and marks it only when the query asks for it", async () => {
    await as(ops.svc_item_upsert, { project_id: slug, title: 'Session store', body: 'Keep **Redis** for sessions, with a*b keys.' });
    const snippetOf = async (query: string) => {
      const html = await (await get(`/p/${slug}/search?q=${encodeURIComponent(query)}`)).text();
      const results = html.slice(html.indexOf('id="results-h"'));
      return /<p class="muted">(.*?)<\/p>/.exec(results.slice(results.indexOf('Session store')))?.[1] ?? '';
    };
    const bySessions = await snippetOf('sessions');
    expect(bySessions).toContain('<mark>sessions</mark>');
    expect(bySessions).toContain('Keep **Redis** for');
    expect(bySessions).toContain('a*b keys');
    expect([...bySessions.matchAll(/<mark>(.*?)<\/mark>/g)].map((m) => m[1])).toEqual(['sessions']);
    const byRedis = await snippetOf('redis');
    expect(byRedis).toContain('Keep **<mark>Redis</mark>** for');
    expect([...byRedis.matchAll(/<mark>(.*?)<\/mark>/g)].map((m) => m[1])).toEqual(['Redis']);
  });

  it('compares versions line by line only within bounded work, and says when they are too long or too different', async () => {
    const body = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join('\n');
    const pageOf = async (first: string, second: string) => {
      const v1 = (await as(ops.svc_item_upsert, { project_id: slug, item_type: 'document', title: 'Long', body: first })) as { id: string };
      const v2 = (await as(ops.svc_item_upsert, { project_id: slug, item_id: v1.id, title: 'Long', body: second })) as { id: string };
      return (await get(`/p/${slug}/items/${v2.id}`)).text();
    };
    const notice = 'Too long or too different to compare line by line here';
    // Over the line limit; then within it but with more lines changed than the comparison follows.
    expect(await pageOf(body('a', DIFF_LIMITS.lines + 1), body('b', DIFF_LIMITS.lines + 1))).toContain(notice);
    expect(await pageOf(body('a', DIFF_LIMITS.changedLines + 1), body('b', DIFF_LIMITS.changedLines + 1))).toContain(notice);
    // A comparison within both limits is drawn as before.
    const small = await pageOf(body('a', 50), `${body('a', 49)}\nlast line changed`);
    expect(small).not.toContain(notice);
    expect(small).toContain('<td class="ins">last line changed</td>');
  });

  it('shows a body too long to render as markdown as the text it is', async () => {
    const item = (await as(ops.svc_item_upsert, { project_id: slug, title: 'Brackets', body: `${'['.repeat(MARKDOWN_LIMIT)}<b>x</b>` })) as { id: string };
    const html = await (await get(`/p/${slug}/items/${item.id}`)).text();
    expect(html).toContain(`<pre class="long-text">${'['.repeat(100)}`);
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
  });

  it('answers a web form over the body limit with a page, and REST still with JSON', async () => {
    const id = (await as(ops.svc_capture_add, { project_id: slug, text: 'a capture to annotate at length' })).id;
    const big = await post(`/p/${slug}/inbox/${id}/annotate`, { summary: 'x'.repeat(100 * 1024) }, small.url);
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/^text\/html/);
    expect(big.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await big.text()).toContain('The form is larger than this server takes');
    // REST keeps its JSON answer.
    const rest = await fetch(`${small.url}/captures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(100 * 1024) }),
    });
    expect(rest.status).toBe(413);
    expect(((await rest.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('answers an impact depth out of range with a page naming depth and 1 to 5', async () => {
    const item = await as(ops.svc_item_upsert, { project_id: slug, title: 'Impact probe', body: 'x' });
    for (const depth of ['99999', '0', 'two']) {
      const page = await get(`/p/${slug}/impact/${item.id}?depth=${depth}`);
      expect({ depth, status: page.status }).toEqual({ depth, status: 400 });
      const html = await page.text();
      expect(html).toContain('role="alert"');
      expect(html).toContain(`depth: the impact depth is a whole number from 1 to 5, not &#39;${depth}&#39;.`);
    }
    expect((await get(`/p/${slug}/impact/${item.id}?depth=5&direction=outgoing`)).status).toBe(200);
  });

  it("opens a deleted item's page from the Checks page's dangling-link finding: it says it is deleted and lists its links and checks", async () => {
    const { slug: gone } = await svc.seed('webdel');
    const old = await as(ops.svc_item_upsert, { project_id: gone, title: 'Legacy CSV export', body: 'Exports run nightly.' });
    const user = await as(ops.svc_item_upsert, { project_id: gone, title: 'Finance dashboard', body: 'Reads the export.', links: [{ type: 'depends', target_id: old.id }] });
    await as(ops.svc_qa_add, { project_id: gone, title: 'Export totals match the ledger', target_item_ids: [old.id] });
    await as(ops.item_delete, { project_id: gone, item_id: old.id });

    const checks = await (await get(`/p/${gone}/checks`)).text();
    const finding = checks.slice(checks.indexOf('id="rule-dangling-link"'), checks.indexOf('</section>', checks.indexOf('id="rule-dangling-link"')));
    const hrefs = [...finding.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(hrefs).toContain(`/p/${gone}/items/${old.id}`);
    for (const href of hrefs) expect({ href, status: (await get(href)).status }).toEqual({ href, status: 200 });

    const html = await (await get(`/p/${gone}/items/${old.id}`)).text();
    expect(/<h1>(.*?)<\/h1>/.exec(html)?.[1]).toBe('Legacy CSV export');
    expect(html).toContain('id="deleted"');
    expect(html).toContain(`svc item restore ${old.id}`);
    // No impact graph: svc_impact starts from no deleted item.
    expect(html).not.toContain(`/p/${gone}/impact/`);
    const links = html.slice(html.indexOf('id="links-h"'), html.indexOf('</section>', html.indexOf('id="links-h"')));
    const incoming = links.slice(links.indexOf('In (others'));
    expect(incoming).toContain(`<a href="/p/${gone}/items/${user.id}">item ${user.id.slice(0, 8)}</a>`);
    const qa = html.slice(html.indexOf('id="qa-h"'));
    expect(qa).toContain('Export totals match the ledger');
  });

  it("shows each version's own content behind its link in the version list, saying which is old", async () => {
    const v1 = await as(ops.svc_item_upsert, { project_id: slug, title: 'Backups nightly', body: 'Backups run at 02:00.' });
    const v2 = await as(ops.svc_item_upsert, { project_id: slug, item_id: v1.id, body: 'Backups run at 03:00.' });
    const v3 = await as(ops.svc_item_upsert, { project_id: slug, item_id: v2.id, title: 'Backups twice a day', body: 'Backups run at 03:00 and 15:00.' });
    const page = async (path: string) => {
      const html = await (await get(path)).text();
      return {
        title: /<h1>(.*?)<\/h1>/.exec(html)?.[1],
        body: /<h2 id="body-h">Body<\/h2><div class="prose">([\s\S]*?)<\/div>/.exec(html)?.[1]?.replace(/<[^>]+>/g, '').trim(),
        old: html.includes('id="old-version"'),
        links: [...html.slice(html.indexOf('id="chain-h"')).matchAll(/<li><a href="([^"]+)"[^>]*>v(\d+)<\/a>/g)].map((m) => [m[2], m[1] ?? ''] as const),
      };
    };
    const current = await page(`/p/${slug}/items/${v3.id}`);
    expect(current).toMatchObject({ title: 'Backups twice a day', body: 'Backups run at 03:00 and 15:00.', old: false });
    // Every version link of the page, followed: its own title and body, and the old-version note but on the current one.
    const seen = await Promise.all(current.links.map(async ([v, href]) => [v, await page(href)] as const));
    expect(seen.map(([v, p]) => [v, p.title, p.body, p.old])).toEqual([
      ['1', 'Backups nightly', 'Backups run at 02:00.', true],
      ['2', 'Backups nightly', 'Backups run at 03:00.', true],
      ['3', 'Backups twice a day', 'Backups run at 03:00 and 15:00.', false],
    ]);
    // The first version's id as a prefix names that version too.
    expect(await page(`/p/${slug}/items/${v1.id.slice(0, 13)}`)).toMatchObject({ body: 'Backups run at 02:00.', old: true });
  });

  it('says on the page when a list was cut: the item history, the inbox, the glossary groups and review queue', async () => {
    const { slug: cut } = await svc.seed('webcut');
    const CUTS = ['history-cut', 'inbox-cut', 'groups-cut', 'queue-cut'];
    const notes = async () => {
      const pages = await Promise.all([`/p/${cut}/items/${head}`, `/p/${cut}/inbox`, `/p/${cut}/glossary`].map(async (path) => (await get(path)).text()));
      return CUTS.filter((id) => pages.some((html) => html.includes(`id="${id}"`)));
    };
    const many = (n: number, make: (i: number) => Promise<unknown>) => Promise.all(Array.from({ length: n }, (_, i) => make(i + 1)));
    // 200 of each is the whole list: no note.
    // An edit names the current version: each is the one the previous edit made.
    const item = await as(ops.svc_item_upsert, { project_id: cut, title: 'Retention', body: 'v1' });
    let head = item.id;
    const edit = async (v: number) => {
      head = (await as(ops.svc_item_upsert, { project_id: cut, item_id: head, body: `v${v}` })).id;
    };
    for (let v = 2; v <= 200; v++) await edit(v);
    await many(200, (i) => as(ops.svc_capture_add, { project_id: cut, text: `capture ${i}` }));
    await many(199, (i) => as(ops.glossary_group_add, { project_id: cut, name: `Group ${i}` }));
    await as(ops.glossary_group_add, { project_id: cut, name: 'Terms' });
    await many(200, (i) => as(ops.glossary_term_propose, { project_id: cut, group: 'Terms', term: `term ${i}` }));
    expect(await notes()).toEqual([]);
    // One more of each: every page says its list was cut.
    await edit(201);
    await as(ops.svc_capture_add, { project_id: cut, text: 'capture 201' });
    await as(ops.glossary_group_add, { project_id: cut, name: 'Group 201' });
    await as(ops.glossary_term_propose, { project_id: cut, group: 'Terms', term: 'term 201' });
    expect(await notes()).toEqual(CUTS);
    // The first version is now older than the 200 listed: its link shows the current version and says so.
    const first = await (await get(`/p/${cut}/items/${item.id}`)).text();
    expect({ unlisted: first.includes('id="version-unlisted"'), old: first.includes('id="old-version"'), current: first.includes('<p>v201</p>') }).toEqual({
      unlisted: true,
      old: false,
      current: true,
    });
  });

  it('says on the projects page when there are more projects than it lists', async () => {
    const listed = async () => (await as(ops.project_list, { limit: 200 })).projects.length;
    const cutNote = async () => (await (await get('/')).text()).includes('id="projects-cut"');
    if ((await listed()) < 200) {
      const missing = 200 - (await listed());
      for (let i = 0; i < missing; i++) await as(ops.project_create, { slug: `webp-${i}` });
      expect(await cutNote()).toBe(false);
    }
    await as(ops.project_create, { slug: 'webp-one-more' });
    expect(await cutNote()).toBe(true);
  });

  it('finds the capture to redact by its id, however many newer captures there are', async () => {
    const old = (await as(ops.svc_capture_add, { project_id: slug, text: 'the oldest capture, to be redacted' })).id;
    for (let i = 0; i < 201; i++) await as(ops.svc_capture_add, { project_id: slug, text: `newer capture ${i}` });
    const confirm = await get(`/p/${slug}/inbox/${old}/redact`);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('the oldest capture, to be redacted');
    // Once redacted, the confirmation is refused as the redaction itself would be: 409, in the capture table's words.
    await as(ops.svc_capture_redact, { capture_id: old });
    const again = await get(`/p/${slug}/inbox/${old}/redact`);
    expect(again.status).toBe(409);
    expect(await again.text()).toMatch(/redacted/);
  });
});
