import { insertActor } from '@svc/store';
import { z } from 'zod';
import { defineOperation } from '../operation.js';

export const actorAdd = defineOperation({
  name: 'actor_add',
  surface: 'operator',
  title: 'Register an actor',
  description:
    'Register a person or an assistant for attribution. Email is required and unique: it is the primary human ' +
    'identifier. Actors carry no credentials; svc has no built-in authentication.',
  input: z.object({
    email: z.email().max(320).describe('Email address (unique)'),
    name: z.string().trim().max(200).optional().describe('Display name'),
    role: z.string().trim().max(100).optional().describe('Role, e.g. engineer or assistant'),
    external_ids: z
      .record(z.string().min(1).max(100), z.string().max(500))
      .optional()
      .describe('Ids in other systems, e.g. {"github": "octocat"}'),
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  async run(ctx, input) {
    const actor = await insertActor(ctx.tx, {
      email: input.email,
      name: input.name ?? '',
      role: input.role ?? null,
      external_ids: input.external_ids ?? {},
    });
    ctx.audit({ target_kind: 'actor', target_id: actor.id });
    return actor;
  },
});
