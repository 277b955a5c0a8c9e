import { type IdRef, notFound, SvcError, shortId } from '@svc/domain';
import { type RawBuilder, sql } from 'kysely';

/** A where-clause for an id column matching a reference: equality for a UUID, a range scan for a prefix. */
export function idMatches(column: string, ref: IdRef): RawBuilder<boolean> {
  return ref.kind === 'uuid'
    ? sql<boolean>`${sql.ref(column)} = ${ref.id}::uuid`
    : sql<boolean>`${sql.ref(column)} between ${ref.low}::uuid and ${ref.high}::uuid`;
}

/**
 * The one row a reference names, from the rows read with idMatches (a few, so that more than one tells):
 * not_found when none, ambiguous_id listing the candidates when several. `shown` is the reference as the
 * not_found message quotes it (default: as parsed). Every resolver of an id or prefix ends here.
 */
export function onlyMatch<T>(rows: readonly T[], kind: string, ref: IdRef, candidate: (row: T) => { id: string; label: string }, shown = ref.input): T {
  const [first] = rows;
  if (first === undefined) throw notFound(kind, shown, ref.field);
  if (rows.length > 1) throw ambiguous(kind, ref, rows.map(candidate));
  return first;
}

function ambiguous(kind: string, ref: IdRef, candidates: { id: string; label: string }[]): SvcError {
  return new SvcError(
    'ambiguous_id',
    `${ref.field}: ${kind} prefix '${ref.input}' matches more than one ${kind}: ${candidates
      .map((c) => `${shortId(c.id)} (${c.label})`)
      .join(', ')}; give more characters`,
    { field: ref.field, kind, ref: ref.input, candidates: candidates.map((c) => ({ id: c.id, label: c.label })) },
  );
}

/** `text` as a LIKE pattern matching itself literally: its backslashes, % and _ escaped. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A LIKE pattern for values starting with `prefix`. */
export const likeStartsWith = (prefix: string): string => `${likeLiteral(prefix)}%`;

/** A LIKE pattern for values containing `part`. */
export const likeContains = (part: string): string => `%${likeLiteral(part)}%`;

export function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

export function isoOrNull(value: Date | string | null): string | null {
  return value === null ? null : iso(value);
}

/** How many names a not-found refusal lists: enough to spot a misspelling, few enough to read. */
export const NAMES_LISTED = 20;

/**
 * A reference `raw` in `field` that names no `kind`, refused as not_found with the names there are (`names`, read
 * with one more than NAMES_LISTED to tell that the list goes on): a misspelling is seen at once (a newcomer).
 */
export function notFoundAmong(kind: string, raw: string, field: string, names: readonly string[], words: { none: string; some: string; hint: string }): SvcError {
  const shown = names.slice(0, NAMES_LISTED);
  const known = shown.length === 0 ? words.none : `${words.some}: ${shown.map((n) => JSON.stringify(n)).join(', ')}${names.length > NAMES_LISTED ? ', …' : ''}`;
  const error = notFound(kind, raw, field);
  return new SvcError(error.code, `${error.message}; ${known} (${words.hint})`, { ...error.details, known: shown });
}
