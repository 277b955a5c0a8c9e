import { MAX_JSON_CHARS, MAX_SOURCE_URL, SEMANTIC_IMPACTS } from '@svc/domain';
import type { ColumnType } from '@svc/store';
import {
  MAX_EMAIL,
  MAX_KEY,
  MAX_NAME,
  MAX_NOTE,
  MAX_REASON,
  MAX_REQUEST_ID,
  MAX_ROLE,
  MAX_SLUG,
  MAX_TEXT,
  MAX_TITLE,
  MAX_WORK_TITLE,
} from '../inputs.js';

/**
 * How long each value of an import file may be: what the same field may be when given by hand (docs/decisions/0014,
 * amended). Without these, a crafted file stored a 1.9 MB project name, work unit title or actor name, and every
 * answer naming them carried it whatever its own bound (resources/list and svc_work_resume 3.8 MB, a brief asked
 * for 2,000 characters 1.9 MB: an attacker, 2026-11-28).
 */

/**
 * NFKC makes at most 18 characters of one (U+FDFA, checked over every code point) and the rest of normalizeTerm
 * lengthens nothing, so this bounds the normalized form of a term of MAX_NAME characters.
 */
const NFKC_MOST = 18;

/**
 * The most characters of every text column of every record kind (for a text[] column, of each of its strings),
 * beside the field given by hand it comes from. A column only svc writes has no such field: it takes the bound of
 * the closest one, said beside it. Every text column an export holds is here (limits.test.ts checks the list
 * against the database), so a column added later fails that test instead of importing unbounded.
 */
export const TEXT_LIMITS: Record<string, Record<string, number>> = {
  project: { slug: MAX_SLUG, name: MAX_NAME },
  actor: { name: MAX_NAME, email: MAX_EMAIL, role: MAX_ROLE },
  // owner is type_add's --owner; key is held to isTypeKey by confine.
  item_type: { key: MAX_KEY, display_name: MAX_NAME, owner: MAX_NAME },
  system: { name: MAX_NAME },
  // status is a state's name (the database holds it to its states).
  work_unit: { title: MAX_WORK_TITLE, description: MAX_NOTE, status: MAX_KEY },
  item: { item_type: MAX_KEY, title: MAX_TITLE, body: MAX_TEXT, status: MAX_KEY, source_url: MAX_SOURCE_URL },
  link: { link_type: MAX_KEY },
  // source is the surface svc wrote it from (mcp, http, cli): no hand input, a key's bound.
  history: { change_kind: MAX_KEY, source: MAX_KEY, semantic_impacts: MAX_KEY },
  glossary_group: { name: MAX_NAME },
  // normalized is made of the term, and may be longer than it (NFKC_MOST).
  glossary_term: { term: MAX_NAME, normalized: MAX_NAME * NFKC_MOST, status: MAX_KEY },
  glossary_rejection: { term: MAX_NAME, normalized: MAX_NAME * NFKC_MOST, reason: MAX_REASON },
  capture: { text: MAX_TEXT, summary: MAX_NOTE, sensitivity_hint: MAX_NAME, review_state: MAX_KEY },
  idea: { text: MAX_TEXT },
  // kind names the job (page_sync): no hand input, a key's bound.
  sync_job: { kind: MAX_KEY, status: MAX_KEY },
  // No hand input but request_id (X-Request-Id): source is the surface, operation an operation's name (at most 21
  // characters today) and target_kind a kind of record, each given a key's bound.
  audit: { source: MAX_KEY, operation: MAX_KEY, target_kind: MAX_KEY, request_id: MAX_REQUEST_ID },
};

/** The most strings of a text[] column: an entry's semantic impacts, each named once. */
export const ARRAY_LIMITS: Record<string, Record<string, number>> = {
  history: { semantic_impacts: SEMANTIC_IMPACTS.length },
};

const count = (n: number) => n.toLocaleString('en');

/**
 * What makes a value too long for its column, in words; undefined when it fits. A JSON column (context, signals,
 * settings, a type's schema, external ids, details) is held to the 1 MiB of JSON a context or signals may be by
 * hand (checkJsonSize); those with no hand input take the same bound. Called once the value fits the column's type.
 */
export function lengthProblem(kind: string, column: ColumnType, value: unknown): string | undefined {
  if (value === null) return undefined;
  if (column.type === 'jsonb') {
    const chars = JSON.stringify(value).length;
    return chars > MAX_JSON_CHARS ? `is ${count(chars)} characters as JSON; at most 1 MiB (${count(MAX_JSON_CHARS)} characters) is stored` : undefined;
  }
  const most = TEXT_LIMITS[kind]?.[column.name];
  if (column.type === 'text' && typeof value === 'string' && most !== undefined && value.length > most) {
    return `is ${count(value.length)} characters long; at most ${count(most)}`;
  }
  if (column.type === '_text' && Array.isArray(value)) {
    const items = ARRAY_LIMITS[kind]?.[column.name];
    if (items !== undefined && value.length > items) return `holds ${count(value.length)} values; at most ${count(items)}`;
    const long = value.findIndex((v) => typeof v === 'string' && most !== undefined && v.length > most);
    if (long !== -1) return `holds a value ${count((value[long] as string).length)} characters long; at most ${count(most as number)}`;
  }
  return undefined;
}
