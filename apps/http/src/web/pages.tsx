// @jsxRuntime automatic
// @jsxImportSource hono/jsx
import {
  CAPTURE_MOVABLE_STATES,
  CAPTURE_STATES,
  MAX_IMPACT_DEPTH,
  type OutputOf,
  type ops,
  SEVERITIES,
  shortId,
  snippetParts,
  type TaskStatus,
} from '@svc/service';
import { raw } from 'hono/html';
import { DiffTable } from './diff.js';
import { type GraphEdge, type GraphNode, ImpactGraph } from './graph.js';
import { Layout, type PageContext, projectPath, Token, when } from './layout.js';
import { renderMarkdown } from './markdown.js';

// The shapes the catalog's operations answer with: a renamed or retyped field fails to compile here.
export type Project = OutputOf<typeof ops.project_list>['projects'][number];
export type System = OutputOf<typeof ops.project_show>['systems'][number];
type Item = OutputOf<typeof ops.item_show>['item'];
type Versions = OutputOf<typeof ops.item_history>;
type Reached = OutputOf<typeof ops.svc_impact>['reachable'][number];
type StoredLink = OutputOf<typeof ops.item_show>['links'][number];
/**
 * An item's links: for a live item its neighbours as svc_impact reaches them (live items, with titles); for a
 * deleted one, which no traversal starts from, the links item_show keeps for it (the Checks page's dangling ones).
 */
export type ItemLinks =
  | { kind: 'live'; outgoing: Reached[]; incoming: Reached[] }
  | { kind: 'deleted'; chainId: string; links: StoredLink[]; truncated: boolean };
type Impact = OutputOf<typeof ops.svc_impact>;
export type Capture = OutputOf<typeof ops.capture_show>;
type RuleResult = OutputOf<typeof ops.svc_check>['results'][number];

/** Findings name items, and also glossary terms and work units, which have no item page. */
const NOT_ITEMS = new Set(['glossary_term', 'work_unit']);

function itemHref(slug: string, id: string): string {
  return projectPath(slug, `/items/${encodeURIComponent(id)}`);
}

/** The options of a select, from one of the domain's lists; `selected` is preselected. */
function Options(props: { values: readonly string[]; selected: string }) {
  return (
    <>
      {props.values.map((v) => (
        <option value={v} selected={v === props.selected}>
          {v}
        </option>
      ))}
    </>
  );
}

