import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config, FirstUse } from '@svc/service';

/** How to reach svc from an assistant: the data `svc init --json` prints and the guide renders. */
export interface Connection {
  project: { id: string; slug: string };
  actor: { id: string; email: string };
  created: { project: boolean; actor: boolean };
  /** How the project was chosen: `oldest` when none was named (SVC_PROJECT, --project) and none is `default`. */
  chosen: FirstUse['chosen'];
  mcp_url: string;
  headers: { 'X-Actor': string };
  /**
   * The command that starts this server acting as the actor (for the web view's writes), with the settings that name
   * this database and address when they are not the defaults: a newcomer on SVC_DATA_DIR and SVC_HTTP_PORT ran the
   * command as printed, without them, and got another, empty database and a refusal (2026-11-28).
   */
  start_as_actor: string;
  clients: {
    claude_code: string;
    vscode_mcp_json: unknown;
    mcp_servers_http: unknown;
    mcp_servers_stdio: unknown;
  };
}

/** The URL a local client uses for a listening address: a wildcard address is reached on the loopback. */
export function localUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The svc workspace this CLI runs from (a checkout), if it does: stdio clients start its linked bin. */
function workspaceRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'svc-workspace') return dir;
      } catch {
        // not ours
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}

/** The stdio launch of `svc serve mcp` for this database, with absolute paths (clients start it anywhere). */
function stdioServer(config: Config, actorId: string): { command: string; args: string[]; env: Record<string, string> } {
  const root = workspaceRoot();
  const serve = ['serve', 'mcp', '--actor', actorId];
  const env: Record<string, string> =
    config.databaseUrl !== undefined ? { SVC_DATABASE_URL: withoutPassword(config.databaseUrl) } : { SVC_DATA_DIR: resolve(config.dataDir) };
  return root ? { command: join(root, 'node_modules', '.bin', 'svc'), args: serve, env } : { command: 'svc', args: serve, env };
}

/** A printed configuration never carries the database password: the user puts it back in. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'PASSWORD';
    return u.toString();
  } catch {
    return url;
  }
}

export function connection(first: FirstUse, config: Config, baseUrl: string): Connection {
  const mcpUrl = `${baseUrl}/mcp`;
  const actorId = first.actor.id;
  const headers = { 'X-Actor': actorId };
  return {
    project: { id: first.project.id, slug: first.project.slug },
    actor: { id: actorId, email: first.actor.email },
    created: first.created,
    chosen: first.chosen,
    mcp_url: mcpUrl,
    headers,
    start_as_actor: [...startSettings(config, baseUrl), `SVC_DEFAULT_ACTOR_ID=${actorId}`, 'pnpm start'].join(' '),
    clients: {
      // Claude Code's own form (code.claude.com/docs/en/mcp): options, name, URL, then --header.
      claude_code: `claude mcp add --transport http svc ${mcpUrl} --header "X-Actor: ${actorId}"`,
      // VS Code's workspace file has top-level "servers", each with a "type" (code.visualstudio.com MCP reference).
      vscode_mcp_json: { servers: { svc: { type: 'http', url: mcpUrl, headers } } },
      mcp_servers_http: { mcpServers: { svc: { type: 'http', url: mcpUrl, headers } } },
      mcp_servers_stdio: { mcpServers: { svc: stdioServer(config, actorId) } },
    },
  };
}

/** The settings a start command needs to reach this database and address: those that differ from the defaults. */
function startSettings(config: Config, baseUrl: string): string[] {
  const quoted = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replaceAll("'", "'\\''")}'`);
  const out: string[] = [];
  if (config.databaseUrl !== undefined) out.push(`SVC_DATABASE_URL=${quoted(withoutPassword(config.databaseUrl))}`);
  else if (resolve(config.dataDir) !== resolve('.svc/data')) out.push(`SVC_DATA_DIR=${quoted(resolve(config.dataDir))}`);
  if (config.httpHost !== '127.0.0.1') out.push(`SVC_HTTP_HOST=${quoted(config.httpHost)}`);
  const port = Number(new URL(baseUrl).port || 80);
  if (port !== 8080) out.push(`SVC_HTTP_PORT=${port}`);
  return out;
}

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((line) => by + line)
    .join('\n');
/** Pretty JSON with arrays of strings kept on one line, ready to paste. */
const json = (value: unknown) =>
  indent(JSON.stringify(value, null, 2).replace(/\[\n\s*((?:"(?:[^"\\]|\\.)*",?\n\s*)+)\]/g, (_, items: string) => `[${items.trim().split(/,?\n\s*/).join(', ')}]`));

/**
 * The block printed (on stderr) by `svc init` and by the start of `svc serve http` that set svc up; `serving`
 * says which (true: this server), since after `svc init` a server may be running already (its process) or not yet.
 */
export function renderGuide(c: Connection, serving: boolean | { pid: number }): string {
  const made = [c.created.project ? `created project '${c.project.slug}'` : '', c.created.actor ? `registered actor ${c.actor.email}` : '']
    .filter((s) => s !== '')
    .join(' and ');
  return [
    `svc is ready${made ? ` (${made})` : ''}: project '${c.project.slug}'${oldestNote(c)}, actor ${c.actor.id} (${c.actor.email}).`,
    '',
    serving === true
      ? 'Connect an assistant over MCP to this server:'
      : serving
        ? `Connect an assistant over MCP to the svc serve http running on this data (pid ${serving.pid}):`
        : 'Connect an assistant over MCP to `svc serve http` once it runs (`pnpm start` starts it):',
    `  URL:    ${c.mcp_url}`,
    `  header: X-Actor: ${c.actor.id}`,
    '',
    '  Claude Code:',
    `    ${c.clients.claude_code}`,
    '  VS Code, in .vscode/mcp.json:',
    json(c.clients.vscode_mcp_json),
    '  Clients that read "mcpServers" JSON (Cursor, Claude Code\'s .mcp.json, …), over HTTP:',
    json(c.clients.mcp_servers_http),
    '  or, started by the client itself over stdio (Claude Desktop too; no server needed):',
    json(c.clients.mcp_servers_stdio),
    '',
    `Your actor id (X-Actor, --actor, SVC_DEFAULT_ACTOR_ID): ${c.actor.id}`,
    `Assistants address the project as project_id '${c.project.slug}'. Something wrong? Run \`svc doctor\`.`,
    '',
    `The web view is at ${new URL('/', c.mcp_url).toString()}: read-only unless the server acts for someone, for`,
    `yourself: ${c.start_as_actor} (or a proxy in front setting X-Actor).`,
  ].join('\n');
}

/** Said when no project was named and the oldest was taken: a newcomer with two projects was not told which. */
const oldestNote = (c: Connection) =>
  c.chosen === 'oldest' ? ' (the oldest project: none was named and none is called default; choose with --project or SVC_PROJECT)' : '';

/** The one line later starts print instead of the whole guide. */
export function renderPointer(c: Connection): string {
  return `svc: project '${c.project.slug}'${oldestNote(c)}, actor ${c.actor.id} (${c.actor.email}); MCP at ${c.mcp_url} with header "X-Actor: ${c.actor.id}" (\`svc init\` prints client configurations)`;
}
