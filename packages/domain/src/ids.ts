import { invalidInput } from './errors.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX_RE = /^[0-9a-f]+$/;

/** Fewest hex characters a prefix may have; shorter ones match too much to be useful. */
export const MIN_PREFIX_LENGTH = 4;
/** Length of the short ids shown to people; they work as input. */
export const SHORT_ID_LENGTH = 8;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value.toLowerCase());
}

export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}

/**
 * A reference given by a caller: a full UUID, or a unique prefix of one, with the input field that held it (so
 * a resolver's not_found or ambiguous_id names that field). A prefix is kept as the inclusive
 * range of UUIDs it covers, so the store can look it up with an index range scan instead of a text LIKE.
 */
export type IdRef =
  | { kind: 'uuid'; id: string; input: string; field: string }
  | { kind: 'prefix'; low: string; high: string; input: string; field: string };

function asUuid(hex32: string): string {
  return `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20)}`;
}

export function parseIdRef(raw: string, field = 'id'): IdRef {
  const input = raw.trim().toLowerCase();
  if (input === '') throw invalidInput(field, 'an id is required');
  if (UUID_RE.test(input)) return { kind: 'uuid', id: input, input, field };
  // Hyphens may stand where a UUID has them; anything else is not an id.
  const canonical = '00000000-0000-0000-0000-000000000000';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] as string;
    const expectHyphen = canonical[i] === '-';
    if (i >= canonical.length || (expectHyphen ? ch !== '-' : !/[0-9a-f]/.test(ch))) {
      throw invalidInput(field, `'${raw}' is not a UUID or a prefix of one (hex digits, at least ${MIN_PREFIX_LENGTH})`);
    }
  }
  const hex = input.replaceAll('-', '');
  if (!HEX_RE.test(hex) || hex.length < MIN_PREFIX_LENGTH) {
    throw invalidInput(field, `'${raw}' is too short: give at least ${MIN_PREFIX_LENGTH} hex digits of the id`);
  }
  return { kind: 'prefix', low: asUuid(hex.padEnd(32, '0')), high: asUuid(hex.padEnd(32, 'f')), input, field };
}

const SLUG_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function isSlug(value: string): boolean {
  return SLUG_RE.test(value);
}

/**
 * Why `slug` may not name a new project, or undefined when it may. Besides the slug's form: a slug that reads as an
 * id prefix as long as the short ids shown to people would hide, wherever a project is named, the project whose id
 * begins with it (a slug is looked up first), so a write meant for that project by its short id would land in this one.
 */
export function newSlugRefusal(slug: string): string | undefined {
  if (!isSlug(slug)) return `'${slug}' is not a valid slug: use lowercase letters, digits and hyphens (at most 63), starting with a letter or digit`;
  return idLikeName(slug, 'project', 'a slug');
}

/**
 * Why `name` may not name a new `what` (a project, a system) that is looked up by name before id, or undefined: it
 * reads as an id or an id prefix as long as the short ids shown to people, so it would hide the `what` whose id
 * begins with it.
 */
export function idLikeName(name: string, what: string, called: string): string | undefined {
  let ref: IdRef;
  try {
    ref = parseIdRef(name);
  } catch {
    return undefined;
  }
  if (ref.kind === 'uuid' || name.trim().replaceAll('-', '').length >= SHORT_ID_LENGTH) {
    return `'${name}' reads as a ${what} id or id prefix (${SHORT_ID_LENGTH} or more hex digits): ${called} must not, or it would hide the ${what} whose id begins with it; add a letter beyond a-f`;
  }
  return undefined;
}
