import { CAPTURE_STATES, captureMoveEvent, captureTransition, parseIdRef, parseQuery, planQuery, SvcError, shortId } from '@svc/domain';
import {
  type Capture,
  insertCapture,
  listCaptures,
  lockCapture,
  recordPromotion,
  redactChainText,
  redactCapture,
  resolveProject,
  updateCapture,
} from '@svc/store';
import { z } from 'zod';
import { type WriteAnswer, writeAnswer } from '../answers.js';
import { body, boundedLimit, context, idRef, limit, MAX_TEXT, projectRef, searchQuery, title, truncation } from '../inputs.js';
import { createItem, prepareItemValues } from '../items/write.js';
import { defineOperation, type ReadContext, type WriteContext } from '../operation.js';

const captureRef = idRef('Capture');
const actorId = z.string().max(100).optional().describe('Actor UUID (default: the caller)');
/** Captures are filed under a project or left in the shared inbox: docs/decisions/0025. */
// No minLength: "" already means omitted, and the tool list has a size budget (apps/mcp e2e).
const optionalProject = z.string().max(200).optional();
const fileUnder = optionalProject.describe('File under this project; else: inbox');
const filterBy = optionalProject.describe('Filed under this project');

/** A capture's write answer: its review state, and the item it was promoted to, if any. */
const answer = (capture: Capture): WriteAnswer =>
  writeAnswer({ id: capture.id, state: capture.review_state, item_id: capture.promoted_item_id });

const ack = (result: WriteAnswer) =>
  `capture ${shortId(result.id)} ${result.state}${result.item_id ? ` item ${shortId(result.item_id)}` : ''}`;

async function lock(ctx: WriteContext, ref: string): Promise<Capture> {
  return lockCapture(ctx.tx, parseIdRef(ref, 'capture_id'));
}

export const captureAdd = defineOperation({
  name: 'svc_capture_add',
  surface: 'tool',
  title: 'Capture raw text',
  description:
    'Save raw text to the capture inbox exactly as given (nothing summarised, classified or promoted); it stays ' +
    'out of item search until promoted with svc_capture_promote. project_id files it under a project. Answers ' +
    '`capture <id> inbox`.',
  input: z.object({ text: z.string().min(1).max(MAX_TEXT).describe('The raw text to keep'), project_id: fileUnder, actor_id: actorId }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const project = input.project_id === undefined ? null : await resolveProject(ctx.tx, input.project_id);
    const capture = await insertCapture(ctx.tx, input.text, ctx.actor?.id ?? null, project?.id ?? null);
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id });
    return answer(capture);
  },
});

const listFilters = {
  project_id: filterBy,
  review_state: z.enum(CAPTURE_STATES).optional().describe('Only captures in this state'),
  include_discarded: z.boolean().optional().describe('Also show discarded captures (default false)'),
  include_redacted: z.boolean().optional().describe('Also show redacted captures, masked (default false)'),
  limit,
};

/** The id of the project a list filters by; an unknown project is `not_found`, never an empty list. */
async function filedUnder(ctx: ReadContext, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : (await resolveProject(ctx.db, ref)).id;
}

export const captureList = defineOperation({
  name: 'svc_capture_list',
  surface: 'tool',
  title: 'List captures',
  description:
    'List captures, newest first. Discarded and redacted ones are hidden unless asked for; redacted ones show ' +
    'only [redacted]. project_id: only those filed under it. Returns {captures, truncated}.',
  input: z.object(listFilters),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const max = boundedLimit(input.limit);
    const project_id = await filedUnder(ctx, input.project_id);
    const rows = await listCaptures(
      ctx.db,
      { project_id, review_state: input.review_state, include_discarded: input.include_discarded ?? false, include_redacted: input.include_redacted ?? false },
      max,
    );
    return { captures: rows.slice(0, max), truncated: rows.length > max };
  },
});

export const captureSearch = defineOperation({
  name: 'svc_capture_search',
  surface: 'tool',
  title: 'Search captures',
  description:
    'Search capture text and summary (item-search dialect; empty query only filters). Discarded and redacted ' +
    'ones are hidden unless asked for; redacted text cannot match. project_id: only those filed under it. ' +
    'Returns {captures, truncated}; truncated: false or ["limit"].',
  input: z.object({ query: searchQuery('Search text; empty lists by filters only').optional(), ...listFilters }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const max = boundedLimit(input.limit);
    const query = input.query?.trim() ?? '';
    const plan = query === '' ? undefined : planQuery(parseQuery(query));
    const project_id = await filedUnder(ctx, input.project_id);
    if (query !== '' && !plan) return { captures: [], truncated: false };
    const rows = await listCaptures(
      ctx.db,
      {
        project_id,
        review_state: input.review_state,
        include_discarded: input.include_discarded ?? false,
        include_redacted: input.include_redacted ?? false,
        plan,
      },
      max,
    );
    return { captures: rows.slice(0, max), truncated: truncation({ limit: rows.length > max }) };
  },
});

