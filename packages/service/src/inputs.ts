import { LINK_TYPES, MAX_QUERY_LENGTH, MAX_SOURCE_URL, SEMANTIC_IMPACTS } from '@svc/domain';
import { z } from 'zod';

/** Shared input fields, so every tool describes them the same way. */
const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 20;
/** Text fields up to 1 MiB; a context or signals object up to 1 MiB of JSON (domain's MAX_JSON_CHARS). */
export const MAX_TEXT = 1024 * 1024;

/*
 * How long a text given by hand may be, by what it is. The operations' schemas take their bounds from here, and an
 * import holds its file's records to the same ones (transfer/limits.ts): a crafted file must not store what no
 * caller could have typed, such as a 1.9 MB project name that every list, brief and page then carries.
 */
/** A name or short label: project, actor, system, glossary group and term, an item type's display name and owner, a capture's sensitivity hint. */
export const MAX_NAME = 200;
/** A project's slug (isSlug holds it to the same 63). */
export const MAX_SLUG = 63;
export const MAX_EMAIL = 320;
export const MAX_ROLE = 100;
/** A work unit's title. */
export const MAX_WORK_TITLE = 500;
/** An item's title (the database checks the same bound). */
export const MAX_TITLE = 1000;
/** A note: a work unit's description, a capture's summary, a task's outcome or block reason, a QA note. */
export const MAX_NOTE = 100_000;
/** Why a glossary term was rejected. */
export const MAX_REASON = 2000;
/** A key or a state's name: an item type key, a review state, a semantic impact. */
export const MAX_KEY = 40;
/** An actor's external ids: the name of the other system, and the id there. */
export const MAX_EXTERNAL_ID_NAME = 100;
export const MAX_EXTERNAL_ID = 500;
/** A request id a caller may give (X-Request-Id); longer ones are replaced by one of svc's. */
export const MAX_REQUEST_ID = 128;

export const projectRef = z.string().min(1).max(200).describe('Project slug, id or prefix');
export const itemRef = z.string().min(1).max(100).describe('Item UUID or prefix');
/** The optional scope of an id lookup: prefixes then resolve only inside this project. */
export const scopeOfId = projectRef.optional().describe('Resolve the id only inside this project');
/** An item named by id or prefix, optionally inside one project. */
export const itemInProject = z.object({ item_id: itemRef, project_id: scopeOfId });
export const idRef = (what: string) =>
  z.string().min(1).max(100).describe(`${what} id or prefix`);
export const limit = z
  .number()
  .min(1)
  // Refused above the most, never cut to it: a client asking for 500 would read 200 as all there is (decision 0049).
  // Before .int(), whose own bound (2^53 - 1) would otherwise be the first problem named for 1e20.
  .max(MAX_LIMIT, { error: `at most ${MAX_LIMIT}; ask for fewer and narrow the query or filters to see the rest` })
  .int({ error: 'must be a whole number' })
  .optional()
  .describe(`Max results (default ${DEFAULT_LIMIT})`);
export const title = z.string().trim().min(1).max(MAX_TITLE).describe(`Title (1 to ${MAX_TITLE} characters)`);
export const body = z.string().max(MAX_TEXT).describe('Body text (markdown allowed)');
/** Search text in the query dialect; its limit is the parser's, so nothing is cut between the two. */
export const searchQuery = (what: string) =>
  z.string().max(MAX_QUERY_LENGTH, { error: `at most ${MAX_QUERY_LENGTH} characters` }).describe(`${what} (≤${MAX_QUERY_LENGTH} characters, 32 clauses; longer is refused)`);
export const jsonObject = z.record(z.string(), z.unknown());
export const context = jsonObject.describe("Structured fields, validated against the item type's JSON Schema");
/** Where an item's information comes from; checked as an absolute http(s) URL when written (domain's checkSourceUrl). */
export const sourceUrl = z.string().max(MAX_SOURCE_URL).describe('http(s) URL of the source; required for research');
export const linkType = z.enum(LINK_TYPES);
export const linkInput = z.object({
  type: linkType.describe('depends: this waits on the target; blocks: the target waits on this'),
  target_id: itemRef.describe('Target item (id or prefix), same project'),
});
export const semanticImpacts = z.array(z.enum(SEMANTIC_IMPACTS)).max(SEMANTIC_IMPACTS.length);

