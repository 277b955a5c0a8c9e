import { type IdRef, SvcError, shortId } from '@svc/domain';
import { type RawBuilder, sql } from 'kysely';

/** A where-clause for an id column matching a reference: equality for a UUID, a range scan for a prefix. */
export function idMatches(column: string, ref: IdRef): RawBuilder<boolean> {
  return ref.kind === 'uuid'
    ? sql<boolean>`${sql.ref(column)} = ${ref.id}::uuid`
    : sql<boolean>`${sql.ref(column)} between ${ref.low}::uuid and ${ref.high}::uuid`;
}

export function ambiguous(kind: string, ref: IdRef, candidates: { id: string; label: string }[]): SvcError {
  return new SvcError(
    'ambiguous_id',
    `${ref.field}: ${kind} prefix '${ref.input}' matches more than one ${kind}: ${candidates
      .map((c) => `${shortId(c.id)} (${c.label})`)
      .join(', ')}; give more characters`,
    { field: ref.field, kind, ref: ref.input, candidates: candidates.map((c) => ({ id: c.id, label: c.label })) },
  );
}

export function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

export function isoOrNull(value: Date | string | null): string | null {
  return value === null ? null : iso(value);
}
