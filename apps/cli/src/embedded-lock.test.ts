import { describe, expect, it } from 'vitest';
import { freshDataDir, lockHolders, serveHttp, svc, svcEnv, svcJson } from './testing/svc-process.js';

/** A fresh data directory holding a project and an actor, and a server that holds the directory. */
async function serverOnFreshDataDir(project: string) {
  const dataDir = freshDataDir();
  const env = svcEnv({ SVC_DATA_DIR: dataDir });
  // Written before the server starts, by CLI processes that then exit and let go of the directory.
  expect((await svc(['project', 'create', project], env)).code).toBe(0);
  const actor = await svcJson<{ id: string }>(['actor', 'add', '--email', `${project}@example.test`], env);
  return { dataDir, env, actorId: actor.id, server: await serveHttp(env) };
}

/** Write an item through a running server's REST API; returns its id. */
async function writeItem(url: string, actorId: string, project: string, title: string): Promise<string> {
  const response = await fetch(`${url}/projects/${project}/items`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Actor': actorId },
    body: JSON.stringify({ title }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

/**
 * The embedded database (PGlite) has no lock between processes, so svc holds an exclusive lock on the data
 * directory: a second process must be refused — not silently lose the first one's writes — and a lock left by
 * a killed process must not block the next one. These run on PGlite whatever the environment says.
 */
describe('the embedded database admits one process at a time', () => {
  it('refuses a second process while `svc serve http` holds the data directory, naming the holder and the ways out; after the server stops, no write is lost', async () => {
    const { dataDir, env, actorId, server: a } = await serverOnFreshDataDir('a1');
    const itemIds: string[] = [];
    try {
      // A writes through its own REST API while it holds the directory.
      itemIds.push(await writeItem(a.url, actorId, 'a1', 'Written before the intruder'));

      const intruder = await svc(['project', 'create', 'x'], env);
      expect(intruder.code).toBe(1);
      expect(intruder.stdout).toBe('');
      expect(intruder.stderr).toMatch(/^svc: unavailable: the embedded database at .* is in use by process \d+/);
      expect(intruder.stderr).toContain(`in use by process ${a.child.pid} `);
      expect(intruder.stderr).toContain('SVC_DATABASE_URL');
      expect(intruder.stderr).toContain('/mcp');

      // The refusal did not disturb A: it still holds the lock, and still writes.
      expect(lockHolders(dataDir)).toEqual([expect.objectContaining({ pid: a.child.pid })]);
      itemIds.push(await writeItem(a.url, actorId, 'a1', 'Written after the intruder'));
    } finally {
      a.child.kill('SIGTERM');
    }
    expect(await a.exited).toEqual({ code: 0, signal: null });
    // A clean stop lets go of the directory.
    expect(lockHolders(dataDir)).toEqual([]);

    const y = await svc(['project', 'create', 'y'], env);
    expect(y).toMatchObject({ code: 0, stderr: '' });
    const listed = await svcJson<{ projects: { slug: string }[] }>(['project', 'list'], env);
    expect(listed.projects.map((p) => p.slug)).toEqual(['a1', 'y']);
    // One at a time: the embedded database admits one process.
    const titles: string[] = [];
    for (const id of itemIds) titles.push((await svcJson<{ item: { title: string } }>(['item', 'show', id], env)).item.title);
    expect(titles).toEqual(['Written before the intruder', 'Written after the intruder']);
  }, 180_000);

  it('takes over the lock of a server killed with SIGKILL, and keeps what that server had acknowledged', async () => {
    const { dataDir, env, actorId, server: a } = await serverOnFreshDataDir('before');
    const id = await writeItem(a.url, actorId, 'before', 'Acknowledged before the kill');
    a.child.kill('SIGKILL');
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The dead server's lock is still on disk: the next process has to recognise it as stale.
    expect(lockHolders(dataDir)).toEqual([expect.objectContaining({ pid: a.child.pid })]);

    const revived = await svc(['project', 'create', 'revived'], env);
    expect(revived).toMatchObject({ code: 0, stderr: '' });
    expect(lockHolders(dataDir)).toEqual([]);
    const listed = await svcJson<{ projects: { slug: string }[] }>(['project', 'list'], env);
    expect(listed.projects.map((p) => p.slug)).toEqual(['before', 'revived']);
    expect((await svcJson<{ item: { title: string } }>(['item', 'show', id.slice(0, 8)], env)).item.title).toBe('Acknowledged before the kill');
  }, 180_000);
});
