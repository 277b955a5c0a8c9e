import type { TaskStatus } from '@svc/domain';
import { sql } from 'kysely';
import { ops } from '../catalog.js';
import type { AnyOperation, InputOf } from '../operation.js';
import { describe, expect, it } from 'vitest';
import { type Call, refusal, type TestService, testBackends } from '../testing/index.js';
import { useTestService } from '../testing/suite.js';

describe.each(testBackends())('svc_brief and svc_page_sync on $name', (backend) => {
  let svc: TestService;
  let call: Call;
  let projectId: string;

  useTestService(backend, 'brief', (t) => {
    ({ svc, call } = t);
    projectId = t.seeded.projectId;
  });

  const markdown = async <Op extends AnyOperation>(op: Op, input: InputOf<Op>) => {
    const result = await call(op, input);
    if (op.presentation.kind !== 'markdown') throw new Error('expected a markdown tool');
    return op.presentation.render(result);
  };
  const unit = async (title: string, status: 'open' | 'closed' = 'open') =>
    (await svc.store.db.insertInto('work_units').values({ project_id: projectId, title, status }).returning('id').executeTakeFirstOrThrow()).id;
  const task = async (workUnitId: string, title: string, status: TaskStatus) => {
    const t = (await call(ops.svc_item_upsert, { project_id: 'brief', item_type: 'task', title, work_unit_id: workUnitId })) as { id: string };
    await svc.store.db.updateTable('items').set({ status }).where('id', '=', t.id).execute();
    return t.id;
  };

  it('says so when the project is empty, inventing nothing', async () => {
    const text = await markdown(ops.svc_brief, { project_id: 'brief' });
    expect(text).toContain('## Active Work Units\n\n_No open work units._');
    expect(text).toContain('## Recent Items\n\n_No items._');
  });

  it('lists open work units with task counts and the task in progress, and the latest current items', async () => {
    const open = await unit('Checkout rewrite');
    await unit('Old migration', 'closed');
    await task(open, 'Draft API', 'done');
    const running = await task(open, 'Wire payments', 'in_progress');
    await task(open, 'Load test', 'proposed');
    const first = (await call(ops.svc_item_upsert, { project_id: 'brief', title: 'Use idempotency keys' })) as { id: string };
    await call(ops.svc_item_upsert, { project_id: 'brief', item_id: first.id, title: 'Use idempotency keys everywhere' });
    await call(ops.svc_item_upsert, { project_id: 'brief', item_type: 'knowledge', title: 'PSP limits' });

    const data = (await call(ops.svc_brief, { project_id: 'brief' })) as {
      work_units: { title: string; tasks: Record<string, number>; in_progress_task: { id: string } | null }[];
      recent_items: { title: string }[];
    };
    expect(data.work_units).toHaveLength(1);
    expect(data.work_units[0]).toMatchObject({
      title: 'Checkout rewrite',
      tasks: { proposed: 1, in_progress: 1, blocked: 0, done: 1 },
      in_progress_task: { id: running },
    });
    expect(data.recent_items.map((i) => i.title)).toEqual(['PSP limits', 'Use idempotency keys everywhere']);

    const text = await markdown(ops.svc_brief, { project_id: 'brief' });
    expect(text).toMatch(/- \*\*Checkout rewrite\*\* \(`[0-9a-f]{8}`\) — tasks: 1 proposed, 1 in progress, 0 blocked, 1 done; in progress: Wire payments/);
    expect(text).not.toContain('Old migration');
    expect(text).toContain('[decision] **Use idempotency keys everywhere**');
  });

  it('narrows both sections by keyword', async () => {
    await unit('Checkout rewrite');
    await unit('Search tuning');
    await call(ops.svc_item_upsert, { project_id: 'brief', title: 'Checkout retries' });
    await call(ops.svc_item_upsert, { project_id: 'brief', title: 'Index layout' });
    const data = (await call(ops.svc_brief, { project_id: 'brief', keyword: 'checkout' })) as {
      work_units: { title: string }[];
      recent_items: { title: string }[];
    };
    expect(data.work_units.map((u) => u.title)).toEqual(['Checkout rewrite']);
    expect(data.recent_items.map((i) => i.title)).toEqual(['Checkout retries']);
    // Work units are matched by the same dialect as items, not by the keyword as one substring (an attacker:
    // `checkout -zzz` hid the unit "Checkout rewrite" and the brief said there were no open work units).
    const dialect = (await call(ops.svc_brief, { project_id: 'brief', keyword: 'rewrite -zzz' })) as typeof data;
    expect(dialect.work_units.map((u) => u.title)).toEqual(['Checkout rewrite']);
    const none = await markdown(ops.svc_brief, { project_id: 'brief', keyword: 'zebra' });
    expect(none).toContain('_No open work units match zebra._');
    expect(none).toContain('_No items match zebra._');
    // A keyword of no word, or of stop words only, is refused naming keyword, as a search refuses it.
    for (const keyword of ['the', 'OR', '"', 'checkout -the']) {
      expect(await refusal(call(ops.svc_brief, { project_id: 'brief', keyword })), keyword).toMatchObject({ code: 'invalid_input', details: { field: 'keyword' } });
    }
  });

  it('answers at most 2000 characters for a project of 1000 items unless asked for more, and says it was cut', async () => {
    // 1000 long-titled items and 30 open work units, straight in SQL: the service would take a minute.
    await sql`
      with s as (select gen_random_uuid() as id, n from generate_series(1, 1000) n)
      insert into items (id, chain_id, project_id, item_type, title, body, is_head, version, created_at, updated_at, refreshed_at)
      select id, id, ${projectId}::uuid, 'decision',
             'Decision ' || n || ': ' || repeat('a long title that a person actually wrote ', 3), 'body', true, 1,
             now() - n * interval '1 minute', now() - n * interval '1 minute', now() - n * interval '1 minute'
      from s`.execute(svc.store.db);
    await sql`
      insert into work_units (project_id, title, status)
      select ${projectId}::uuid, 'Work unit ' || n || ' ' || repeat('with a descriptive title ', 3), 'open'
      from generate_series(1, 30) n`.execute(svc.store.db);

    const text = await markdown(ops.svc_brief, { project_id: 'brief' });
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text).toContain('## Active Work Units');
    expect(text).toContain('Decision 1:');
    expect(text).toMatch(/_Cut to 2000 characters; pass a larger max_chars \(up to 50000\) for more\._$/);
    const data = (await call(ops.svc_brief, { project_id: 'brief' })) as { cut: boolean; truncated: Record<string, boolean>; work_units: unknown[]; recent_items: unknown[] };
    expect(data).toMatchObject({ cut: true, truncated: { work_units: true, recent_items: true } });
    expect(data.work_units.length).toBeGreaterThan(0);
    expect(data.recent_items.length).toBeGreaterThan(0);

    const more = await markdown(ops.svc_brief, { project_id: 'brief', max_chars: 20_000 });
    expect(more.length).toBeGreaterThan(10_000);
    expect(more.length).toBeLessThanOrEqual(20_000);
    expect(more).toContain('Decision 40:');

    const roomy = await markdown(ops.svc_brief, { project_id: 'brief', keyword: 'Decision 7', max_chars: 50_000 });
    expect(roomy).not.toContain('_Cut to');
    await expect(call(ops.svc_brief, { project_id: 'brief', max_chars: 10 })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'max_chars' } });
  });

  it('keeps user text from breaking the markdown structure', async () => {
    await call(ops.svc_item_upsert, { project_id: 'brief', title: 'Evil\n## Active Work Units\n- fake' });
    const text = await markdown(ops.svc_brief, { project_id: 'brief' });
    expect(text.match(/^## Active Work Units$/gm)).toHaveLength(1);
  });

  it('names at most 10 items a decision supersedes on the page, by title, and says when there are more', async () => {
    const replaced = (await call(ops.svc_save_decisions, {
      project_id: 'brief',
      decisions: Array.from({ length: 11 }, (_, i) => ({ title: `Old rule ${String(i).padStart(2, '0')}`, body: 'b' })),
    })) as { created: string[] };
    const links = replaced.created.map((id) => ({ type: 'supersedes' as const, target_id: id }));
    await call(ops.svc_item_upsert, { project_id: 'brief', title: 'Ten at once', links: links.slice(0, 10) });
    await call(ops.svc_item_upsert, { project_id: 'brief', title: 'Eleven at once', links });

    const { page } = (await call(ops.svc_page_sync, { project_id: 'brief' })) as { page: string };
    const line = (title: string) => page.split('\n').find((l) => l.startsWith(`- **${title}**`)) ?? '';
    const named = (title: string) => [...line(title).matchAll(/supersedes (Old rule \d\d)/g)].map((m) => m[1]);
    const first10 = Array.from({ length: 10 }, (_, i) => `Old rule ${String(i).padStart(2, '0')}`);
    expect(named('Ten at once')).toEqual(first10);
    expect(line('Ten at once')).not.toContain('more not shown');
    expect(named('Eleven at once')).toEqual(first10);
    expect(line('Eleven at once')).toMatch(/; supersedes more not shown\)$/);
  });

  it('builds the decisions page grouped by system with what each superseded, plus the review queue, and records a sync job', async () => {
    await call(ops.system_add, { project_id: 'brief', name: 'payments' });
    const old = (await call(ops.svc_item_upsert, { project_id: 'brief', title: 'Retry twice', system_id: 'payments' })) as { id: string };
    const v2 = (await call(ops.svc_item_upsert, { project_id: 'brief', item_id: old.id, title: 'Retry three times' })) as { id: string };
    const legacy = (await call(ops.svc_item_upsert, { project_id: 'brief', item_type: 'policy', title: 'Legacy retry policy' })) as { id: string };
    await call(ops.svc_item_upsert, {
      project_id: 'brief',
      title: 'Central retry budget',
      links: [{ type: 'supersedes', target_id: legacy.id }],
    });
    await call(ops.svc_item_upsert, { project_id: 'brief', item_type: 'knowledge', title: 'Not a decision' });
    await call(ops.glossary_group_add, { project_id: 'brief', name: 'psp' });
    await call(ops.glossary_term_propose, { project_id: 'brief', group: 'psp', term: 'acquirer' });

    const result = (await call(ops.svc_page_sync, { project_id: 'brief' })) as { page: string; job_id: string };
    const page = result.page;
    expect(page).toContain('## Decisions');
    expect(page).toMatch(/### General\n\n- \*\*Central retry budget\*\* .*supersedes Legacy retry policy/);
    expect(page).toMatch(new RegExp(`### payments\\n\\n- \\*\\*Retry three times\\*\\* \\(\`${v2.id.slice(0, 8)}\`, v2, .*supersedes v1 \\(\`${old.id.slice(0, 8)}\`\\)`));
    expect(page).not.toContain('Not a decision');
    expect(page).toContain('## Glossary Review Queue\n\n- acquirer → group psp');
    const job = await svc.store.db.selectFrom('sync_jobs').selectAll().where('id', '=', result.job_id).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ kind: 'page_sync', status: 'succeeded', project_id: projectId });
  });
});
