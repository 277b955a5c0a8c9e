// @jsxRuntime automatic
// @jsxImportSource hono/jsx
import type { Child } from 'hono/jsx';
import { CSS_PATH, JS_PATH } from './static.js';

export interface PageContext {
  /** The project the page belongs to (slug), for the navigation. */
  project?: { slug: string; name: string } | undefined;
  /** Which navigation entry is this page. */
  section?: 'home' | 'search' | 'work' | 'inbox' | 'glossary' | 'checks' | 'projects' | 'shared-inbox' | undefined;
  /** The acting actor when writes are possible; undefined: read-only, and the page says how to set one. */
  actor: string | undefined;
  token: string;
  notice?: { kind: 'done' | 'error'; text: string } | undefined;
}

const SECTIONS = [
  ['home', '', 'Home'],
  ['search', '/search', 'Search'],
  ['work', '/work', 'Work'],
  ['inbox', '/inbox', 'Inbox'],
  ['glossary', '/glossary', 'Glossary'],
  ['checks', '/checks', 'Checks'],
] as const;

/** The pages of no project: the list of projects, and the shared inbox (captures filed under none). */
const TOP_SECTIONS = [
  ['projects', '/', 'Projects'],
  ['shared-inbox', '/inbox', 'Shared inbox'],
] as const;

export function projectPath(slug: string, rest = ''): string {
  return `/p/${encodeURIComponent(slug)}${rest}`;
}

export function Layout(props: { ctx: PageContext; title: string; children?: Child }) {
  const { ctx } = props;
  const project = ctx.project;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{project ? `${props.title} · ${project.name} · svc` : `${props.title} · svc`}</title>
        <link rel="stylesheet" href={CSS_PATH} />
        <script src={JS_PATH} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/">
            svc
          </a>
          {project ? (
            <nav aria-label={`Project ${project.name}`}>
              <ul>
                {SECTIONS.map(([key, path, label]) => (
                  <li>
                    <a href={projectPath(project.slug, path)} aria-current={ctx.section === key ? 'page' : undefined}>
                      {label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : (
            <nav aria-label="svc">
              <ul>
                {TOP_SECTIONS.map(([key, path, label]) => (
                  <li>
                    <a href={path} aria-current={ctx.section === key ? 'page' : undefined}>
                      {label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          <span class="muted">{ctx.actor ? `acting as ${ctx.actor}` : 'read-only'}</span>
        </header>
        <main id="main">
          {ctx.notice ? (
            <p class={`notice ${ctx.notice.kind}`} role={ctx.notice.kind === 'error' ? 'alert' : 'status'}>
              {ctx.notice.text}
            </p>
          ) : null}
          {(project || ctx.section === 'shared-inbox') && !ctx.actor ? <ReadOnlyNotice /> : null}
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** Shown once, at the top of every page that could write (a project's, the shared inbox), when no actor is known: no page then offers a write. */
function ReadOnlyNotice() {
  return (
    <div class="notice" role="note">
      <p>
        This page is read-only: writes need an actor. Put svc behind a proxy that sets the <code>X-Actor</code> header to an actor
        UUID, or start the server with <code>SVC_DEFAULT_ACTOR_ID</code> set (<code>svc actor list</code> shows the registered
        actors; <code>svc actor add --email EMAIL</code> registers one).
      </p>
    </div>
  );
}

/** The hidden token every form carries. */
export function Token(props: { ctx: PageContext }) {
  return <input type="hidden" name="_csrf" value={props.ctx.token} />;
}

export function when(value: string | Date | null | undefined): string {
  if (!value) return '';
  const date = typeof value === 'string' ? new Date(value) : value;
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}
