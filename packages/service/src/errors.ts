import { SvcError } from '@svc/domain';
import type { z } from 'zod';
import { type AnyOperation, addressedFields } from './operation.js';

/** Turn a zod failure into invalid_input naming the first offending field, e.g. `decisions[3].title`. */
export function fromZod(error: z.ZodError): SvcError {
  const issues = error.issues.map((issue) => ({ field: formatPath(issue.path), message: zodMessage(issue) }));
  const first = issues[0] ?? { field: 'input', message: 'is not valid' };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return new SvcError('invalid_input', `${first.field}: ${first.message}${more}`, { field: first.field, issues: issues.slice(0, 20) });
}

/** zod's words, except for a missing value, which it calls "expected string, received undefined". */
function zodMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return `is required (${issue.expected})`;
  // "Invalid input: expected number, received string" (a client sending limit: "5") said plainly.
  const mistyped = issue.code === 'invalid_type' ? /^Invalid input: expected (\w+), received (\w+)$/.exec(issue.message) : null;
  if (mistyped?.[1] === 'int' && mistyped[2] === 'number') return 'must be a whole number';
  // zod's "Invalid email address" and the like, said as what the value must be.
  if (issue.code === 'invalid_format' && issue.format === 'email') return 'must be an email address (name@example.com)';
  if (mistyped) return `must be ${withArticle(mistyped[1] as string)}, not ${withArticle(mistyped[2] as string)}`;
  // zod's own words for bounds and choices ("Too small: expected string to have >=1 characters") said plainly; a
  // message the schema gives (limit's "at most 200; …") is kept.
  if ((issue.code === 'too_small' || issue.code === 'too_big') && /^Too (small|big): expected /.test(issue.message)) return boundMessage(issue);
  if (issue.code === 'invalid_value' && /^Invalid (option|input): expected /.test(issue.message)) {
    return `must be one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return issue.message;
}

/** A JSON value's kind as zod names it, in words: a record is what a JSON object is to the caller. */
const withArticle = (kind: string) => {
  if (kind === 'null') return 'null';
  if (kind === 'record' || kind === 'object') return 'a JSON object';
  if (kind === 'int') return 'a whole number';
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
};

function boundMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? (issue as z.core.$ZodIssueTooSmall).minimum : (issue as z.core.$ZodIssueTooBig).maximum);
  const exact = issue.inclusive !== false;
  const at = `${small ? (exact ? 'at least' : 'more than') : exact ? 'at most' : 'less than'} ${bound}`;
  switch (issue.origin) {
    case 'string':
      return small && exact && bound === 1 ? 'must not be empty' : `must be ${at} characters long`;
    case 'array':
    case 'set':
      return small && exact && bound === 1 ? 'must hold at least one value' : `must hold ${at} values`;
    default:
      return `must be ${at}`;
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'input' : out;
}

/**
 * A write's argument that names nothing is a bad argument (invalid_input, HTTP 400), not a missing resource:
 * only the record the write acts on (its `addresses`, REST's path) stays not_found (decision 0017).
 */
export function refineRefusal(op: AnyOperation, error: SvcError): SvcError {
  if (error.code !== 'not_found' || op.kind === 'read') return error;
  const field = error.details.field;
  if (typeof field !== 'string') return error;
  const root = field.split(/[.[]/)[0] ?? field;
  if (addressedFields(op).has(root)) return error;
  return new SvcError('invalid_input', error.message, error.details);
}

interface PgLikeError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

const CONSTRAINT_MESSAGES: Record<string, [SvcError['code'], string]> = {
  projects_slug_key: ['conflict', 'slug: a project with this slug already exists'],
  actors_email: ['conflict', 'email: an actor with this email is already registered'],
  systems_project_id_name_key: ['conflict', 'name: the project already has a system with this name'],
  glossary_groups_project_id_name_key: ['conflict', 'name: the project already has a glossary group with this name'],
  glossary_terms_group_id_normalized_key: ['conflict', 'term: the group already has this term'],
  item_types_pkey: ['conflict', 'key: an item type with this key already exists'],
  items_one_in_progress_task: ['refused_transition', 'another task of this work unit is already in progress'],
  items_one_head_per_chain: ['conflict', 'the item was changed concurrently; read it again and retry'],
  items_supersedes_once: ['conflict', 'the item was changed concurrently; read it again and retry'],
  items_research_has_source: ['invalid_input', 'source_url: research items require a source_url'],
  items_task_has_work_unit: ['invalid_input', 'work_unit_id: tasks require a work unit'],
  items_status_fits_type: ['invalid_input', 'status: not a valid status for this item type'],
};

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/** PostgreSQL's 08P01 messages about a statement's Bind/Parse/Describe/Execute message, not the connection. */
const STATEMENT_PROTOCOL_ERROR = /\b(bind|parse|describe|execute) message\b|\bparameters?\b.*\brequires?\b|insufficient data left in message|invalid message format/i;

/**
 * PostgreSQL's refusal of a search vector (the generated `search` column of items, captures and ideas) past its
 * size limit: 1 MiB of a text's distinct words and their positions (54000, "string is too long for tsvector").
 * No check before the write can tell exactly (stemming, stop words, identifier parts), so the refusal is mapped.
 */
function isSearchIndexOverflow(error: unknown): boolean {
  const e = (error ?? {}) as PgLikeError;
  return e.code === '54000' && /too long for tsvector/.test(String(e.message ?? ''));
}

const SEARCH_INDEX_LIMIT = 'the search index keeps at most 1 MiB of distinct words and their positions';

/**
 * Write texts a search vector is made of (`fields`, e.g. title and body; the last is the one the refusal points
 * at, the long one), turning PostgreSQL's refusal of the vector into invalid_input naming them, so a text of too
 * many distinct words is the caller's to shorten, not a 413 or a 500 that names nothing.
 */
export async function writeIndexed<T>(fields: string[], what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isSearchIndexOverflow(error)) throw error;
    const verb = fields.length === 1 ? 'holds' : 'hold';
    throw new SvcError('invalid_input', `${fields.join(' and ')}: ${verb} more distinct words than the search index can hold for one ${what} (${SEARCH_INDEX_LIMIT}); shorten the text or split it into several ${what}s`, {
      field: fields.at(-1),
      fields,
    });
  }
}

/** SQLSTATEs worth retrying the whole transaction for. */
export function isRetryable(error: unknown): boolean {
  const code = (error as PgLikeError | undefined)?.code;
  // 26000 / 42P05: a pooler lost a statement prepared by name inside the transaction, which it aborted before the
  // statement ran; the store names nothing after that (docs/decisions/0009), so the transaction runs again unnamed.
  return code === '40001' || code === '40P01' || code === '26000' || code === '42P05';
}

/**
 * Map a database error to an SvcError the caller can act on, or undefined when it is not one we expect
 * (the runner then reports internal_error with a request id and logs the original).
 */
export function fromDatabase(error: unknown): SvcError | undefined {
  if (error instanceof SvcError) return error;
  const e = (error ?? {}) as PgLikeError;
  const code = typeof e.code === 'string' ? e.code : '';
  const constraint = typeof e.constraint === 'string' ? e.constraint : '';
  const known = CONSTRAINT_MESSAGES[constraint];
  if (known) return new SvcError(known[0], known[1], { constraint });
  const message = String(e.message ?? '');
  // A search vector of a write that did not name its texts (writeIndexed): an import's row, say.
  if (isSearchIndexOverflow(error)) return new SvcError('invalid_input', `a text holds more distinct words than the search index can hold (${SEARCH_INDEX_LIMIT})`);
  // A protocol violation in one of our own statements (too many bind parameters, a malformed message) says
  // nothing about the connection: it is a defect, for the runner to log and report with a request id.
  if (code === '08P01' && STATEMENT_PROTOCOL_ERROR.test(message)) return undefined;
  // The server answered but will not let us in: a mistyped database name or credentials, or a pooler refusing
  // what the client sent (PgBouncer: "unsupported startup parameter", 08P01). The operator's to fix.
  if (code === '3D000' || code === '28P01' || code === '28000' || code === '08P01') {
    return new SvcError('unavailable', `the database refused the connection: ${message}`);
  }
  if (CONNECTION_CODES.has(code) || code.startsWith('08') || code === '57P01' || code === '57P03' || /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i.test(message)) {
    return new SvcError('unavailable', 'the database is unavailable; try again shortly');
  }
  switch (code) {
    case '23505':
      return new SvcError('conflict', 'a record with these values already exists', { constraint });
    case '23503':
      return new SvcError('invalid_input', 'a referenced record does not exist or belongs to another project', { constraint });
    case '23514':
    case '23502':
      return new SvcError('invalid_input', `a value breaks the rule '${constraint || 'not null'}'`, { constraint });
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
    case '22021':
    case '22P05':
    case '22023':
      return new SvcError('invalid_input', 'a value is not valid for its field');
    case '54000':
    case '54001':
      return new SvcError('payload_too_large', 'a value is too large to store or index');
    case '57014':
      return new SvcError('unavailable', 'the database took too long to answer; try again');
    case '40001':
    case '40P01':
      return new SvcError('conflict', 'the write collided with a concurrent one; try again');
    default:
      return undefined;
  }
}
