import { ideaTransition, isUuid, parseIdRef, parseQuery, planQuery, SvcError, shortId } from '@svc/domain';
import { insertIdea, listIdeas, lockIdea, redactIdea, resolveProject } from '@svc/store';
import { z } from 'zod';
import { type WriteAnswer, writeAnswer } from '../answers.js';
import { actorRef, boundedLimit, idRef, isoTime, limit, MAX_TEXT, projectRef, searchQuery, truncation } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { findWorkUnit, scope } from '../work/shared.js';

const scopeField = projectRef.optional().describe('Scope ids to this project');

export const ideaAdd = defineOperation({
  name: 'svc_idea_add',
  surface: 'tool',
  title: 'Add an idea (legacy)',
  description:
    'Append an ideation note to a work unit (legacy; for raw intake prefer svc_capture_add). Returns {id, work_unit_id}.',
  input: z.object({
    work_unit_id: idRef('Work unit'),
    text: z.string().min(1).max(MAX_TEXT).describe('The idea'),
    actor_id: z.string().max(100).optional().describe('Author actor UUID (default: the caller)'),
    project_id: scopeField,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  actorField: 'actor_id',
  async run(ctx, input) {
    const unit = await findWorkUnit(ctx.tx, input.work_unit_id, await scope(ctx.tx, input.project_id));
    const idea = await insertIdea(ctx.tx, { project_id: unit.project_id, work_unit_id: unit.id, text: input.text, author_id: ctx.actor?.id ?? null });
    ctx.audit({ project_id: unit.project_id, target_kind: 'idea', target_id: idea.id });
    return writeAnswer(idea);
  },
});

export const ideaList = defineOperation({
  name: 'svc_idea_list',
  surface: 'tool',
  title: 'List ideas (legacy)',
  description: 'List the ideas of a work unit, newest first; redacted ones with their text masked. Returns {ideas, truncated}.',
  input: z.object({ work_unit_id: idRef('Work unit'), limit, project_id: scopeField }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const unit = await findWorkUnit(ctx.db, input.work_unit_id, await scope(ctx.db, input.project_id));
    const max = boundedLimit(input.limit);
    const ideas = await listIdeas(ctx.db, { project_id: unit.project_id, work_unit_id: unit.id }, max);
    return { ideas: ideas.slice(0, max), truncated: ideas.length > max };
  },
});

export const ideaSearch = defineOperation({
  name: 'svc_idea_search',
  surface: 'tool',
  title: 'Search ideas (legacy)',
  description:
    'Search the ideas of a project (item-search dialect; empty query only filters), newest first, narrowed by ' +
    'work unit, author and time [since, until). Returns {ideas, truncated}; truncated: false or ["limit"].',
  input: z.object({
    project_id: projectRef,
    query: searchQuery('Search text; empty lists by filters only').optional(),
    work_unit_id: z.string().max(100).optional().describe('Only this work unit'),
    author_id: actorRef('Only ideas by this actor (UUID)').optional(),
    since: isoTime('Only ideas at or after this ISO 8601 time').optional(),
    until: isoTime('Only ideas before this ISO 8601 time').optional(),
    limit,
  }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    const unit = input.work_unit_id ? await findWorkUnit(ctx.db, input.work_unit_id, project) : undefined;
    if (input.author_id !== undefined && !isUuid(input.author_id)) {
      throw new SvcError('invalid_input', `author_id: '${input.author_id}' is not an actor UUID`, { field: 'author_id' });
    }
    const query = input.query?.trim() ?? '';
    const plan = query === '' ? undefined : planQuery(parseQuery(query));
    if (query !== '' && !plan) return { ideas: [], truncated: false };
    const max = boundedLimit(input.limit);
    const ideas = await listIdeas(
      ctx.db,
      {
        project_id: project.id,
        work_unit_id: unit?.id,
        author_id: input.author_id?.toLowerCase(),
        since: input.since ? new Date(input.since) : undefined,
        until: input.until ? new Date(input.until) : undefined,
        plan,
      },
      max,
    );
    return { ideas: ideas.slice(0, max), truncated: truncation({ limit: ideas.length > max }) };
  },
});

export const ideaRedact = defineOperation({
  name: 'svc_idea_redact',
  surface: 'tool',
  title: 'Redact an idea (legacy)',
  description: 'Mask an idea\'s text as [redacted] for good; the row (who, when) stays. Answers `idea <id> redacted`.',
  input: z.object({ idea_id: idRef('Idea'), project_id: scopeField }),
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: true },
  presentation: { kind: 'ack', render: (r: WriteAnswer) => `idea ${shortId(r.id)} ${r.state}` },
  async run(ctx, input) {
    const project = await scope(ctx.tx, input.project_id);
    const idea = await lockIdea(ctx.tx, parseIdRef(input.idea_id, 'idea_id'), project?.id);
    ideaTransition(idea, 'redact');
    const redacted = await redactIdea(ctx.tx, idea.id, ctx.actor?.id ?? null);
    ctx.audit({ project_id: idea.project_id, target_kind: 'idea', target_id: idea.id });
    return writeAnswer({ id: redacted.id, state: 'redacted' });
  },
});