/** QA checks as links to their items, each with its status. */
function QaList(props: { slug: string; checks: readonly { id: string; title: string; status: string | null }[] }) {
  return (
    <ul>
      {props.checks.map((q) => (
        <li>
          <a href={itemHref(props.slug, q.id)}>{q.title}</a> <span class="tag">{q.status}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * Said where a page shows a list the operation cut (its answer's `truncated`): the page never passes a cut list
 * off as the whole one. The work board's notes are of the same kind.
 */
function Cut(props: { id: string; children: string }) {
  return (
    <p class="notice" id={props.id}>
      {props.children}
    </p>
  );
}

/** An item in a list: its title linking to its page (the list's keyboard focus), then its type. */
function ItemLink(props: { slug: string; item: { id: string; title: string; item_type: string } }) {
  return (
    <>
      <a href={itemHref(props.slug, props.item.id)} data-nav-focus>
        {props.item.title}
      </a>{' '}
      <span class="tag">{props.item.item_type}</span>
    </>
  );
}

/** Stored text as markdown: raw HTML off, only http(s)/mailto links (see markdown.ts). */
function Markdown(props: { text: string }) {
  return <div class="prose">{raw(renderMarkdown(props.text))}</div>;
}

/**
 * A search snippet: svc_item_search writes each matched word `**word**` (ts_headline; a synonym from the glossary
 * or another form of the word as much as the word itself) and escapes the body's own asterisks, so a body's
 * `**bold**` is text here, as written, and only a match is a <mark>.
 */
function Snippet(props: { text: string }) {
  return <p class="muted">{snippetParts(props.text).map((part) => (part.match ? <mark>{part.text}</mark> : part.text))}</p>;
}

function SafeLink(props: { url: string }) {
  return /^https?:\/\//i.test(props.url) ? (
    <a href={props.url} rel="noopener noreferrer nofollow">
      {props.url}
    </a>
  ) : (
    <code>{props.url}</code>
  );
}

export function ProjectsPage(props: { ctx: PageContext; projects: Project[]; truncated: boolean }) {
  return (
    <Layout ctx={props.ctx} title="Projects">
      <h1>Projects</h1>
      {props.projects.length === 0 ? (
        <p>
          No projects yet: <code>svc project create SLUG</code> makes one.
        </p>
      ) : (
        <ul class="cards" data-nav>
          {props.projects.map((p) => (
            <li>
              <a href={projectPath(p.slug)} data-nav-focus>
                {p.name}
              </a>{' '}
              <span class="muted">
                ({p.slug}, since {when(p.created_at)})
              </span>
            </li>
          ))}
        </ul>
      )}
      {props.truncated ? <Cut id="projects-cut">{`More projects exist than the ${props.projects.length} listed here.`}</Cut> : null}
      <p class="muted">
        Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous entry in a list, <kbd>/</kbd> search.
      </p>
    </Layout>
  );
}

export function HomePage(props: {
  ctx: PageContext;
  slug: string;
  briefMarkdown: string;
  recent: { id: string; title: string; item_type: string; version: number; updated_at: string }[];
}) {
  return (
    <Layout ctx={props.ctx} title="Home">
      <h1>{props.ctx.project?.name}</h1>
      <SearchForm slug={props.slug} query="" types={[]} systems={[]} />
      <section aria-labelledby="brief-h">
        <h2 id="brief-h">Brief</h2>
        <Markdown text={props.briefMarkdown} />
      </section>
      <section aria-labelledby="recent-h">
        <h2 id="recent-h">Recent items</h2>
        <ul class="cards" data-nav>
          {props.recent.map((item) => (
            <li>
              <ItemLink slug={props.slug} item={item} />
              <span class="muted">
                v{item.version}, {when(item.updated_at)}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </Layout>
  );
}

function SearchForm(props: {
  slug: string;
  query: string;
  types: string[];
  systems: System[];
  type?: string | undefined;
  system?: string | undefined;
}) {
  return (
    <form method="get" action={projectPath(props.slug, '/search')} class="stack" aria-label="Search items">
      <label for="q">Search items</label>
      <input id="q" type="search" name="q" value={props.query} placeholder='e.g. postgres -mysql "read replica"' />
      {props.types.length > 0 ? (
        <>
          <label for="type">Type</label>
          <select id="type" name="type">
            <option value="">any type</option>
            {props.types.map((t) => (
              <option value={t} selected={t === props.type}>
                {t}
              </option>
            ))}
          </select>
        </>
      ) : null}
      {props.systems.length > 0 ? (
        <>
          <label for="system">System</label>
          <select id="system" name="system">
            <option value="">any system</option>
            {props.systems.map((s) => (
              <option value={s.id} selected={s.id === props.system}>
                {s.name}
              </option>
            ))}
          </select>
        </>
      ) : null}
      <div>
        <button type="submit">Search</button>
      </div>
    </form>
  );
}

export function SearchPage(props: {
  ctx: PageContext;
  slug: string;
  query: string;
  types: string[];
  systems: System[];
  type?: string | undefined;
  system?: string | undefined;
  found: OutputOf<typeof ops.svc_item_search> | null;
}) {
  const found = props.found;
  const cuts = found?.truncated || [];
  return (
    <Layout ctx={props.ctx} title={props.query ? `Search: ${props.query}` : 'Search'}>
      <h1>Search</h1>
      <SearchForm {...props} />
      <p class="muted">
        The query dialect: words (all must match), <code>"a phrase"</code>, <code>-word</code> to exclude, <code>a OR b</code> (or <code>a or b</code>); accepted glossary terms expand to their group.
      </p>
      {found === null ? null : (
        <section aria-labelledby="results-h">
          <h2 id="results-h">
            {found.items.length} result{found.items.length === 1 ? '' : 's'}
            {cuts.includes('limit') ? ' (more not shown)' : ''}
          </h2>
          {found.expansion_cut || cuts.includes('glossary_expansion') ? (
            <p class="muted" id="expansion-cut">
              Some glossary synonyms of the query were left out of the search (too many to expand).
            </p>
          ) : null}
          <ul class="cards" data-nav>
            {found.items.map((r) => (
              <li>
                <ItemLink slug={props.slug} item={r} /> <span class="muted">{when(r.updated_at)}</span>
                <Snippet text={r.snippet} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {found?.partial && found.partial.length > 0 ? (
        <section aria-labelledby="near-h">
          <h2 id="near-h">Near misses</h2>
          <p class="muted">
            Items holding at least half but not all of the words, most first.
            {cuts.includes('partial') ? ' Too many items hold the words to look at them all: some near misses may be missing.' : ''}
          </p>
          <ul class="cards" data-nav id="near-misses">
            {found.partial.map((r) => (
              <li>
                <ItemLink slug={props.slug} item={r} /> <span class="muted">lacks: {r.missing.join(', ')}</span>
                <Snippet text={r.snippet} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </Layout>
  );
}

function LinkList(props: { slug: string; reached: Reached[]; empty: string }) {
  if (props.reached.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <ul>
      {props.reached.map((r) => (
        <li>
          <span class="tag">{r.link_type}</span> <a href={itemHref(props.slug, r.id)}>{r.title}</a>{' '}
          <span class="muted">
            {r.item_type}
            {r.status ? `, ${r.status}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** A deleted item's stored links, one direction: each names the other item by id (its title is not read here). */
function StoredLinkList(props: { slug: string; links: StoredLink[]; other: (link: StoredLink) => string; empty: string }) {
  if (props.links.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <ul>
      {props.links.map((link) => (
        <li>
          <span class="tag">{link.link_type}</span> <a href={itemHref(props.slug, props.other(link))}>item {shortId(props.other(link))}</a>
        </li>
      ))}
    </ul>
  );
}

function contextText(context: Record<string, unknown>): string {
  return Object.keys(context).length === 0 ? '' : JSON.stringify(context, null, 2);
}

export function ItemPage(props: {
  ctx: PageContext;
  slug: string;
  item: Item;
  systemName: string | undefined;
  versions: Versions['versions'];
  entries: Versions['entries'];
  /** item_history's own: more versions or history entries than it lists. */
  historyCut: boolean;
  /** The URL named a version older than those listed: `item` is the current one instead. */
  unlisted: boolean;
  links: ItemLinks;
  qa: { checks: { id: string; title: string; status: string; stale: boolean }[]; truncated: boolean; staleKnown: boolean };
  compare: { from: Item; to: Item } | null;
}) {
  const { item, slug } = props;
  const impactsByVersion = new Map<number, string[]>();
  for (const entry of props.entries) {
    impactsByVersion.set(entry.version, [...(impactsByVersion.get(entry.version) ?? []), ...entry.semantic_impacts]);
  }
  const head = props.versions.find((v) => v.is_head) ?? item;
  return (
    <Layout ctx={props.ctx} title={item.title}>
      <h1>{item.title}</h1>
      <p>
        <span class="tag">{item.item_type}</span>
        {item.status ? <span class="tag">{item.status}</span> : null}
        {props.systemName ? <span class="tag">system: {props.systemName}</span> : null}
        <span class="muted">
          version {item.version}
          {item.is_head ? ' (current)' : ` (superseded; current is v${head.version})`}, {when(item.updated_at)}
        </span>
      </p>
      {!item.is_head ? (
        <p class="notice" id="old-version">
          This is an old version. <a href={itemHref(slug, head.id)}>Open the current version</a>.
        </p>
      ) : null}
      {props.unlisted ? (
        <p class="notice" id="version-unlisted">
          The link names a version older than the {props.versions.length} listed below, which this page cannot show: this is the current version.
        </p>
      ) : null}
      {head.deleted_at ? (
        <p class="notice" id="deleted">
          This item is deleted ({when(head.deleted_at)}): search, the brief, the work board and the impact graph leave it out.{' '}
          <code>svc item restore {head.id} --project {slug}</code> brings it back.
        </p>
      ) : (
        <p>
          <a href={projectPath(slug, `/impact/${encodeURIComponent(head.id)}`)}>Impact graph</a>
        </p>
      )}
      <section aria-labelledby="body-h">
        <h2 id="body-h">Body</h2>
        {item.body ? <Markdown text={item.body} /> : <p class="muted">(no body)</p>}
        {contextText(item.context) ? (
          <>
            <h3>Context</h3>
            <pre>{contextText(item.context)}</pre>
          </>
        ) : null}
        {item.source_url ? (
          <p>
            Source: <SafeLink url={item.source_url} />
          </p>
        ) : null}
      </section>
      <section aria-labelledby="chain-h">
        <h2 id="chain-h">Versions</h2>
        <ol>
          {props.versions.map((v) => (
            <li>
              <a href={itemHref(slug, v.id)} aria-current={v.id === item.id ? 'page' : undefined}>
                v{v.version}
              </a>{' '}
              {v.title !== item.title ? <span>“{v.title}” </span> : null}
              <span class="muted">{when(v.updated_at)}</span>{' '}
              {(impactsByVersion.get(v.version) ?? []).map((impact) => (
                <span class="tag">{impact}</span>
              ))}
              {v.is_head ? <span class="tag">current</span> : null}
            </li>
          ))}
        </ol>
        {props.historyCut ? (
          <Cut id="history-cut">{`Only the newest ${props.versions.length} versions and history entries are listed: older ones are left out.`}</Cut>
        ) : null}
        {props.versions.length > 1 ? (
          <form method="get" action={itemHref(slug, item.id)} class="actions" aria-label="Compare two versions">
            <label for="from">Compare</label>
            <select id="from" name="from">
              {props.versions.map((v) => (
                <option value={String(v.version)} selected={props.compare ? v.version === props.compare.from.version : v.version === head.version - 1}>
                  v{v.version}
                </option>
              ))}
            </select>
            <label for="to">with</label>
            <select id="to" name="to">
              {props.versions.map((v) => (
                <option value={String(v.version)} selected={props.compare ? v.version === props.compare.to.version : v.version === head.version}>
                  v{v.version}
                </option>
              ))}
            </select>
            <button type="submit">Compare</button>
          </form>
        ) : null}
        {props.compare ? <Compare from={props.compare.from} to={props.compare.to} /> : null}
      </section>
      <section aria-labelledby="links-h">
        <h2 id="links-h">Links</h2>
        {props.links.kind === 'live' ? (
          <>
            <h3>Out (this item → others)</h3>
            <LinkList slug={slug} reached={props.links.outgoing} empty="No links out." />
            <h3>In (others → this item)</h3>
            <LinkList slug={slug} reached={props.links.incoming} empty="No links in." />
          </>
        ) : (
          <DeletedLinks slug={slug} {...props.links} />
        )}
      </section>
      <section aria-labelledby="qa-h">
        <h2 id="qa-h">QA checks targeting it</h2>
        {props.qa.checks.length === 0 ? <p class="muted">No QA check targets it.</p> : null}
        <ul id="qa-checks">
          {props.qa.checks.map((q) => (
            <li>
              <a href={itemHref(slug, q.id)}>{q.title}</a> <span class="tag">{q.status}</span>
              {q.stale ? (
                <span class="tag stale">stale: this item changed after the check passed</span>
              ) : q.status === 'passed' && props.qa.staleKnown ? (
                <span class="tag">not stale</span>
              ) : null}
            </li>
          ))}
        </ul>
        {props.qa.truncated ? <p class="muted">More QA checks target it than are listed here.</p> : null}
        {props.qa.checks.some((q) => q.status === 'passed') && !props.qa.staleKnown ? (
          <p class="muted">Whether a passed check is stale is not known here: the rule qa-passed-on-superseded-target is disabled or had too many findings.</p>
        ) : null}
      </section>
    </Layout>
  );
}

function DeletedLinks(props: { slug: string; chainId: string; links: StoredLink[]; truncated: boolean }) {
  const { slug, chainId } = props;
  return (
    <>
      <p class="muted">
        The links of a deleted item are kept (the Checks page reports them as dangling): remove them with <code>svc link remove</code>, or
        restore the item.
      </p>
      <h3>Out (this item → others)</h3>
      <StoredLinkList slug={slug} links={props.links.filter((l) => l.from_chain_id === chainId)} other={(l) => l.to_chain_id} empty="No links out." />
      <h3>In (others → this item)</h3>
      <StoredLinkList slug={slug} links={props.links.filter((l) => l.to_chain_id === chainId)} other={(l) => l.from_chain_id} empty="No links in." />
      {props.truncated ? <Cut id="links-cut">{`More links touch it than the ${props.links.length} listed here.`}</Cut> : null}
    </>
  );
}

function Compare(props: { from: Item; to: Item }) {
  const l = `v${props.from.version}`;
  const r = `v${props.to.version}`;
  return (
    <section aria-labelledby="compare-h">
      <h3 id="compare-h">
        v{props.from.version} compared with v{props.to.version}
      </h3>
      <DiffTable field="Title" before={props.from.title} after={props.to.title} leftLabel={l} rightLabel={r} />
      <DiffTable field="Body" before={props.from.body ?? ''} after={props.to.body ?? ''} leftLabel={l} rightLabel={r} />
      <DiffTable field="Context" before={contextText(props.from.context)} after={contextText(props.to.context)} leftLabel={l} rightLabel={r} />
      <DiffTable field="Status" before={props.from.status ?? ''} after={props.to.status ?? ''} leftLabel={l} rightLabel={r} />
    </section>
  );
}

export function WorkPage(props: {
  ctx: PageContext;
  slug: string;
  keyword: string;
  units: {
    id: string;
    title: string;
    description: string;
    status: string;
    updated_at: string;
    truncated: { tasks: boolean; qa_checks: boolean; work_units: boolean };
  }[];
  tasks: Item[];
  qa: Item[];
}) {
  // The work board's order: what runs first, then what waits.
  const statuses: readonly TaskStatus[] = ['in_progress', 'proposed', 'blocked', 'done'];
  const { keyword, slug } = props;
  const moreUnits = props.units.some((u) => u.truncated.work_units);
  return (
    <Layout ctx={props.ctx} title="Work">
      <h1>Work board</h1>
      <form method="get" action={projectPath(slug, '/work')} class="actions" aria-label="Find work units">
        <label for="keyword">Work units whose title contains</label>
        <input id="keyword" type="search" name="keyword" value={keyword} />
        <button type="submit">Show</button>
      </form>
      <p class="muted">Open work units first, then the most recently active closed ones.</p>
      {props.units.length === 0 ? (
        <p id="work-empty">
          {keyword ? (
            <>No work unit has “{keyword}” in its title.</>
          ) : (
            <>
              No work units in this project yet: <code>svc work open</code> (or the svc_work_open tool) opens one.
            </>
          )}
        </p>
      ) : null}
      {moreUnits ? (
        <p class="notice" id="work-cut">
          More work units {keyword ? 'match' : 'exist'} than the {props.units.length} shown: narrow the list with a word of the title.
        </p>
      ) : null}
      {props.units.map((unit) => {
        const tasks = props.tasks.filter((t) => t.work_unit_id === unit.id);
        const qa = props.qa.filter((q) => q.work_unit_id === unit.id);
        // One task per work unit is in progress at most (svc_task_start enforces it).
        const inProgress = tasks.find((t) => t.status === 'in_progress');
        return (
          <section aria-labelledby={`wu-${unit.id}`}>
            <h2 id={`wu-${unit.id}`}>
              {unit.title} <span class="tag">{unit.status}</span>
            </h2>
            {unit.description ? <p>{unit.description}</p> : null}
            <p class="in-progress">
              In progress:{' '}
              {inProgress ? <a href={itemHref(slug, inProgress.id)}>{inProgress.title}</a> : <span class="muted">nothing</span>}
            </p>
            <div class="board">
              {statuses.map((status) => (
                <section aria-label={`${unit.title}: ${status.replace('_', ' ')}`}>
                  <h3>{status.replace('_', ' ')}</h3>
                  <ul class="cards" data-nav>
                    {tasks
                      .filter((t) => t.status === status)
                      .map((t) => (
                        <li>
                          <a href={itemHref(slug, t.id)} data-nav-focus>
                            {t.title}
                          </a>
                        </li>
                      ))}
                  </ul>
                </section>
              ))}
            </div>
            {unit.truncated.tasks ? <p class="notice">Not every task of this work unit is shown: the board holds a limited number of tasks in all.</p> : null}
            {qa.length > 0 ? (
              <>
                <h3>QA checks</h3>
                <QaList slug={slug} checks={qa} />
              </>
            ) : null}
            {unit.truncated.qa_checks ? <p class="notice">Not every QA check of this work unit is shown: the board holds a limited number of checks in all.</p> : null}
          </section>
        );
      })}
      {(() => {
        const loose = props.qa.filter((q) => !props.units.some((u) => u.id === q.work_unit_id));
        return loose.length === 0 ? null : (
          <section aria-labelledby="qa-loose">
            <h2 id="qa-loose">Other QA checks</h2>
            <QaList slug={slug} checks={loose} />
          </section>
        );
      })()}
    </Layout>
  );
}

/**
 * Which inbox a page shows: a project's (the captures filed under it) or the shared one (the captures of no
 * project, docs/decisions/0025), whose promote form asks which project the item goes into.
 */
export type InboxKind = { kind: 'project'; slug: string } | { kind: 'shared'; projects: Project[]; projectsCut: boolean };

/** The path of an inbox page, or of an action on one of its captures. */
export function inboxPath(inbox: InboxKind, capture?: string, verb?: string): string {
  const base = inbox.kind === 'project' ? projectPath(inbox.slug, '/inbox') : '/inbox';
  return capture === undefined ? base : `${base}/${encodeURIComponent(capture)}/${verb ?? ''}`;
}

/** The page of the item a capture was promoted into: in the inbox's project, or in the one the shared inbox names. */
function promotedHref(inbox: InboxKind, capture: Capture & { promoted_project_id?: string | null }): string | undefined {
  if (!capture.promoted_item_id) return undefined;
  if (inbox.kind === 'project') return itemHref(inbox.slug, capture.promoted_item_id);
  if (!capture.promoted_project_id) return undefined;
  // A project past the listed ones is named by its id, which /p/ takes as well as a slug.
  const slug = inbox.projects.find((p) => p.id === capture.promoted_project_id)?.slug ?? capture.promoted_project_id;
  return itemHref(slug, capture.promoted_item_id);
}

/** The shared inbox's promote form names the project: a choice of the listed ones, or (more than listed) a slug to type. */
function ProjectField(props: { id: string; projects: Project[]; cut: boolean }) {
  return props.cut ? (
    <>
      <label for={props.id}>Project (slug)</label>
      <input id={props.id} type="text" name="project_id" required list="project-slugs" data-key="promote" />
    </>
  ) : (
    <>
      <label for={props.id}>Project</label>
      <select id={props.id} name="project_id" required data-key="promote">
        <option value="">choose a project</option>
        {props.projects.map((p) => (
          <option value={p.slug}>{p.name === p.slug ? p.slug : `${p.name} (${p.slug})`}</option>
        ))}
      </select>
    </>
  );
}

export function InboxPage(props: {
  ctx: PageContext;
  inbox: InboxKind;
  state: string;
  captures: (Capture & { promoted_project_id?: string | null })[];
  truncated: boolean;
  types: string[];
}) {
  const { ctx, inbox } = props;
  const action = (capture: Capture, verb: string) => inboxPath(inbox, capture.id, verb);
  const shared = inbox.kind === 'shared';
  return (
    <Layout ctx={ctx} title={shared ? 'Shared inbox' : 'Inbox'}>
      <h1>{shared ? 'Shared inbox' : 'Capture inbox'}</h1>
      {shared ? (
        <p class="muted">
          Captures filed under no project (svc_capture_add without project_id). Promoting one makes an item of the project you choose; a
          capture filed under a project is triaged in that project's inbox.
        </p>
      ) : null}
      {inbox.kind === 'shared' && inbox.projectsCut && ctx.actor ? (
        <datalist id="project-slugs">
          {inbox.projects.map((p) => (
            <option value={p.slug} />
          ))}
        </datalist>
      ) : null}
      <form method="get" action={inboxPath(inbox)} class="actions">
        <label for="state">Show</label>
        <select id="state" name="state">
          <Options values={CAPTURE_STATES} selected={props.state} />
        </select>
        <button type="submit">Show</button>
      </form>
      {ctx.actor ? (
        <p class="muted">
          Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous capture, <kbd>a</kbd> annotate, <kbd>s</kbd> set state, <kbd>p</kbd> promote,{' '}
          <kbd>r</kbd> redact, <kbd>x</kbd> discard, <kbd>Esc</kbd> leave a field.
        </p>
      ) : null}
      {props.captures.length === 0 ? <p class="muted">Nothing here.</p> : null}
      {props.truncated ? <Cut id="inbox-cut">{`More captures are in this state than the ${props.captures.length} newest shown here.`}</Cut> : null}
      <ul class="cards" data-nav aria-label="Captures">
        {props.captures.map((capture, i) => (
          <li>
            <h2 id={`cap-${capture.id}`}>
              <a href={`#cap-${capture.id}`} data-nav-focus>
                Capture {i + 1}
              </a>{' '}
              <span class="tag">{capture.review_state}</span>
              {capture.sensitivity_hint ? <span class="tag">sensitivity: {capture.sensitivity_hint}</span> : null}
              <span class="muted">{when(capture.created_at)}</span>
            </h2>
            <pre>{capture.text}</pre>
            {capture.summary ? (
              <p>
                <strong>Summary:</strong> {capture.summary}
              </p>
            ) : null}
            {Object.keys(capture.signals ?? {}).length > 0 ? (
              <p>
                <strong>Signals:</strong> <code>{JSON.stringify(capture.signals)}</code>
              </p>
            ) : null}
            {capture.promoted_item_id ? (
              <p>
                Promoted to{' '}
                {promotedHref(inbox, capture) ? <a href={promotedHref(inbox, capture)}>an item</a> : <>an item ({shortId(capture.promoted_item_id)})</>}.
              </p>
            ) : null}
            {ctx.actor && capture.review_state !== 'redacted' ? (
              <div class="actions">
                <details>
                  <summary>Annotate</summary>
                  <form method="post" action={action(capture, 'annotate')} class="stack">
                    <Token ctx={ctx} />
                    <label for={`sum-${capture.id}`}>Summary</label>
                    <textarea id={`sum-${capture.id}`} name="summary" data-key="annotate">
                      {capture.summary ?? ''}
                    </textarea>
                    <label for={`sens-${capture.id}`}>Sensitivity hint</label>
                    <input id={`sens-${capture.id}`} type="text" name="sensitivity_hint" value={capture.sensitivity_hint ?? ''} />
                    <div>
                      <button type="submit">Save annotation</button>
                    </div>
                  </form>
                </details>
                <form method="post" action={action(capture, 'state')} class="actions">
                  <Token ctx={ctx} />
                  <label for={`state-${capture.id}`}>State</label>
                  <select id={`state-${capture.id}`} name="review_state" data-key="state">
                    <Options values={CAPTURE_MOVABLE_STATES} selected={capture.review_state} />
                  </select>
                  <button type="submit">Set state</button>
                </form>
                {capture.review_state !== 'promoted' ? (
                  <details>
                    <summary>Promote to an item</summary>
                    <form method="post" action={action(capture, 'promote')} class="stack">
                      <Token ctx={ctx} />
                      {inbox.kind === 'shared' ? <ProjectField id={`proj-${capture.id}`} projects={inbox.projects} cut={inbox.projectsCut} /> : null}
                      <label for={`title-${capture.id}`}>Title</label>
                      <input id={`title-${capture.id}`} type="text" name="title" required data-key={shared ? undefined : 'promote'} />
                      <label for={`type-${capture.id}`}>Type</label>
                      <select id={`type-${capture.id}`} name="item_type" data-type-select>
                        {props.types.map((t) => (
                          <option value={t} selected={t === 'knowledge'}>
                            {t}
                          </option>
                        ))}
                      </select>
                      <div class="stack" data-show-for-type="research">
                        <label for={`src-${capture.id}`}>Source URL (required for research)</label>
                        <input id={`src-${capture.id}`} type="url" name="source_url" placeholder="https://…" />
                      </div>
                      <label for={`body-${capture.id}`}>Body (empty: the capture text)</label>
                      <textarea id={`body-${capture.id}`} name="body" />
                      <div>
                        <button type="submit">Promote</button>
                      </div>
                    </form>
                  </details>
                ) : null}
                <form method="post" action={action(capture, 'discard')} class="inline" data-confirm="Discard this capture? (The text is kept; redact removes it.)">
                  <Token ctx={ctx} />
                  <button type="submit" data-key="discard">
                    Discard
                  </button>
                </form>
                <a href={action(capture, 'redact')} data-key="redact">
                  Redact…
                </a>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </Layout>
  );
}

export function RedactConfirmPage(props: { ctx: PageContext; inbox: InboxKind; capture: Capture; promotedTitle: string | undefined }) {
  const { ctx, capture, inbox } = props;
  return (
    <Layout ctx={ctx} title="Redact capture">
      <h1>Redact this capture?</h1>
      <p>Redacting removes for good, and it cannot be undone:</p>
      <ul>
        <li>
          the capture's text ({capture.text.length} characters), shown below, becomes <code>[redacted]</code>{';'}
        </li>
        <li>{capture.summary ? 'its summary becomes [redacted];' : 'its summary (none now);'}</li>
        <li>its sensitivity hint and signals are cleared;</li>
        {capture.promoted_item_id ? (
          <li>
            the item it was promoted to{props.promotedTitle ? ` (“${props.promotedTitle}”)` : ''} loses the title, body and context of all its
            versions, and its source keeps only its site (type, status, links and history stay).
          </li>
        ) : null}
      </ul>
      <pre>{capture.text}</pre>
      {ctx.actor ? (
        <form method="post" action={inboxPath(inbox, capture.id, 'redact')} class="actions">
          <Token ctx={ctx} />
          <button type="submit" class="danger">
            Redact for good
          </button>
          <a href={inboxPath(inbox)}>Cancel</a>
        </form>
      ) : null}
    </Layout>
  );
}

export function GlossaryPage(props: {
  ctx: PageContext;
  slug: string;
  groups: { id: string; name: string; accepted: { id: string; term: string }[]; proposed: { id: string; term: string }[] }[];
  groupsCut: boolean;
  queue: { id: string; term: string; group_name: string; created_at: string }[];
  queueCut: boolean;
}) {
  const { ctx, slug } = props;
  return (
    <Layout ctx={ctx} title="Glossary">
      <h1>Glossary</h1>
      <section aria-labelledby="queue-h">
        <h2 id="queue-h">Review queue</h2>
        {props.queue.length === 0 ? <p class="muted">No proposed terms.</p> : null}
        {props.queueCut ? <Cut id="queue-cut">{`More terms wait for review than the ${props.queue.length} oldest listed here.`}</Cut> : null}
        <ul class="cards" data-nav>
          {props.queue.map((term) => (
            <li>
              <strong data-nav-focus tabindex={-1}>
                {term.term}
              </strong>{' '}
              <span class="muted">
                in {term.group_name}, proposed {when(term.created_at)}
              </span>
              {ctx.actor ? (
                <div class="actions">
                  <form method="post" action={projectPath(slug, `/glossary/${encodeURIComponent(term.id)}/accept`)} class="inline">
                    <Token ctx={ctx} />
                    <button type="submit" aria-label={`Accept ${term.term}`}>
                      Accept
                    </button>
                  </form>
                  <form method="post" action={projectPath(slug, `/glossary/${encodeURIComponent(term.id)}/reject`)} class="actions">
                    <Token ctx={ctx} />
                    <label for={`reason-${term.id}`}>Reason</label>
                    <input id={`reason-${term.id}`} type="text" name="reason" />
                    <button type="submit" aria-label={`Reject ${term.term}`}>
                      Reject
                    </button>
                  </form>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="groups-h">
        <h2 id="groups-h">Groups</h2>
        {props.groups.length === 0 ? <p class="muted">No groups yet.</p> : null}
        {props.groupsCut ? <Cut id="groups-cut">{`More groups exist than the ${props.groups.length} listed here.`}</Cut> : null}
        {props.groups.map((group) => (
          <section aria-label={`Group ${group.name}`}>
            <h3>{group.name}</h3>
            <p>
              {group.accepted.length === 0 ? <span class="muted">No accepted terms.</span> : null}
              {group.accepted.map((t) => (
                <span class="tag">{t.term}</span>
              ))}
            </p>
            {group.proposed.length > 0 ? <p class="muted">{group.proposed.length} proposed, in the queue above.</p> : null}
          </section>
        ))}
      </section>
    </Layout>
  );
}

export function ChecksPage(props: { ctx: PageContext; slug: string; severity: string; results: RuleResult[]; counts: Record<string, number> }) {
  const { slug } = props;
  const shown = props.results.filter((r) => r.total > 0);
  return (
    <Layout ctx={props.ctx} title="Checks">
      <h1>Checks</h1>
      <form method="get" action={projectPath(slug, '/checks')} class="actions">
        <label for="severity">At least</label>
        <select id="severity" name="severity">
          <Options values={[...SEVERITIES].reverse()} selected={props.severity} />
        </select>
        <button type="submit">Show</button>
      </form>
      <p>
        {Object.entries(props.counts).map(([severity, n]) => (
          <span class={`tag sev-${severity}`}>
            {severity}: {n}
          </span>
        ))}
      </p>
      {shown.length === 0 ? <p>No findings.</p> : null}
      {shown.map((result) => (
        <section aria-labelledby={`rule-${result.rule}`}>
          <h2 id={`rule-${result.rule}`}>
            {result.rule} <span class={`tag sev-${result.severity}`}>{result.severity}</span> <span class="muted">{result.total}</span>
          </h2>
          <p>{result.description}</p>
          <p class="muted">Fix: {result.fix}</p>
          <ul class="cards" data-nav>
            {result.findings.map((f) => (
              <li>
                {f.items.map((it, i) => (
                  <>
                    {i > 0 ? ', ' : ''}
                    {!NOT_ITEMS.has(it.kind) ? (
                      <a href={itemHref(slug, it.id)} data-nav-focus={i === 0 ? true : undefined}>
                        {it.title}
                      </a>
                    ) : (
                      <span>{it.title}</span>
                    )}
                  </>
                ))}
                {f.note ? <span class="muted"> — {f.note}</span> : null}
              </li>
            ))}
          </ul>
          {result.truncated ? <p class="muted">{result.total - result.findings.length} more not shown.</p> : null}
        </section>
      ))}
    </Layout>
  );
}

export function ImpactPage(props: { ctx: PageContext; slug: string; impact: Impact }) {
  const { slug, impact } = props;
  const nodes: GraphNode[] = [
    { id: impact.item.chain_id, label: impact.item.title, href: itemHref(slug, impact.item.id), root: true },
    ...impact.reachable.map((r) => ({ id: r.chain_id, label: r.title, href: itemHref(slug, r.id) })),
  ];
  const edges: GraphEdge[] = impact.reachable.map((r) =>
    impact.direction === 'outgoing'
      ? { from: r.via_chain_id, to: r.chain_id, label: r.link_type }
      : { from: r.chain_id, to: r.via_chain_id, label: r.link_type },
  );
  return (
    <Layout ctx={props.ctx} title={`Impact of ${impact.item.title}`}>
      <h1>Impact of “{impact.item.title}”</h1>
      <form method="get" action={projectPath(slug, `/impact/${encodeURIComponent(impact.item.id)}`)} class="actions">
        <label for="depth">Depth</label>
        <select id="depth" name="depth">
          {Array.from({ length: MAX_IMPACT_DEPTH }, (_, i) => i + 1).map((d) => (
            <option value={String(d)} selected={d === impact.depth}>
              {d}
            </option>
          ))}
        </select>
        <label for="direction">Direction</label>
        <select id="direction" name="direction">
          <option value="incoming" selected={impact.direction === 'incoming'}>
            incoming (what depends on it)
          </option>
          <option value="outgoing" selected={impact.direction === 'outgoing'}>
            outgoing (what it depends on)
          </option>
        </select>
        <button type="submit">Draw</button>
      </form>
      <p>
        {impact.total} item{impact.total === 1 ? '' : 's'} reachable{impact.truncated ? ' (more not drawn)' : ''}.{' '}
        <a href={itemHref(slug, impact.item.id)}>Back to the item</a>
      </p>
      <figure class="graph">
        <ImpactGraph nodes={nodes} edges={edges} title={`Items reachable from ${impact.item.title}, ${impact.direction}`} />
      </figure>
      <h2>As a list</h2>
      <ul class="cards" data-nav>
        {impact.reachable.map((r) => (
          <li>
            <a href={itemHref(slug, r.id)} data-nav-focus>
              {r.title}
            </a>{' '}
            <span class="tag">{r.link_type}</span> <span class="muted">depth {r.depth}</span>
          </li>
        ))}
      </ul>
    </Layout>
  );
}

export function ErrorPage(props: { ctx: PageContext; title: string; message: string; back?: string | undefined }) {
  return (
    <Layout ctx={props.ctx} title={props.title}>
      <h1>{props.title}</h1>
      <p class="notice error" role="alert">
        {props.message}
      </p>
      <p>
        <a href={props.back ?? '/'}>Back</a>
      </p>
    </Layout>
  );
}
