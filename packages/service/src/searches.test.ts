import { testBackends } from '@svc/store/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ops } from './catalog.js';
import { Gate } from './searches.js';
import { createService } from './service.js';
import { openTestService, refusal } from './testing/index.js';

describe('Gate', () => {
  /** A turn's work that ends when its `end` is called. */
  const held = () => {
    let end = () => {};
    const done = new Promise<void>((r) => {
      end = r;
    });
    return { end, done };
  };

  it('runs at most its slots at once, gives turns in order of arrival, and refuses a caller its deadline passes', async () => {
    const gate = new Gate(2);
    const order: string[] = [];
    const [a, b, c, d] = [held(), held(), held(), held()];
    const far = Date.now() + 60_000;
    const running = [
      gate.run(far, 60_000, async () => {
        order.push('a');
        await a.done;
      }),
      gate.run(far, 60_000, async () => {
        order.push('b');
        await b.done;
      }),
      gate.run(far, 60_000, async () => {
        order.push('c');
        await c.done;
      }),
      gate.run(far, 60_000, async () => {
        order.push('d');
        await d.done;
      }),
    ];
    // A caller whose deadline passes while it waits is refused, and leaves the queue.
    const late = gate.run(Date.now() + 50, 50, async () => order.push('late'));
    const why = await refusal(late);
    expect(why.code).toBe('unavailable');
    expect(why.message).toMatch(/other searches held every turn for the whole 50 ms .*SVC_SEARCH_TIMEOUT_MS/);
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['a', 'b']);
    // A turn that ends goes to the first in line.
    b.end();
    await running[1];
    await expect.poll(() => order).toEqual(['a', 'b', 'c']);
    a.end();
    await expect.poll(() => order).toEqual(['a', 'b', 'c', 'd']);
    c.end();
    d.end();
    await Promise.all(running);
  });

  it('gives back a turn that ends in an error, and passes a turn over a caller whose deadline has passed', async () => {
    const gate = new Gate(1);
    await expect(
      gate.run(Date.now() + 60_000, 60_000, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    // The one turn is free again: a caller runs at once, without waiting in line.
    const first = held();
    let started = false;
    const holding = gate.run(Date.now() + 60_000, 60_000, async () => {
      started = true;
      await first.done;
    });
    expect(started).toBe(true);
    // Two wait: the first's deadline passes before the turn is free (its timer not yet run), the second's does not.
    const expired = gate.run(Date.now() + 20, 20, async () => 'expired ran');
    const waiting = gate.run(Date.now() + 60_000, 60_000, async () => 'waiting ran');
    const busy = Date.now() + 40;
    while (Date.now() < busy) {
      // Keep the event loop from running the expired caller's timer: the turn reaches it first.
    }
    first.end();
    await holding;
    expect((await refusal(expired)).message).toMatch(/other searches held every turn for the whole 20 ms/);
    expect(await waiting).toBe('waiting ran');
  });
});

describe('Gate and a caller that has gone', () => {
  it('lets a waiting caller whose signal aborts leave the line, the turn going to the next', async () => {
    const gate = new Gate(1);
    let end = () => {};
    const holding = gate.run(Date.now() + 60_000, 60_000, () => new Promise<void>((r) => (end = r)));
    const gone = new AbortController();
    const left = gate.run(Date.now() + 60_000, 60_000, async () => 'gone ran', gone.signal);
    const next = gate.run(Date.now() + 60_000, 60_000, async () => 'next ran');
    gone.abort();
    expect((await refusal(left)).message).toMatch(/caller went away/);
    end();
    await holding;
    expect(await next).toBe('next ran');
    // A caller already gone does not queue at all.
    expect((await refusal(gate.run(Date.now() + 60_000, 60_000, async () => 'ran', AbortSignal.abort()))).message).toMatch(/caller went away/);
  });
});

describe.each(testBackends())('a search past its time-out on $name', (backend) => {
  it('is refused naming SVC_SEARCH_TIMEOUT_MS, once its statements have begun', async () => {
    const store = await backend.open();
    try {
      await store.reset();
      const service = createService(store, { searchTimeoutMs: 0 });
      await service.call(ops.project_create, { slug: 'late' }, { source: 'cli' });
      for (const [op, input] of [
        [ops.svc_item_search, { project_id: 'late', query: 'cache pool' }],
        [ops.svc_capture_search, { query: 'cache' }],
      ] as const) {
        const why = await refusal(service.call(op as typeof ops.svc_item_search, input as { project_id: string; query: string }, { source: 'cli' }));
        expect(why.code, op.name).toBe('unavailable');
        expect(why.message, op.name).toMatch(/took longer than the 0 ms a search may \(SVC_SEARCH_TIMEOUT_MS\)/);
      }
      // Other reads are not searches.
      expect((await service.call(ops.svc_brief, { project_id: 'late' }, { source: 'cli' })).project).toBeDefined();
      // A search whose caller has gone stops too, whatever its time-out.
      const patient = createService(store);
      const why = await refusal(patient.call(ops.svc_item_search, { project_id: 'late', query: 'cache pool' }, { source: 'cli', signal: AbortSignal.abort() }));
      expect(why.message).toMatch(/caller went away/);
      expect((await patient.call(ops.svc_item_search, { project_id: 'late', query: 'cache pool' }, { source: 'cli' })).items).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe.each(testBackends().filter((b) => b.name === 'postgres'))('a search the database cancels on $name', (backend) => {
  it('is refused as cancelled, not as past its time-out, when the cancel comes before it', async () => {
    const svc = await openTestService(backend);
    try {
      await svc.store.reset();
      const { actorId, slug } = await svc.seed('cancelled');
      await svc.as(actorId)(ops.svc_item_upsert, { project_id: slug, item_type: 'decision', title: 'Cache the pool', body: 'cache pool sizes' });
      // The search waits on a lock held by a connection of the same pool; an operator cancels it.
      const why = await svc.store.db.connection().execute(async (conn) => {
        await sql`begin`.execute(conn);
        await sql`lock table search_stats in access exclusive mode`.execute(conn);
        const searching = refusal(svc.call(ops.svc_item_search, { project_id: slug, query: 'cache pool' }, { source: 'cli' }));
        searching.catch(() => {});
        for (let tries = 0; ; tries++) {
          // The activity view is read once per transaction unless its snapshot is let go.
          await sql`select pg_stat_clear_snapshot()`.execute(conn);
          const { rows } = await sql<{ n: number }>`
            select count(pg_cancel_backend(pid))::int as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'
              and backend_type = 'client backend'`.execute(conn);
          if ((rows[0]?.n ?? 0) > 0) break;
          if (tries > 200) throw new Error('the search never waited on the lock');
          await new Promise((r) => setTimeout(r, 25));
        }
        const refused = await searching;
        await sql`rollback`.execute(conn);
        return refused;
      });
      expect(why.code).toBe('unavailable');
      expect(why.message).toMatch(/cancelled in the database before its time-out/);
      expect(why.message).not.toMatch(/SVC_SEARCH_TIMEOUT_MS/);
    } finally {
      await svc.close();
    }
  });
});
