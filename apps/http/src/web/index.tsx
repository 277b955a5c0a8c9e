// @jsxRuntime automatic
// @jsxImportSource hono/jsx
import {
  type AnyOperation,
  CAPTURE_STATES,
  type CaptureState,
  captureTransition,
  type ErrorCode,
  IMPACT_DIRECTIONS,
  type InputOf,
  isSvcError,
  MAX_IMPACT_DEPTH,
  type OutputOf,
  ops,
  SEVERITIES,
  type Service,
} from '@svc/service';
import type { Context, Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type PageContext, projectPath } from './layout.js';
import {
  ChecksPage,
  ErrorPage,
  GlossaryPage,
  HomePage,
  ImpactPage,
  InboxPage,
  type InboxKind,
  inboxPath,
  ItemPage,
  type Project,
  ProjectsPage,
  RedactConfirmPage,
  SearchPage,
  type System,
  WorkPage,
} from './pages.js';
import { formToken, isWebFormPost, pageHeaders, sameOrigin, TOKEN_FIELD, tokenMatches, WEB_FORM_PREFIXES } from './security.js';
import { STATIC } from './static.js';

export { isWebFormPost } from './security.js';

type WebEnv = { Variables: { requestId: string } };
type C = Context<WebEnv>;

/** What a finished write says on the page it returns to; a fixed text per action, never user input. */
const DONE: Record<string, string> = {
  annotated: 'Annotation saved.',
  state: 'State set.',
  discarded: 'Capture discarded.',
  redacted: 'Capture redacted: its text is gone.',
  promoted: 'Capture promoted to an item.',
  accepted: 'Term accepted.',
  rejected: 'Term rejected.',
};

/**
 * The web view (docs/decisions/0031): server-rendered pages at / over the same operation catalog as REST and
 * MCP, called through service.call with source 'http' and the X-Actor header, so validation, attribution,
 * transactions and audit are the runner's. Form posts are guarded by hono's csrf middleware (same origin) and
 * a double-submit token; every page carries a strict Content-Security-Policy.
 */
