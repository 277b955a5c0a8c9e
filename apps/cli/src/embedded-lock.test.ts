import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
 * The embedded database (PGlite) is one session in one process. The first svc process to open a data
 * directory owns it and serves it to the others over a Unix socket (docs/decisions/0024): a CLI, an MCP
 * server and an HTTP server work on one directory at once, and a lock left by a killed process must not block
 * the next one. These run on PGlite whatever the environment says.
 */
describe('the embedded database is shared by the processes that open it', () => {
  it('a CLI process writes while `svc serve http` owns the data directory, and each sees the other\'s writes', async () => {
    const { dataDir, env, actorId, server: a } = await serverOnFreshDataDir('a1');
    const itemIds: string[] = [];
    try {
      itemIds.push(await writeItem(a.url, actorId, 'a1', 'Written by the server'));
      // A second process on the same directory: served by A, not refused.
      const x = await svc(['project', 'create', 'x'], env);
      expect(x).toMatchObject({ code: 0, stderr: '' });
      const shown = await svcJson<{ item: { title: string } }>(['item', 'show', itemIds[0] as string], env);
      expect(shown.item.title).toBe('Written by the server');
      // …and the server sees the CLI's write: it writes into the project the CLI created.
      itemIds.push(await writeItem(a.url, actorId, 'x', 'Written by the server into the CLI project'));
      // A still owns the directory, and names the socket it serves it on.
      expect(lockHolders(dataDir)).toEqual([expect.objectContaining({ pid: a.child.pid, socket: expect.stringMatching(/\.s\.PGSQL\.5432$/) })]);
    } finally {
      a.child.kill('SIGTERM');
    }
    expect(await a.exited).toEqual({ code: 0, signal: null });
    // A clean stop lets go of the directory, and leaves no socket directory beside it.
    expect(lockHolders(dataDir)).toEqual([]);
    expect(existsSync(join(dirname(dataDir), `.${basename(dataDir)}.sock`))).toBe(false);
    const titles: string[] = [];
    for (const id of itemIds) titles.push((await svcJson<{ item: { title: string } }>(['item', 'show', id], env)).item.title);
    expect(titles).toEqual(['Written by the server', 'Written by the server into the CLI project']);
  }, 180_000);

  it('a second server, served by the first, takes the directory over when the first is killed, on its next request', async () => {
    const { dataDir, env, actorId, server: a } = await serverOnFreshDataDir('first');
    const b = await serveHttp(env);
    try {
      const before = await writeItem(b.url, actorId, 'first', 'Through B while A owns');
      a.child.kill('SIGKILL');
      await a.exited;
      // B's next request finds its owner gone, takes the directory over and answers.
      let status = 0;
      for (let i = 0; i < 20 && status !== 200; i++) {
        const r = await fetch(`${b.url}/projects/first/items`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-Actor': actorId },
          body: JSON.stringify({ title: 'Through B after A died' }),
        });
        status = r.status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
      expect(lockHolders(dataDir)).toEqual([expect.objectContaining({ pid: b.child.pid })]);
      const shown = await svcJson<{ item: { title: string } }>(['item', 'show', before], env);
      expect(shown.item.title).toBe('Through B while A owns');
    } finally {
      a.child.kill('SIGKILL');
      b.child.kill('SIGTERM');
    }
    expect((await b.exited).code).toBe(0);
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
