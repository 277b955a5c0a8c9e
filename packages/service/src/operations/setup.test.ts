import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestService, type TestService, testBackends } from '../testing/index.js';
import { ops } from '../catalog.js';

interface Setup {
  project: { id: string; slug: string };
  actor: { id: string; email: string };
  created: { project: boolean; actor: boolean };
}

describe.each(testBackends())('setup (first use) on $name', (backend) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService(backend);
  });
  afterAll(async () => {
    await svc?.close();
  });
  beforeEach(async () => {
    await svc.store.reset();
  });
  const setup = (input: Record<string, unknown>) => svc.call(ops.setup, input, { source: 'cli' }) as Promise<Setup>;
  const counts = async () => ({
    projects: ((await svc.call(ops.project_list, {}, { source: 'cli' })) as { projects: unknown[] }).projects.length,
    actors: ((await svc.call(ops.actor_list, {}, { source: 'cli' })) as { actors: unknown[] }).actors.length,
  });

  it('creates the defaults on an empty database once; later calls with other defaults reuse them, never adding a second', async () => {
    const first = await setup({ default_actor_email: 'me@example.test' });
    expect(first).toMatchObject({ project: { slug: 'default' }, actor: { email: 'me@example.test' }, created: { project: true, actor: true } });
    // Started again by someone whose git email differs: the first actor and project are used.
    const later = await setup({ default_actor_email: 'someone-else@example.test' });
    expect(later).toMatchObject({ project: { id: first.project.id }, actor: { id: first.actor.id }, created: { project: false, actor: false } });
    expect(await counts()).toEqual({ projects: 1, actors: 1 });
  });

  it('finds or creates what is named explicitly, and refuses a name that is not a slug', async () => {
    const first = await setup({ default_actor_email: 'me@example.test' });
    const named = await setup({ project: 'acme', actor_email: 'ME@example.test' });
    // The email matches case-insensitively (the existing actor); the named project is new.
    expect(named).toMatchObject({ project: { slug: 'acme' }, actor: { id: first.actor.id }, created: { project: true, actor: false } });
    await expect(setup({ project: 'Not A Slug' })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'project' } });
    expect(await counts()).toEqual({ projects: 2, actors: 1 });
  });

  it("names an actor made of a 250-character email by its first 200 characters, so the project's export imports", async () => {
    const local = 'a'.repeat(250);
    const made = await setup({ default_actor_email: `${local}@example.test` });
    expect((made.actor as { name?: string }).name).toBe(local.slice(0, 200));
    await svc.as(made.actor.id)(ops.svc_item_upsert, { project_id: made.project.slug, title: 'Written by that actor' });
    const { lines } = (await svc.call(ops.project_export, { project_id: made.project.slug }, { source: 'cli' })) as { lines: string[] };
    expect(lines.filter((l) => l.startsWith('{"type":"actor"'))).toHaveLength(1);
    expect(await svc.call(ops.project_import, { lines, as_slug: 'copy' }, { source: 'cli' })).toMatchObject({ slug: 'copy' });
  });

  it('sets up once when two first uses race', async () => {
    const [a, b] = await Promise.all([setup({ default_actor_email: 'a@example.test' }), setup({ default_actor_email: 'b@example.test' })]);
    expect(a.actor.id).toBe(b.actor.id);
    expect(a.project.id).toBe(b.project.id);
    expect(await counts()).toEqual({ projects: 1, actors: 1 });
  });
});
