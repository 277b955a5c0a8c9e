import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';

type Args = Record<string, unknown>;

interface Outcome {
  isError: boolean;
  text: string;
  data: Record<string, unknown>;
}

/**
 * A scripted assistant session over any transport: every tool is called once on a happy path and once on a
 * refused or invalid path, and the server must keep answering throughout. Returns the tools exercised.
 */
export async function runSession(client: Client, project: string): Promise<{ ok: Set<string>; refused: Set<string> }> {
  const ok = new Set<string>();
  const refused = new Set<string>();

  const call = async (name: string, args: Args): Promise<Outcome> => {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    return { isError: result.isError === true, text, data: (result.structuredContent ?? {}) as Record<string, unknown> };
  };
  const good = async (name: string, args: Args) => {
    const outcome = await call(name, args);
    expect(outcome.isError, `${name} should succeed: ${outcome.text}`).toBe(false);
    ok.add(name);
    return outcome;
  };
  const bad = async (name: string, args: Args, code: string) => {
    const outcome = await call(name, args);
    expect(outcome.isError, `${name} should be refused`).toBe(true);
    const error = outcome.data.error as { code: string; message: string };
    expect(error.code, `${name}: ${error.message}`).toBe(code);
    expect(error.message).not.toMatch(/ at .*\.ts:\d+|SELECT |postgres:\/\//i);
    refused.add(name);
    return outcome;
  };

  const unit = (await good('svc_work_open', { project_id: project, title: 'Checkout rewrite' })).data.id as string;
  await bad('svc_work_open', { project_id: 'no-such-project', title: 'x' }, 'not_found');

  const t1 = (await good('svc_task_add', { work_unit_id: unit, title: 'Draft API', body: 'REST or gRPC' })).data as { id: string };
  await bad('svc_task_add', { work_unit_id: unit }, 'invalid_input');
  await good('svc_task_list', { work_unit_id: unit, status: '' });
  await bad('svc_task_list', { work_unit_id: unit, status: 'bogus' }, 'invalid_input');
  await good('svc_task_start', { task_id: t1.id.slice(0, 8) });
  await bad('svc_task_start', { task_id: t1.id }, 'refused_transition');
  await good('svc_task_block', { task_id: t1.id, reason: 'waiting for the API review' });
  await bad('svc_task_block', { task_id: t1.id, reason: 'again' }, 'refused_transition');
  await good('svc_task_start', { task_id: t1.id });
  const done = await good('svc_task_done', { task_id: t1.id, summary: 'REST', propose_decision: true });
  expect((done.data.draft_decision as { item_type: string }).item_type).toBe('decision');
  await bad('svc_task_done', { task_id: t1.id }, 'refused_transition');
  const edited = (await good('svc_task_edit', { task_id: t1.id, title: 'Draft the REST API' })).data as { id: string };
  expect(edited.id).not.toBe(t1.id);
  await bad('svc_task_edit', { task_id: t1.id, title: 'Stale edit' }, 'conflict');

  const decision = (await good('svc_item_upsert', { project_id: project, title: 'Use REST for the checkout API', body: 'Clients are browsers.' }))
    .data as { id: string };
  await bad('svc_item_upsert', { project_id: project, title: 42 }, 'invalid_input');
  const saved = await good('svc_save_decisions', { project_id: project, decisions: [{ title: 'Idempotency keys', links: [{ type: 'depends', target_id: decision.id }] }] });
  expect((saved.data.created as string[]).length).toBe(1);
  await bad('svc_save_decisions', { project_id: project, decisions: [] }, 'invalid_input');
  const hits = await good('svc_item_search', { project_id: project, query: 'checkout REST' });
  expect((hits.data.items as unknown[]).length).toBeGreaterThan(0);
  await bad('svc_item_search', { project_id: project, query: 'x', limit: 'many' }, 'invalid_input');
  // An identifier is found by its parts, camelCase ones too (a newcomer: `timeout` missed connectionTimeoutMillis), and
  // a phrase only within one text: the title's last word and the body's first are not adjacent (a reviewer).
  const pool = (await good('svc_item_upsert', { project_id: project, title: 'Cap the checkout connection', body: 'Pool of ten; connectionTimeoutMillis is 5000' }))
    .data as { id: string };
  const ids = async (query: string) => ((await good('svc_item_search', { project_id: project, query })).data.items as { id: string }[]).map((h) => h.id);
  expect(await ids('checkout timeout')).toEqual([pool.id]);
  expect(await ids('"connection pool"')).toEqual([]);
  // Other dialects' operators are refused, not read as words (decision 0058): `NOT` was a stop word, so this answered
  // the items about browsers; the parentheses were punctuation, so this answered (checkout OR rest) browsers.
  for (const query of ['REST NOT browsers', 'checkout OR (REST browsers)']) {
    const refusal = (await bad('svc_item_search', { project_id: project, query }, 'invalid_input')).data.error as { message: string; details: { field: string } };
    expect([refusal.details.field, refusal.message], query).toEqual(['query', expect.stringMatching(/^query: (has NOT|groups words in parentheses)/)]);
  }
  await good('svc_history_query', { project_id: project, item_id: decision.id });
  await bad('svc_history_query', { project_id: project, since: 'yesterday' }, 'invalid_input');
  const brief = await good('svc_brief', { project_id: project });
  expect(brief.text).toContain('## Active Work Units');
  await bad('svc_brief', { project_id: 'no-such-project' }, 'not_found');
  const page = await good('svc_page_sync', { project_id: project });
  expect(page.text).toContain('## Glossary Review Queue');
  await bad('svc_page_sync', { project_id: 'no-such-project' }, 'not_found');

  const check = (await good('svc_qa_add', { project_id: project, title: 'API reviewed', target_task_ids: [t1.id] })).data as { id: string };
  await bad('svc_qa_add', { project_id: project, title: 'x', coverage: 'robots' }, 'invalid_input');
  await good('svc_qa_list_pending', { project_id: project, task_id: t1.id });
  await bad('svc_qa_list_pending', { project_id: project, task_id: 'ffffffff' }, 'not_found');
  await good('svc_qa_pass', { qa_id: check.id });
  await bad('svc_qa_pass', { qa_id: check.id }, 'refused_transition');
  const second = (await good('svc_qa_add', { project_id: project, title: 'Load tested', work_unit_id: unit })).data as { id: string };
  await good('svc_qa_fail', { qa_id: second.id, note: 'p99 too high' });
  await bad('svc_qa_fail', { qa_id: second.id }, 'refused_transition');
  const resumed = await good('svc_work_resume', { project_id: project, keyword: 'checkout' });
  expect(Object.keys(resumed.data).sort()).toEqual(['qa_checks', 'tasks', 'work_units']);
  await bad('svc_work_resume', { keyword: 'checkout' }, 'invalid_input');
  const t2 = (await good('svc_task_add', { work_unit_id: unit, title: 'Load test' })).data as { id: string };
  await good('svc_task_start', { task_id: t2.id });
  await bad('svc_work_close', { work_unit_id: unit }, 'refused_transition');
  await good('svc_work_close', { work_unit_id: unit, force: true });

  const capture = (await good('svc_capture_add', { text: 'maybe cache the catalog' })).data as { id: string };
  await bad('svc_capture_add', { text: '' }, 'invalid_input');
  await good('svc_capture_list', {});
  await bad('svc_capture_list', { review_state: 'someday' }, 'invalid_input');
  await good('svc_capture_search', { query: 'catalog' });
  await bad('svc_capture_search', { query: 'x', limit: 0 }, 'invalid_input');
  await good('svc_capture_annotate', { capture_id: capture.id, signals: { source: 'standup' } });
  await bad('svc_capture_annotate', { capture_id: capture.id, signals: ['not', 'an', 'object'] }, 'invalid_input');
  await good('svc_capture_set_state', { capture_id: capture.id, review_state: 'review' });
  await bad('svc_capture_set_state', { capture_id: capture.id, review_state: 'redacted' }, 'invalid_input');
  const promoted = await good('svc_capture_promote', { capture_id: capture.id, project_id: project, title: 'Cache the catalog', body: '' });
  expect(promoted.text).toMatch(/^capture [0-9a-f]{8} promoted item [0-9a-f]{8}$/);
  await bad('svc_capture_promote', { capture_id: capture.id, title: 'no project' }, 'invalid_input');
  const other = (await good('svc_capture_add', { text: 'drop this' })).data as { id: string };
  await good('svc_capture_discard', { capture_id: other.id });
  await bad('svc_capture_discard', { capture_id: 'not-an-id' }, 'invalid_input');
  await good('svc_capture_redact', { capture_id: other.id });
  await bad('svc_capture_redact', { capture_id: other.id }, 'refused_transition');

  const idea = (await good('svc_idea_add', { work_unit_id: unit, text: 'shard by tenant' })).data as { id: string };
  await bad('svc_idea_add', { work_unit_id: unit }, 'invalid_input');
  await good('svc_idea_list', { work_unit_id: unit });
  await bad('svc_idea_list', { work_unit_id: 'ffffffff' }, 'not_found');
  await good('svc_idea_search', { project_id: project, query: 'tenant' });
  await bad('svc_idea_search', { project_id: project, since: 'last week' }, 'invalid_input');
  await good('svc_idea_redact', { idea_id: idea.id });
  await bad('svc_idea_redact', { idea_id: idea.id }, 'refused_transition');

  const impact = await good('svc_impact', { project_id: project, item_id: (saved.data.created as string[])[0], depth: 9 });
  expect(impact.text).toContain('Use REST for the checkout API');
  await bad('svc_impact', { project_id: project, item_id: decision.id, depth: 0 }, 'invalid_input');
  const findings = await good('svc_check', { project_id: project, severity: 'warn' });
  expect(findings.text).toContain('# Checks');
  await bad('svc_check', { project_id: project, rule: 'no-such-rule' }, 'invalid_input');

  return { ok, refused };
}
