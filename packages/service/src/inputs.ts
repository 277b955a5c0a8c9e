import { MAX_QUERY_LENGTH } from '@svc/domain';
import { z } from 'zod';

/** Shared input fields, so every tool describes them the same way. */
export const MAX_LIMIT = 200;
export const DEFAULT_LIMIT = 20;
/** Text fields up to 1 MiB. */
export const MAX_TEXT = 1024 * 1024;

export const projectRef = z.string().min(1).max(200).describe('Project slug, UUID or id prefix');
export const itemRef = z.string().min(1).max(100).describe('Item UUID or prefix');
export const idRef = (what: string) =>
  z.string().min(1).max(100).describe(`${what} UUID or prefix`);
export const limit = z
  .number()
  .int()
  .min(1)
  .max(100_000)
  .optional()
  .describe(`Max results (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`);
export const text = (what: string, max = MAX_TEXT) => z.string().max(max).describe(what);
export const title = z.string().trim().min(1).max(1000).describe('Title (1 to 1000 characters)');
export const body = z.string().max(MAX_TEXT).describe('Body text (markdown allowed)');
/** Search text in the query dialect; its limit is the parser's, so nothing is cut between the two. */
export const searchQuery = (what: string) =>
  z.string().max(MAX_QUERY_LENGTH, { error: `at most ${MAX_QUERY_LENGTH} characters` }).describe(`${what} (at most ${MAX_QUERY_LENGTH} characters and 32 clauses; longer is refused, never cut)`);
export const jsonObject = z.record(z.string(), z.unknown());
export const context = jsonObject.describe("Structured fields, validated against the item type's JSON Schema");
export const linkType = z.enum(['depends', 'blocks', 'supersedes', 'conflicts']);
export const linkInput = z.object({
  type: linkType.describe('Edge from this item to the target; depends: this waits on the target, blocks: the target waits on this'),
  target_id: itemRef.describe('Target item: UUID or unique prefix, in the same project'),
});
export const semanticImpacts = z
  .array(
    z.enum([
      'numeric_change',
      'rule_addition',
      'rule_removal',
      'status_change',
      'scope_change',
      'context_change',
      'wording_change',
    ]),
  )
  .max(7);

export function boundedLimit(value: number | undefined): number {
  return Math.min(value ?? DEFAULT_LIMIT, MAX_LIMIT);
}

/** An ISO 8601 time; checked by parsing, so the tool schema stays short (no giant regex). */
export const isoTime = (what: string) =>
  z
    .string()
    .max(40)
    .refine((v) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), {
      message: 'must be an ISO 8601 time, e.g. 2026-01-31T12:00:00Z',
    })
    .describe(what);

/** An actor UUID; checked as a UUID when used, so the schema stays short. */
export const actorRef = (what: string) => z.string().max(100).describe(what);
