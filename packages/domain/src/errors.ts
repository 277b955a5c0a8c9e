/**
 * The one error type of svc. Everything a caller can be refused for is an SvcError with a code from this
 * union; the edges (MCP, HTTP, CLI) map codes to their own conventions and never show anything else.
 */
export const ERROR_CODES = [
  'invalid_input',
  'not_found',
  'ambiguous_id',
  'conflict',
  'refused_transition',
  'actor_required',
  'unknown_actor',
  'forbidden',
  'payload_too_large',
  'unsupported_media_type',
  'unavailable',
  'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorDetails = Record<string, unknown>;

export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'SvcError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export function isSvcError(value: unknown): value is SvcError {
  return value instanceof SvcError;
}

export const invalidInput = (field: string, message: string, details: ErrorDetails = {}): SvcError =>
  new SvcError('invalid_input', `${field}: ${message}`, { field, ...details });

/**
 * The refusal `error` about the input field details.field, its message naming that field `name` instead (the CLI's
 * `--type` for `item_types[0]`), with `details` added (details.field is kept). Refusals about a field begin their
 * message with it (invalidInput, notFound, zod's issues): one that does not is returned as it is.
 */
export function withFieldNamed(error: SvcError, name: string, details: ErrorDetails = {}): SvcError {
  const field = error.details.field;
  if (typeof field !== 'string') return error;
  const prefix = `${field}: `;
  if (error.message.slice(0, prefix.length) !== prefix) return error;
  return new SvcError(error.code, `${name}: ${error.message.slice(prefix.length)}`, { ...error.details, ...details });
}

/**
 * A reference that names nothing. `field` is the input field that held it (`decisions[2].system_id`): the
 * message starts with it and details.field carries it, so a caller can tell which argument to fix.
 */
export const notFound = (kind: string, ref: string, field?: string): SvcError =>
  field === undefined
    ? new SvcError('not_found', `${kind} '${ref}' not found`, { kind, ref })
    : new SvcError('not_found', `${field}: ${kind} '${ref}' not found`, { field, kind, ref });
