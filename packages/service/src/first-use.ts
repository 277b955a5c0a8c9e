import type { Actor, Project } from '@svc/domain';
import { type AnnouncedServer, announcedServers, announceServer } from '@svc/store';
import type { Config } from './config.js';
import { answersAsSvc } from './doctor.js';
import { defaultActorEmail, type ProjectChoice } from './operations/setup.js';
import type { Service } from './service.js';

export interface FirstUse {
  project: Project;
  actor: Actor;
  /** What this call created: the first start prints the whole connection guide, later ones a pointer. */
  created: { project: boolean; actor: boolean };
  /** How the project was chosen: `oldest` when none was named and there is no project `default`. */
  chosen: ProjectChoice;
}

/**
 * Find or create what the first use needs (docs/decisions/0028): names from flags, else SVC_PROJECT /
 * SVC_ACTOR_EMAIL, else the defaults (project `default`; `git config user.email`, else
 * `$USER@localhost.localdomain`), which are created only on a database that has no project or actor yet.
 */
export async function ensureFirstUse(
  service: Service,
  config: Config,
  names: { project?: string | undefined; actorEmail?: string | undefined; actorName?: string | undefined } = {},
  env: Record<string, string | undefined> = process.env,
): Promise<FirstUse> {
  const actorEmail = names.actorEmail ?? config.actorEmail;
  return (await service.call(
    'setup',
    {
      project: names.project ?? config.project,
      actor_email: actorEmail,
      actor_name: names.actorName,
      default_actor_email: actorEmail === undefined ? defaultActorEmail(env) : undefined,
    },
    { source: 'cli' },
  )) as FirstUse;
}

/**
 * Announce that this process serves the embedded database of `config` over HTTP on `bind`:`port` (nothing on
 * PostgreSQL, whose servers are an operator's): `svc init` run without this server's settings then gives its URL,
 * not the configured one (a newcomer connected to 8080 while the server listened elsewhere, 2026-11-27). Returns the
 * withdrawal, for the server's shutdown.
 */
export function announceHttpServer(config: Config, bind: string, port: number): () => void {
  return config.databaseUrl === undefined ? announceServer(config.dataDir, bind, port) : () => {};
}

/** The port of a server's URL (`http://host` on 80 has none written). */
export function portOf(url: string): number {
  const parsed = new URL(url);
  return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
}

/**
 * The `svc serve http` serving the embedded database of `config`, if one is running on this machine: the latest
 * announced whose process is alive and whose address answers as svc (a process id can be reused after a crash).
 */
export async function runningHttpServer(config: Config): Promise<AnnouncedServer | undefined> {
  if (config.databaseUrl !== undefined) return undefined;
  for (const server of announcedServers(config.dataDir)) if (await answersAsSvc(server.bind, server.port)) return server;
  return undefined;
}
