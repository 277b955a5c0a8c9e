import type { Actor, Project } from '@svc/domain';
import type { Config } from './config.js';
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