export const captureAnnotate = defineOperation({
  name: 'svc_capture_annotate',
  surface: 'tool',
  title: 'Annotate a capture',
  description:
    'Store your hints on a capture: summary, sensitivity hint, signals (a JSON object kept as given; a hint, not ' +
    'truth). null clears summary or sensitivity_hint. Answers `capture <id> <state>`.',
  input: z.object({
    capture_id: captureRef,
    summary: z.string().max(100_000).nullable().optional().describe('A summary you wrote; null clears it'),
    sensitivity_hint: z.string().max(200).nullable().optional().describe('e.g. public, internal, secret; null clears it'),
    signals: z.record(z.string(), z.unknown()).optional().describe('A JSON object of hints; anything else is rejected'),
    actor_id: actorId,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const capture = await lock(ctx, input.capture_id);
    captureTransition(capture, 'annotate');
    const updated = await updateCapture(ctx.tx, capture.id, {
      summary: input.summary,
      sensitivity_hint: input.sensitivity_hint,
      signals: input.signals,
    });
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id, details: { fields: Object.keys(input).filter((k) => k !== 'capture_id' && k !== 'actor_id') } });
    return answer(updated);
  },
});

export const captureSetState = defineOperation({
  name: 'svc_capture_set_state',
  surface: 'tool',
  title: 'Move a capture between review states',
  description:
    'Move a capture to inbox, review or discarded (redact and promote have their own tools). Answers `capture <id> <state>`.',
  input: z.object({
    capture_id: captureRef,
    review_state: z.string().max(40).describe('inbox, review or discarded'),
    actor_id: actorId,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const event = captureMoveEvent(input.review_state);
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, event);
    const updated = await updateCapture(ctx.tx, capture.id, { review_state: target });
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id, details: { from: capture.review_state, to: target } });
    return answer(updated);
  },
});

export const captureDiscard = defineOperation({
  name: 'svc_capture_discard',
  surface: 'tool',
  title: 'Discard a capture',
  description: 'Mark a capture discarded: hidden from the default list and search (the text is kept; redact to remove it).',
  input: z.object({ capture_id: captureRef, actor_id: actorId }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, 'discard');
    const updated = await updateCapture(ctx.tx, capture.id, { review_state: target });
    ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id, details: { from: capture.review_state, to: target } });
    return answer(updated);
  },
});

export const captureRedact = defineOperation({
  name: 'svc_capture_redact',
  surface: 'tool',
  title: 'Redact a capture',
  description:
    'Remove a capture\'s content for good: text and summary become [redacted], hints and signals are cleared, no ' +
    'search finds the words again; the row stays. A promoted capture\'s item is redacted too (title and body of all ' +
    'versions; type, status, links, history stay). Irreversible. Answers `capture <id> redacted`, plus `item <id>` ' +
    'if its item was redacted.',
  input: z.object({ capture_id: captureRef, actor_id: actorId }),
  kind: 'write',
  annotations: { destructiveHint: true, idempotentHint: true },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  async run(ctx, input): Promise<WriteAnswer> {
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, 'redact');
    const itemId = capture.promoted_item_id;
    const versions = itemId ? await redactChainText(ctx.tx, itemId) : 0;
    const updated = await redactCapture(ctx.tx, capture.id, ctx.actor?.id ?? null);
    ctx.audit({
      project_id: capture.project_id,
      target_kind: 'capture',
      target_id: capture.id,
      details: { from: capture.review_state, to: target, ...(itemId ? { item_id: itemId, redacted_item_versions: versions } : {}) },
    });
    return answer(updated);
  },
});

export const capturePromote = defineOperation({
  name: 'svc_capture_promote',
  surface: 'tool',
  title: 'Promote a capture to an item',
  description:
    'Turn a capture into an item of a project (same rules as svc_item_upsert) and record the link; only when the ' +
    'human decides it belongs in project memory. body "" uses the capture text. Research needs source_url, a task ' +
    'an open work_unit_id. A filed capture goes only into its project. Answers `capture <id> promoted item <id>`.',
  input: z.object({
    capture_id: captureRef,
    project_id: projectRef,
    item_type: z.string().max(40).optional().describe("Item type key (default 'knowledge')"),
    title,
    body: body.optional().describe('Item body; empty or omitted uses the capture text'),
    context: context.optional(),
    system_id: z.string().max(200).optional().describe('System of the project (id, prefix or name)'),
    work_unit_id: z.string().max(100).optional().describe('Work unit (id or prefix); required for tasks'),
    source_url: z.string().max(2048).optional().describe('Source of the information; required for research'),
    actor_id: actorId,
  }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: false },
  presentation: { kind: 'ack', render: ack },
  actorField: 'actor_id',
  // The capture is what it acts on (REST: /captures/{capture_id}/promote); project_id is an argument.
  addresses: ['capture_id'],
  async run(ctx, input): Promise<WriteAnswer> {
    const project = await resolveProject(ctx.tx, input.project_id);
    const capture = await lock(ctx, input.capture_id);
    const target = captureTransition(capture, 'promote');
    if (capture.project_id !== null && capture.project_id !== project.id) {
      throw new SvcError(
        'invalid_input',
        `project_id: capture ${shortId(capture.id)} is filed under another project (${shortId(capture.project_id)}); it can only be promoted into that project`,
        { field: 'project_id', capture_project_id: capture.project_id },
      );
    }
    const values = await prepareItemValues(ctx, project, {
      item_type: input.item_type ?? 'knowledge',
      title: input.title,
      body: input.body ?? capture.text,
      context: input.context ?? {},
      system_id: input.system_id,
      work_unit_id: input.work_unit_id,
      source_url: input.source_url,
    });
    const item = await createItem(ctx, project, values);
    await recordPromotion(ctx.tx, { capture_id: capture.id, item_id: item.id, project_id: project.id, promoted_by: ctx.actor?.id ?? null });
    const promoted = await updateCapture(ctx.tx, capture.id, { review_state: target });
    ctx.audit({ project_id: project.id, target_kind: 'capture', target_id: capture.id, details: { item_id: item.id } });
    return answer(promoted);
  },
});

