import { type AnyOperation, type InputOf, ops, type Service } from '@svc/service';

/** The usual XSS payloads: each one, if it ever ran, would set window.__xss or open a dialog. */
const XSS = [
  '<script>window.__xss=1;alert(1)</script>',
  '<img src=x onerror="window.__xss=2;alert(2)">',
  '"><svg onload="window.__xss=3">',
  '[click me](javascript:window.__xss=4)',
  "'-alert(5)-'</title><script>window.__xss=5</script>",
  '<a href="javascript:window.__xss=6">link</a>',
  '<iframe srcdoc="<script>parent.__xss=7</script>"></iframe>',
] as const;

export interface WebFixture {
  actorId: string;
  slug: string;
  xssSlug: string;
  decisionId: string;
  decisionV1: string;
  cacheId: string;
  captureId: string;
  termId: string;
}

/**
 * A small project with everything the pages show (versions, links, a work board, QA checks, captures, a glossary
 * queue, findings), and a second one whose every text field holds an XSS payload.
 */
export async function seedWebFixture(service: Service): Promise<WebFixture> {
  // Typed calls from the catalog; the answers are read loosely, as a page would.
  const cli = async <Op extends AnyOperation>(op: Op, input: InputOf<Op>) => (await service.call(op, input, { source: 'cli' })) as Record<string, unknown>;
  const actor = (await cli(ops.actor_add, { email: 'web@example.test', name: 'Web Tester' })) as { id: string };
  const as = async <Op extends AnyOperation>(op: Op, input: InputOf<Op>) =>
    (await service.call(op, input, { source: 'test', actorId: actor.id })) as Record<string, unknown> & { id: string };
  const slug = 'atlas';
  await cli(ops.project_create, { slug, name: 'Atlas' });
  await as(ops.system_add, { project_id: slug, name: 'billing' });
  await as(ops.system_add, { project_id: slug, name: 'search' });

  const db = await as(ops.svc_item_upsert, {
    project_id: slug,
    title: 'Use PostgreSQL for billing',
    body: 'Billing data lives in **PostgreSQL 15**.\n\nWe keep one primary and one read replica.\nBackups run nightly.',
    system_id: 'billing',
  });
  const v2 = await as(ops.svc_item_upsert, {
    project_id: slug,
    item_id: db.id,
    body: 'Billing data lives in **PostgreSQL 16**.\n\nWe keep one primary and two read replicas.\nBackups run nightly.\nSee [the runbook](https://example.com/runbook).',
    semantic_impacts: ['numeric_change'],
  });
  const cache = await as(ops.svc_item_upsert, {
    project_id: slug,
    title: 'Cache invoices in Redis',
    body: 'Invoice lookups go through a Redis cache in front of PostgreSQL.',
    system_id: 'billing',
    links: [{ type: 'depends', target_id: v2.id }],
  });
  await as(ops.svc_item_upsert, {
    project_id: slug,
    item_type: 'policy',
    title: 'Invoices are kept seven years',
    body: 'Retention follows the PostgreSQL backups policy.',
    links: [{ type: 'depends', target_id: cache.id }],
  });
  await as(ops.svc_item_upsert, {
    project_id: slug,
    item_type: 'knowledge',
    title: 'Search uses BM25',
    body: 'Ranking of item search is BM25 over titles and bodies.',
    system_id: 'search',
    links: [{ type: 'depends', target_id: v2.id }],
  });
  const mysql = await as(ops.svc_item_upsert, { project_id: slug, title: 'Use MySQL for billing', body: 'An older proposal.' });
  await as(ops.link_add, { project_id: slug, from_id: mysql.id, type: 'conflicts', to_id: v2.id });

  const unit = await as(ops.svc_work_open, { project_id: slug, title: 'Ship the web view', description: 'Pages for people.' });
  const t1 = await as(ops.svc_task_add, { work_unit_id: unit.id, title: 'Render the pages' });
  await as(ops.svc_task_add, { work_unit_id: unit.id, title: 'Write the browser tests' });
  const t3 = await as(ops.svc_task_add, { work_unit_id: unit.id, title: 'Pick a layout library' });
  await as(ops.svc_task_start, { task_id: t3.id });
  await as(ops.svc_task_done, { task_id: t3.id, summary: 'dagre' });
  await as(ops.svc_task_start, { task_id: t1.id });
  await as(ops.svc_qa_add, { project_id: slug, title: 'Pages pass axe', work_unit_id: unit.id, target_task_ids: [t1.id] });
  await as(ops.svc_qa_add, { project_id: slug, title: 'Replica failover tested', target_item_ids: [v2.id] });
  const passed = await as(ops.svc_qa_add, { project_id: slug, title: 'Cache hit rate above 90%', target_item_ids: [cache.id] });
  await as(ops.svc_qa_pass, { qa_id: passed.id });
  await new Promise((resolve) => setTimeout(resolve, 20));
  await as(ops.svc_item_upsert, { project_id: slug, item_id: cache.id, body: 'Invoice lookups go through Redis (TTL 10 min).' });

  const capture = await as(ops.svc_capture_add, { project_id: slug, text: 'The billing team wants invoices exported as CSV every month.' });
  await as(ops.svc_capture_add, { project_id: slug, text: 'Old token sk-live-1234 pasted by mistake.' });
  await as(ops.svc_capture_add, { project_id: slug, text: 'Duplicate: CSV export of invoices, asked again.' });
  // The shared inbox: captures filed under no project.
  const shared = await as(ops.svc_capture_add, { text: 'Someone asked whether invoices also need a PDF copy.' });
  await as(ops.svc_capture_annotate, { capture_id: shared.id, summary: 'PDF invoices?' });
  await as(ops.svc_capture_add, { text: 'Try the new staging database before Friday.' });
  await as(ops.glossary_group_add, { project_id: slug, name: 'Billing' });
  await as(ops.glossary_term_add, { project_id: slug, group: 'Billing', term: 'invoice' });
  const term = await as(ops.glossary_term_propose, { project_id: slug, group: 'Billing', term: 'credit note' });
  await as(ops.glossary_term_propose, { project_id: slug, group: 'Billing', term: 'dunning' });

  // Every field a page shows, filled with a payload.
  const xssSlug = 'hostile';
  const payload = XSS.join(' ');
  await cli(ops.project_create, { slug: xssSlug, name: payload.slice(0, 200) });
  await as(ops.system_add, { project_id: xssSlug, name: XSS[1] });
  const x1 = await as(ops.svc_item_upsert, {
    project_id: xssSlug,
    title: XSS[0],
    body: `${payload}\n\n${XSS[3]}`,
    context: { note: payload },
    // An http(s) URL is all svc stores (docs/decisions/0041); the payload rides in its path.
    source_url: 'https://example.com/"><script>window.__xss=9</script>',
    system_id: XSS[1],
  });
  await as(ops.svc_item_upsert, { project_id: xssSlug, item_id: x1.id, title: XSS[1], body: `${XSS[2]} changed ${XSS[5]}` });
  await as(ops.svc_item_upsert, { project_id: xssSlug, title: XSS[2], body: XSS[4], links: [{ type: 'depends', target_id: x1.id }] });
  const xu = await as(ops.svc_work_open, { project_id: xssSlug, title: XSS[4], description: payload });
  const xt = await as(ops.svc_task_add, { work_unit_id: xu.id, title: XSS[5], body: payload });
  await as(ops.svc_task_start, { task_id: xt.id });
  await as(ops.svc_qa_add, { project_id: xssSlug, title: XSS[6], body: payload, target_item_ids: [x1.id] });
  const xc = await as(ops.svc_capture_add, { project_id: xssSlug, text: payload });
  await as(ops.svc_capture_annotate, { capture_id: xc.id, summary: payload, sensitivity_hint: XSS[1], signals: { x: XSS[0] } });
  await as(ops.glossary_group_add, { project_id: xssSlug, name: XSS[0] });
  await as(ops.glossary_term_propose, { project_id: xssSlug, group: XSS[0], term: XSS[1] });
  await as(ops.glossary_term_add, { project_id: xssSlug, group: XSS[0], term: XSS[2] });

  return {
    actorId: actor.id,
    slug,
    xssSlug,
    decisionId: v2.id,
    decisionV1: db.id,
    cacheId: cache.id,
    captureId: capture.id,
    termId: term.id,
  };
}
