import { CAPTURE_STATES, type CaptureEvent, captureTransition, parseIdRef, shortId, type TsPlan } from '@svc/domain';
import { type Capture, listCaptures, lockCapture, resolveProject, updateCapture } from '@svc/store';
import { z } from 'zod';
import { type WriteAnswer, writeAnswer } from '../answers.js';
import { boundedLimit, boundedPage, idRef, limit } from '../inputs.js';
import type { ReadContext, WriteContext } from '../operation.js';

export const captureRef = idRef('Capture');

export const actorId = z.string().max(100).optional().describe('Actor UUID (default: the caller)');

/** Captures are filed under a project or left in the shared inbox: docs/decisions/0025. */
// No minLength: "" already means omitted, and the tool list has a size budget (apps/mcp e2e).
const optionalProject = z.string().max(200).optional();

export const fileUnder = optionalProject.describe('File under this project; else: inbox');

const filterBy = optionalProject.describe('Filed under this project');

/** A capture's write answer: its review state, and the item it was promoted to, if any. */
export const answer = (capture: Capture): WriteAnswer =>
  writeAnswer({ id: capture.id, state: capture.review_state, item_id: capture.promoted_item_id });

export const ack = (result: WriteAnswer) =>
  `capture ${shortId(result.id)} ${result.state}${result.item_id ? ` item ${shortId(result.item_id)}` : ''}`;

export async function lock(ctx: WriteContext, ref: string): Promise<Capture> {
  return lockCapture(ctx.tx, parseIdRef(ref, 'capture_id'));
}

/** Lock a capture, move it to the review state `event` leads to (refused where the table says so), and audit the move. */
export async function moveCapture(ctx: WriteContext, ref: string, event: CaptureEvent): Promise<WriteAnswer> {
  const capture = await lock(ctx, ref);
  const target = captureTransition(capture, event);
  const updated = await updateCapture(ctx.tx, capture.id, { review_state: target });
  ctx.audit({ project_id: capture.project_id, target_kind: 'capture', target_id: capture.id, details: { from: capture.review_state, to: target } });
  return answer(updated);
}

/** The filters of a capture list but where it looks: svc_capture_list's, and inbox_list's (the shared inbox). */
export const stateFilters = {
  review_state: z.enum(CAPTURE_STATES).optional().describe('Only captures in this state'),
  include_discarded: z.boolean().optional().describe('Also show discarded captures (default false)'),
  include_redacted: z.boolean().optional().describe('Also show redacted captures, masked (default false)'),
  limit,
};

export const listFilters = { project_id: filterBy, ...stateFilters };

/**
 * One page of captures where `project_id` says (a project, the shared inbox, or everywhere), for `plan` if a
 * search: at most `limit` of them, fewer if their text would pass the answer budget (docs/decisions/0039).
 */
export async function capturePage(
  ctx: ReadContext,
  input: { review_state?: Capture['review_state'] | undefined; include_discarded?: boolean | undefined; include_redacted?: boolean | undefined; limit?: number | undefined },
  where: { project_id: string | null | undefined; plan?: TsPlan | undefined },
): Promise<{ captures: (Capture & { rank?: number })[]; limited: boolean; sized: boolean }> {
  const max = boundedLimit(input.limit);
  const rows = await listCaptures(
    ctx.db,
    { ...where, review_state: input.review_state, include_discarded: input.include_discarded ?? false, include_redacted: input.include_redacted ?? false },
    max,
  );
  const page = boundedPage(rows, max, (c) => c.text.length + (c.summary?.length ?? 0));
  return { captures: page.rows, limited: page.limited, sized: page.sized };
}

/** The id of the project a list filters by; an unknown project is `not_found`, never an empty list. */
export async function filedUnder(ctx: ReadContext, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : (await resolveProject(ctx.db, ref)).id;
}
