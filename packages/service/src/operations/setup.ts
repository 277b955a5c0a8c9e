import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { invalidInput, isSlug, newSlugRefusal, type Project } from '@svc/domain';
import {
  type Database,
  findActorByEmail,
  findProjectBySlug,
  insertActor,
  insertProject,
  type Kysely,
  listActors,
  lockFirstUse,
  oldestProject,
} from '@svc/store';
import { z } from 'zod';
import { MAX_EMAIL, MAX_NAME, MAX_SLUG } from '../inputs.js';
import { defineOperation } from '../operation.js';

/** The project first use creates when none is named (SVC_PROJECT, --project). */
const DEFAULT_PROJECT = 'default';

const email = z.email().max(MAX_EMAIL);

/**
 * The email the first actor is registered under when none is named (SVC_ACTOR_EMAIL, --actor-email): the
 * person's `git config user.email`, else `$USER@localhost.localdomain` (svc's email check wants a dotted domain,
 * so a bare `@localhost` would be refused). Never fails: a missing git or a malformed address falls through.
 */
export function defaultActorEmail(env: Record<string, string | undefined> = process.env): string {
  try {
    const fromGit = execFileSync('git', ['config', 'user.email'], { encoding: 'utf8', timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (email.safeParse(fromGit).success) return fromGit;
  } catch {
    // No git, or no user.email: the user name it is.
  }
  let user = env.USER ?? env.LOGNAME ?? '';
  if (user === '') {
    try {
      user = userInfo().username;
    } catch {
      user = 'svc';
    }
  }
  const local = user.toLowerCase().replace(/[^a-z0-9._-]/g, '').replace(/^[.]+|[.]+$/g, '') || 'svc';
  return `${local}@localhost.localdomain`;
}

/**
 * How first use chose its project: by the name given (`named`), as `default` (no name given), or, with no name
 * given and no project `default`, the oldest project (`oldest`): a user who never named one is told which.
 */
export type ProjectChoice = 'named' | 'default' | 'oldest';

/** The project first use would use, without creating one: `svc init` takes it, `svc doctor` reports it. */
export async function firstUseProject(
  db: Kysely<Database>,
  named: string | undefined,
): Promise<{ project: Project; chosen: ProjectChoice } | undefined> {
  const byName = await findProjectBySlug(db, named ?? DEFAULT_PROJECT);
  if (byName) return { project: byName, chosen: named === undefined ? 'default' : 'named' };
  if (named !== undefined) return undefined;
  const oldest = await oldestProject(db);
  return oldest && { project: oldest, chosen: 'oldest' };
}

/**
 * First use (docs/decisions/0028): make sure the database holds a project and an actor, so an assistant can
 * write right away, and say which. A name given (project, actor_email) is found or created. Without one, the
 * defaults are created only on a database that has none yet; otherwise the first project and actor made are
 * used, so a later start with another git email or none never adds a second actor or project.
 */
export const setup = defineOperation({
  name: 'setup',
  surface: 'operator',
  title: 'Set up first use',
  description:
    'Make sure a project and an actor exist (created on first use, found afterwards) and return them: what ' +
    '`svc init` and the first `svc serve http` on an empty embedded database do. Idempotent.',
  input: z.object({
    project: z.string().max(MAX_SLUG).optional().describe(`Project slug to find or create (default: '${DEFAULT_PROJECT}' on a database without projects)`),
    actor_email: email.optional().describe('Email of the actor to find or create (default: default_actor_email on a database without actors)'),
    actor_name: z.string().trim().max(MAX_NAME).optional().describe('Display name of an actor created now'),
    default_actor_email: email.optional().describe('Email for the first actor when actor_email is not given'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  async run(ctx, input) {
    const named = input.project;
    const refused = named === undefined ? undefined : newSlugRefusal(named);
    // Not a slug: refused at once. A slug that reads as an id prefix: only for a project to be created (below).
    if (refused && !isSlug(named as string)) throw invalidInput('project', refused);
    await lockFirstUse(ctx.tx);

    const found = await firstUseProject(ctx.tx, input.project);
    const projectCreated = found === undefined;
    if (projectCreated && refused) throw invalidInput('project', refused);
    const slug = input.project ?? DEFAULT_PROJECT;
    const project = found?.project ?? (await insertProject(ctx.tx, { slug, name: slug }));
    const chosen = found?.chosen ?? (input.project === undefined ? 'default' : 'named');

    const wanted = input.actor_email ?? input.default_actor_email;
    let actor = wanted === undefined ? undefined : await findActorByEmail(ctx.tx, wanted);
    if (actor === undefined && input.actor_email === undefined) actor = (await listActors(ctx.tx, 1))[0];
    const actorCreated = actor === undefined;
    if (actor === undefined) {
      if (wanted === undefined) throw invalidInput('actor_email', 'no actor exists yet: name one with actor_email');
      // A name made of the email is held to a name's bound too, so the actor's export imports (transfer/limits.ts).
      const name = input.actor_name ?? (wanted.split('@')[0] ?? '').slice(0, MAX_NAME);
      actor = await insertActor(ctx.tx, { email: wanted, name, role: null, external_ids: {} });
    }
    ctx.audit({
      project_id: project.id,
      target_kind: 'project',
      target_id: project.id,
      details: { actor_id: actor.id, project_created: projectCreated, actor_created: actorCreated },
    });
    return { project, actor, created: { project: projectCreated, actor: actorCreated }, chosen };
  },
});
