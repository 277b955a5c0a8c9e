/**
 * Statements PostgreSQL keeps prepared, by name, on each pooled connection: the hottest reads, whose planning
 * costs PostgreSQL more than running them (item_show's statement: ~430 µs planned each time, ~105 µs
 * prepared). Only fixed texts written once in the store are registered, so the set is small and bounded; a
 * query built per call is never named. The pg pool (connection.ts) sends a registered text with its name;
 * PGlite has no pool or network and runs every text as it comes.
 *
 * Turned off by the store setting `preparedStatements: false` (SVC_PREPARED_STATEMENTS=off), for a pooler in
 * transaction mode that does not track prepared statements (PgBouncer before 1.21, or
 * max_prepared_statements = 0). See docs/decisions/0009-named-prepared-statements.md.
 */

const names = new Map<string, string>();
const texts = new Map<string, string>();

/** Register `text` under `name` and return the text, for use as a module-level constant. */
export function prepared(name: string, text: string): string {
  const known = texts.get(name);
  if (known !== undefined && known !== text) throw new Error(`prepared statement ${name} is registered twice with different texts`);
  texts.set(name, text);
  names.set(text, `svc_${name}`);
  return text;
}

/** The name a registered text is prepared under, or undefined for any other text. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}