export function mountWeb(app: Hono<WebEnv>, service: Service, status: Record<ErrorCode, ContentfulStatusCode>): void {
  const log = service.logger;
  const call = <Op extends AnyOperation>(c: C, op: Op, input: InputOf<Op>): Promise<OutputOf<Op>> =>
    service.call(op, input, { source: 'http', actorId: c.req.header('x-actor'), requestId: c.get('requestId') });

  const actorOf = (c: C): string | undefined => c.req.header('x-actor')?.trim() || service.defaultActorId?.trim() || undefined;

  const pageContext = (c: C, extra: Partial<PageContext> = {}): PageContext => {
    const done = c.req.query('done');
    return {
      actor: actorOf(c),
      token: formToken(c),
      notice: done && Object.hasOwn(DONE, done) ? { kind: 'done', text: DONE[done] as string } : undefined,
      ...extra,
    };
  };

  const render = async (c: C, node: JSX.Element, code: ContentfulStatusCode = 200) => {
    pageHeaders(c);
    return c.html(`<!doctype html>${await node}`, code);
  };

  const fail = (c: C, error: unknown, extra: Partial<PageContext> = {}, back?: string) => {
    if (isSvcError(error)) {
      const code = status[error.code];
      return render(c, <ErrorPage ctx={pageContext(c, extra)} title={code === 404 ? 'Not found' : 'Refused'} message={error.message} back={back} />, code);
    }
    log.error({ err: error, requestId: c.get('requestId') }, 'web page failed');
    return render(
      c,
      <ErrorPage ctx={pageContext(c, extra)} title="Internal error" message={`internal error (request id ${c.get('requestId')})`} back={back} />,
      500,
    );
  };

  type ProjectInfo = Project & { systems: System[] };
  const projectOf = (c: C) => call(c, ops.project_show, { project_id: c.req.param('project') ?? '' });
  const nav = (project: ProjectInfo, section: PageContext['section']) => ({ project: { slug: project.slug, name: project.name }, section });
  /**
   * A page of one project: `page` renders it once the project is read; a refusal becomes the error page, in
   * the project's navigation (at `section`) when the project was found, with a link to `back` if given.
   */
  const projectPage = (
    path: string,
    section: PageContext['section'],
    page: (c: C, project: ProjectInfo) => Promise<Response>,
    back?: (project: ProjectInfo) => string,
  ) =>
    app.get(path, async (c) => {
      let project: ProjectInfo | undefined;
      try {
        project = await projectOf(c);
        return await page(c, project);
      } catch (error) {
        return fail(c, error, project ? nav(project, section) : {}, project && back ? back(project) : undefined);
      }
    });

  // ---- static assets: named by content hash, cached for a year ----
  app.get('/static/:hash/:file', (c) => {
    const asset = c.req.param('file') === 'app.css' ? STATIC.css : c.req.param('file') === 'app.js' ? STATIC.js : undefined;
    if (!asset || asset.hash !== c.req.param('hash')) return c.text('no such asset', 404);
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(asset.body, 200, { 'Content-Type': asset.type });
  });

  // ---- the guard of every form post: same origin (hono's csrf), a form body, and the token ----
  const sameOriginOnly = csrf({ origin: sameOrigin, secFetchSite: 'same-origin' });
  const guard = async (c: C, next: () => Promise<void>) => {
    const refuse = (message: string) =>
      render(c, <ErrorPage ctx={{ actor: undefined, token: '' }} title="Refused" message={message} />, 403);
    try {
      await sameOriginOnly(c, async () => {});
    } catch (error) {
      if (error instanceof HTTPException) return refuse('This form was not sent from a page of this site (Origin check failed).');
      throw error;
    }
    if (!isWebFormPost(c.req.method, c.req.path, c.req.header('content-type'))) {
      return render(
        c,
        <ErrorPage ctx={{ actor: undefined, token: '' }} title="Refused" message="content-type: the web forms take application/x-www-form-urlencoded" />,
        415,
      );
    }
    const form = await c.req.parseBody();
    if (!tokenMatches(c, form[TOKEN_FIELD])) return refuse('The form token is missing or does not match: reload the page and send the form again.');
    return next();
  };
  for (const prefix of WEB_FORM_PREFIXES) app.post(`${prefix}*`, guard);

  const field = async (c: C, name: string): Promise<string> => {
    const value = (await c.req.parseBody())[name];
    return typeof value === 'string' ? value : '';
  };

  /** A form action: run the write, then back to the page it came from (Post/Redirect/Get). */
  const action = (path: string, run: (c: C, project: ProjectInfo) => Promise<string>, from = '') =>
    app.post(path, async (c) => {
      let project: ProjectInfo | undefined;
      try {
        project = await projectOf(c);
        const to = await run(c, project);
        return c.redirect(to, 303);
      } catch (error) {
        return fail(c, error, project ? nav(project, undefined) : {}, project ? projectPath(project.slug, from) : '/');
      }
    });

  // ---- pages ----
  app.get('/', async (c) => {
    try {
      const { projects, truncated } = await call(c, ops.project_list, { limit: 200 });
      return render(c, <ProjectsPage ctx={pageContext(c, { section: 'projects' })} projects={projects} truncated={truncated} />);
    } catch (error) {
      return fail(c, error);
    }
  });

  app.get('/p/:project', async (c) => {
    try {
      const project = await projectOf(c);
      const brief = await call(c, ops.svc_brief, {
        project_id: project.id,
      });
      return render(
        c,
        <HomePage ctx={pageContext(c, nav(project, 'home'))} slug={project.slug} briefMarkdown={briefMarkdown(brief)} recent={brief.recent_items} />,
      );
    } catch (error) {
      return fail(c, error);
    }
  });

  projectPage('/p/:project/search', 'search', async (c, project) => {
    const { types } = await call(c, ops.type_list, {});
    const query = c.req.query('q') ?? '';
    const type = c.req.query('type') || undefined;
    const system = c.req.query('system') || undefined;
    const base = {
      slug: project.slug,
      query,
      types: types.map((t) => t.key),
      systems: project.systems,
      type,
      system,
    };
    if (query.trim() === '') return render(c, <SearchPage ctx={pageContext(c, nav(project, 'search'))} {...base} found={null} />);
    try {
      const found = await call(c, ops.svc_item_search,
        { project_id: project.id, query, item_types: type ? [type] : undefined, system_ids: system ? [system] : undefined, limit: 20 },
      );
      return render(c, <SearchPage ctx={pageContext(c, nav(project, 'search'))} {...base} found={found} />);
    } catch (error) {
      if (!isSvcError(error) || error.code !== 'invalid_input') throw error;
      // Named as the form names it: the operation's `item_types[0]` is the form's one `type` (a newcomer read it as a
      // field they had not filled in).
      const text = error.message.replace(/^item_types\[0\]:/, 'type:').replace(/^system_ids\[0\]:/, 'system:');
      const ctx = pageContext(c, { ...nav(project, 'search'), notice: { kind: 'error', text } });
      return render(c, <SearchPage ctx={ctx} {...base} found={null} />, 400);
    }
  });

  projectPage('/p/:project/items/:id', undefined, async (c, project) => {
    const ref = c.req.param('id') ?? '';
    // item_show answers the chain's head for the id of any of its versions (and refuses an unknown one).
    const shown = await call(c, ops.item_show, { project_id: project.id, item_id: ref });
    const current = shown.item;
    const history = await call(c, ops.item_history, {
      project_id: project.id,
      item_id: current.id,
    });
    const headId = history.head_id ?? current.id;
    // A deleted item is left out of every traversal (svc_impact does not start from one): its page lists the links
    // item_show keeps for it instead, the ones the Checks page reports as dangling.
    const deleted = current.deleted_at !== null;
    const neighbours = (direction: 'outgoing' | 'incoming') =>
      deleted ? null : call(c, ops.svc_impact, { project_id: project.id, item_id: headId, depth: 1, direction }).then((r) => r.reachable);
    const [outgoing, incoming, targeting, stale] = await Promise.all([
      neighbours('outgoing'),
      neighbours('incoming'),
      call(c, ops.qa_list, { project_id: project.id, item_id: headId, limit: 100 }),
      call(c, ops.svc_check, { project_id: project.id, rule: 'qa-passed-on-superseded-target' }),
    ]);
    // Stale: the check passed before this item changed (the rule's findings name the check, then its target).
    const staleIds = new Set(stale.results.flatMap((r) => r.findings).flatMap((f) => (f.items[1]?.id === headId && f.items[0] ? [f.items[0].id] : [])));
    const staleKnown = stale.results.length > 0 && stale.results.every((r) => !r.truncated);
    const qa = {
      checks: targeting.qa_checks.map((q) => ({ id: q.id, title: q.title, status: q.status ?? 'pending', stale: staleIds.has(q.id) })),
      truncated: targeting.truncated,
      staleKnown,
    };
    const versions = [...history.versions].sort((a, b) => a.version - b.version);
    const byVersion = (v: string | undefined) => (v && /^\d+$/.test(v) ? versions.find((x) => x.version === Number(v)) : undefined);
    const head = versions.find((v) => v.id === headId) ?? current;
    // The version the URL names, with its own content, from item_history's versions (each a whole row). A version
    // older than the ones it lists (it lists the newest) is not among them: the page then shows the current one and says so.
    const wanted = ref.trim().toLowerCase();
    const named = versions.filter((v) => v.id === wanted);
    const matching = named.length > 0 ? named : versions.filter((v) => v.id.startsWith(wanted));
    const item = matching.length === 1 ? (matching[0] ?? head) : head;
    const unlisted = matching.length === 0 && history.truncated;
    const previous = versions.filter((v) => v.version < head.version).at(-1);
    const from = byVersion(c.req.query('from')) ?? previous;
    const to = byVersion(c.req.query('to')) ?? head;
    return render(
      c,
      <ItemPage
        ctx={pageContext(c, nav(project, undefined))}
        slug={project.slug}
        item={item}
        systemName={project.systems.find((s) => s.id === item.system_id)?.name}
        versions={versions}
        entries={history.entries}
        historyCut={history.truncated}
        unlisted={unlisted}
        links={
          outgoing && incoming
            ? { kind: 'live', outgoing, incoming }
            : { kind: 'deleted', chainId: current.chain_id, links: shown.links, truncated: shown.truncated }
        }
        qa={qa}
        compare={from && to && versions.length > 1 ? { from, to } : null}
      />,
    );
  });

  projectPage('/p/:project/impact/:id', undefined, async (c, project) => {
    const depth = c.req.query('depth') ?? '2';
    const direction = c.req.query('direction') ?? 'incoming';
    // The page's own parameters, refused in its words (the operation would name its input, not the page's).
    const hops = Number(depth.trim());
    const way = IMPACT_DIRECTIONS.find((d) => d === direction);
    const refusal = !(/^\d+$/.test(depth.trim()) && hops >= 1 && hops <= MAX_IMPACT_DEPTH)
      ? `depth: the impact depth is a whole number from 1 to ${MAX_IMPACT_DEPTH}, not '${depth.slice(0, 40)}'.`
      : way === undefined
        ? `direction: the direction is ${IMPACT_DIRECTIONS.join(' or ')}, not '${direction.slice(0, 40)}'.`
        : undefined;
    if (refusal) {
      const back = projectPath(project.slug, `/impact/${encodeURIComponent(c.req.param('id') ?? '')}`);
      return render(c, <ErrorPage ctx={pageContext(c, nav(project, undefined))} title="Refused" message={refusal} back={back} />, 400);
    }
    const impact = await call(c, ops.svc_impact, {
      project_id: project.id,
      item_id: c.req.param('id') ?? '',
      depth: hops,
      direction: way,
    });
    return render(c, <ImpactPage ctx={pageContext(c, nav(project, undefined))} slug={project.slug} impact={impact} />);
  });

  projectPage('/p/:project/work', 'work', async (c, project) => {
    const keyword = (c.req.query('keyword') ?? '').trim();
    const resume = await call(c, ops.svc_work_resume, { project_id: project.id, keyword: keyword || undefined });
    // svc_work_resume lists tasks by sort_order, at most 200 in all: a unit whose list was cut may have its task in
    // progress among those left out. Ask for it then, so the board never says "nothing" for want of a row.
    const missing = resume.work_units.filter((u) => u.truncated.tasks && !resume.tasks.some((t) => t.work_unit_id === u.id && t.status === 'in_progress'));
    const running = await Promise.all(
      missing.map(async (u) => (await call(c, ops.svc_task_list, { work_unit_id: u.id, project_id: project.id, status: 'in_progress', limit: 1 })).tasks),
    );
    return render(
      c,
      <WorkPage
        ctx={pageContext(c, nav(project, 'work'))}
        slug={project.slug}
        keyword={keyword}
        units={resume.work_units}
        tasks={[...resume.tasks, ...running.flat()]}
        qa={resume.qa_checks}
      />,
    );
  });

  // ---- the capture inboxes: a project's at /p/{project}/inbox, the shared one (captures of no project) at /inbox ----
  /** The inbox a URL names: its project's when it names one, else the shared inbox. */
  interface Inbox {
    /** Undefined: the shared inbox. */
    project: ProjectInfo | undefined;
    kind: InboxKind;
    nav: Partial<PageContext>;
  }
  const inboxOf = async (c: C): Promise<Inbox> => {
    if (c.req.param('project') === undefined) {
      // The shared inbox's promote form names the project; the list also names the project of a promoted capture.
      const { projects, truncated } = await call(c, ops.project_list, { limit: 200 });
      return { project: undefined, kind: { kind: 'shared', projects, projectsCut: truncated }, nav: { section: 'shared-inbox' } };
    }
    const project = await projectOf(c);
    return { project, kind: { kind: 'project', slug: project.slug }, nav: nav(project, 'inbox') };
  };

  const listCaptures = (c: C, inbox: Inbox, state: CaptureState) => {
    const filters = { review_state: state, include_discarded: state === 'discarded', include_redacted: state === 'redacted', limit: 200 };
    return inbox.project ? call(c, ops.svc_capture_list, { project_id: inbox.project.id, ...filters }) : call(c, ops.inbox_list, filters);
  };

  /** The capture the URL names, read by id in the URL's inbox only: one of another project (or of another inbox) is not found here. */
  const captureOf = (c: C, inbox: Inbox) => {
    const capture_id = c.req.param('capture') ?? '';
    return inbox.project ? call(c, ops.capture_show, { project_id: inbox.project.id, capture_id }) : call(c, ops.inbox_show, { capture_id });
  };

  /** A page of an inbox: a refusal becomes the error page in the inbox's navigation, with a link back to it. */
  const inboxPage = (path: string, page: (c: C, inbox: Inbox) => Promise<Response>) =>
    app.get(path, async (c) => {
      let inbox: Inbox | undefined;
      try {
        inbox = await inboxOf(c);
        return await page(c, inbox);
      } catch (error) {
        return fail(c, error, inbox?.nav ?? {}, inbox ? inboxPath(inbox.kind) : undefined);
      }
    });

  /** An inbox's form action: run the write, then back to the inbox (Post/Redirect/Get), or to where `run` says. */
  const inboxAction = (path: string, run: (c: C, inbox: Inbox, capture: string) => Promise<string>) =>
    app.post(path, async (c) => {
      let inbox: Inbox | undefined;
      try {
        inbox = await inboxOf(c);
        // The id of the capture the URL names, once it is known to be in the URL's inbox.
        const capture = (await captureOf(c, inbox)).id;
        return c.redirect(await run(c, inbox, capture), 303);
      } catch (error) {
        return fail(c, error, inbox?.nav ?? {}, inbox ? inboxPath(inbox.kind) : '/');
      }
    });

  const done = (inbox: Inbox, what: string) => `${inboxPath(inbox.kind)}?done=${what}`;

  for (const base of ['/p/:project/inbox', '/inbox']) {
    inboxPage(base, async (c, inbox) => {
      const wanted = c.req.query('state');
      const state = CAPTURE_STATES.find((s) => s === wanted) ?? 'inbox';
      const [{ captures, truncated }, { types }] = await Promise.all([listCaptures(c, inbox, state), call(c, ops.type_list, {})]);
      // Tasks need an open work unit and QA checks their own tools: promotion offers the other types.
      const promotable = types.map((t) => t.key).filter((k) => k !== 'task' && k !== 'qa_check');
      return render(
        c,
        <InboxPage ctx={pageContext(c, inbox.nav)} inbox={inbox.kind} state={state} captures={captures} truncated={truncated} types={promotable} />,
      );
    });

    inboxPage(`${base}/:capture/redact`, async (c, inbox) => {
      const capture = await captureOf(c, inbox);
      // What the redaction would be refused for (already redacted) is refused now, in the capture table's words.
      captureTransition(capture, 'redact');
      let promotedTitle: string | undefined;
      if (capture.promoted_item_id) {
        // A capture of the shared inbox may have gone into any project: its item is read by id alone.
        promotedTitle = (await call(c, ops.item_show, { project_id: inbox.project?.id, item_id: capture.promoted_item_id })).item.title;
      }
      return render(c, <RedactConfirmPage ctx={pageContext(c, inbox.nav)} inbox={inbox.kind} capture={capture} promotedTitle={promotedTitle} />);
    });

    inboxAction(`${base}/:capture/annotate`, async (c, inbox, capture_id) => {
      const summary = await field(c, 'summary');
      const sensitivity = await field(c, 'sensitivity_hint');
      await call(c, ops.svc_capture_annotate, {
        capture_id,
        summary: summary.trim() === '' ? null : summary,
        sensitivity_hint: sensitivity.trim() === '' ? null : sensitivity.trim(),
      });
      return done(inbox, 'annotated');
    });
    inboxAction(`${base}/:capture/state`, async (c, inbox, capture_id) => {
      await call(c, ops.svc_capture_set_state, { capture_id, review_state: await field(c, 'review_state') });
      return done(inbox, 'state');
    });
    inboxAction(`${base}/:capture/discard`, async (c, inbox, capture_id) => {
      await call(c, ops.svc_capture_discard, { capture_id });
      return done(inbox, 'discarded');
    });
    inboxAction(`${base}/:capture/redact`, async (c, inbox, capture_id) => {
      await call(c, ops.svc_capture_redact, { capture_id });
      return done(inbox, 'redacted');
    });
    inboxAction(`${base}/:capture/promote`, async (c, inbox, capture_id) => {
      // A project's capture goes into its project; one of the shared inbox into the project its form names (a slug;
      // the operation refuses a missing or unknown one, naming project_id).
      const into = inbox.project?.slug ?? (await field(c, 'project_id')).trim();
      const promoted = await call(c, ops.svc_capture_promote, {
        capture_id,
        project_id: into,
        title: await field(c, 'title'),
        item_type: await field(c, 'item_type'),
        body: await field(c, 'body'),
        // Research needs one (the operation names source_url when it is missing); any other type may carry one.
        source_url: (await field(c, 'source_url')).trim() || undefined,
      });
      const itemId = promoted.item_id;
      return itemId ? `${projectPath(into, `/items/${encodeURIComponent(itemId)}`)}?done=promoted` : done(inbox, 'promoted');
    });
  }

  const back = (project: ProjectInfo, path: string, done: string) => `${projectPath(project.slug, path)}?done=${done}`;

  projectPage('/p/:project/glossary', 'glossary', async (c, project) => {
    const [list, queue] = await Promise.all([
      call(c, ops.glossary_list,
        { project_id: project.id, limit: 200 },
      ),
      call(c, ops.glossary_queue, { project_id: project.id, limit: 200 }),
    ]);
    return render(
      c,
      <GlossaryPage
        ctx={pageContext(c, nav(project, 'glossary'))}
        slug={project.slug}
        groups={list.groups}
        groupsCut={list.truncated}
        queue={queue.terms}
        queueCut={queue.truncated}
      />,
    );
  });

  action('/p/:project/glossary/:term/accept', async (c, project) => {
    await call(c, ops.glossary_term_accept, { project_id: project.id, term_id: c.req.param('term') ?? '' });
    return back(project, '/glossary', 'accepted');
  }, '/glossary');
  action('/p/:project/glossary/:term/reject', async (c, project) => {
    await call(c, ops.glossary_term_reject, { project_id: project.id, term_id: c.req.param('term') ?? '', reason: await field(c, 'reason') });
    return back(project, '/glossary', 'rejected');
  }, '/glossary');

  projectPage('/p/:project/checks', 'checks', async (c, project) => {
    const wanted = c.req.query('severity');
    const severity = SEVERITIES.find((s) => s === wanted) ?? 'info';
    const checked = await call(c, ops.svc_check, { project_id: project.id, severity });
    return render(
      c,
      <ChecksPage ctx={pageContext(c, nav(project, 'checks'))} slug={project.slug} severity={severity} results={checked.results} counts={checked.counts} />,
    );
  });
}

/**
 * A form post over the body limit gets a page, not REST's JSON error: the browser shows what it is answered
 * (the limit check runs before the web routes, in app.ts).
 */
export async function webPayloadTooLarge(c: Context, maxBytes: number): Promise<Response> {
  pageHeaders(c);
  const message = `The form is larger than this server takes (${Math.floor(maxBytes / 1024)} KiB): shorten the text and send it again.`;
  return c.html(`<!doctype html>${await (<ErrorPage ctx={{ actor: undefined, token: '' }} title="Too large" message={message} />)}`, 413);
}

/** svc_brief's own markdown presentation (what MCP shows), rendered on the home page. */
function briefMarkdown(brief: OutputOf<typeof ops.svc_brief>): string {
  const presentation = ops.svc_brief.presentation;
  return presentation?.kind === 'markdown' ? presentation.render(brief) : `\`\`\`json\n${JSON.stringify(brief, null, 2)}\n\`\`\``;
}