export function boundedLimit(value: number | undefined): number {
  return Math.min(value ?? DEFAULT_LIMIT, MAX_LIMIT);
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * An ISO 8601 date or time naming a real instant: a calendar date (no 30 February; Date.parse rolls it over
 * to March), hours 0–23, minutes and seconds 0–59, a zone offset of at most 23:59.
 */
export function isIsoTime(value: string): boolean {
  const m = ISO_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] = m
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  if (year === undefined || month === undefined || day === undefined) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && zoneHour <= 23 && zoneMinute <= 59
  );
}

/**
 * An ISO 8601 time as the instant it names, checked by parsing, so the tool schema stays short (no giant regex). A
 * time without a zone is UTC, as SPEC's timestamps are: read by Date it would be the server's local time, and the
 * same call would answer differently on a machine in another zone.
 */
export const isoTime = (what: string) =>
  z
    .string()
    .max(40)
    .refine(isIsoTime, {
      message: 'must be an ISO 8601 time on a real calendar date, e.g. 2026-01-31T12:00:00Z',
    })
    .transform((value) => new Date(/T[^Z+-]*$/.test(value) ? `${value}Z` : value))
    // An instant past 9999-12-31 or before 0001-01-01 (UTC), which a zone offset can make of a valid date, is out of
    // the database's range: refused naming the field rather than failing there (a reviewer's 500 on PGlite).
    .refine((instant) => instant.getUTCFullYear() >= 1 && instant.getUTCFullYear() <= 9999, {
      message: 'must name an instant from 0001-01-01 to 9999-12-31 (UTC)',
    })
    .describe(what);

/** An actor UUID; checked as a UUID when used, so the schema stays short. */
export const actorRef = (what: string) => z.string().max(100).describe(what);

/**
 * Why a search answer is not the whole answer (issue 18): `limit`, more items match than the page holds;
 * `glossary_expansion`, a glossary group had more synonyms than were searched; `partial`, svc_item_search's near
 * misses were looked for among more items than a search reads, so the list may miss some; `size`, capture and idea
 * searches stopped before their texts passed ANSWER_TEXT_BUDGET. A query over the length or
 * clause limit is never cut: it is refused with invalid_input naming `query`.
 */
export type SearchCut = 'limit' | 'glossary_expansion' | 'partial' | 'size';

/** `false` when nothing was cut, else the reasons, so a client testing `truncated` for truth still works. */
export function truncation(cuts: Partial<Record<SearchCut, boolean>>): false | SearchCut[] {
  const reasons = (['limit', 'glossary_expansion', 'partial', 'size'] as const).filter((c) => cuts[c]);
  return reasons.length === 0 ? false : reasons;
}

/**
 * Text one list answer carries at most, over the whole texts it returns (captures' and ideas' text and summary).
 * A count alone does not bound an answer: 200 captures of 1 MiB each made a 200 MiB answer (a 400 MiB MCP one,
 * escaped twice), past what a client can hold. The first row is always kept, so a list is never empty for size.
 */
const ANSWER_TEXT_BUDGET = 512 * 1024;

/**
 * A list answer's page from `rows` read with `limit + 1` (the store's way of telling a cut): at most `max` of them,
 * and of those the longest prefix whose texts fit ANSWER_TEXT_BUDGET (at least one row). `limited`: more rows than
 * `max`; `sized`: the budget cut the page shorter.
 */
export function boundedPage<T>(rows: T[], max: number, size: (row: T) => number): { rows: T[]; limited: boolean; sized: boolean } {
  const page = rows.slice(0, max);
  let used = 0;
  for (const [i, row] of page.entries()) {
    used += size(row);
    if (used > ANSWER_TEXT_BUDGET && i > 0) return { rows: page.slice(0, i), limited: rows.length > max, sized: true };
  }
  return { rows: page, limited: rows.length > max, sized: false };
}
