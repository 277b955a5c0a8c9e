import { insertActor } from '@svc/store';
import { z } from 'zod';
import { MAX_EMAIL, MAX_EXTERNAL_ID, MAX_EXTERNAL_ID_NAME, MAX_NAME, MAX_ROLE } from '../inputs.js';
import { defineOperation } from '../operation.js';

export const actorAdd = defineOperation({
  name: 'actor_add',
  surface: 'operator',
  title: 'Register an actor',
  description:
    'Register a person or an assistant for attribution. Email is required and unique: it is the primary human ' +
    'identifier. Actors carry no credentials; svc has no built-in authentication.',
  input: z.object({
    email: z.email().max(MAX_EMAIL).describe('Email address (unique)'),
    name: z.string().trim().max(MAX_NAME).optional().describe('Display name'),
    role: z.string().trim().max(MAX_ROLE).optional().describe('Role, e.g. engineer or assistant'),
    external_ids: z
      .record(z.string().min(1).max(MAX_EXTERNAL_ID_NAME), z.string().max(MAX_EXTERNAL_ID))
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
