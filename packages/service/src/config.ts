import { isSlug, SvcError } from '@svc/domain';
import { z } from 'zod';
import { formatPath } from './errors.js';
import { LOG_LEVELS, type LogLevel } from './logger.js';
import { DEFAULT_SEARCH_TIMEOUT_MS } from './searches.js';

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  defaultActorId: string | undefined;
  httpHost: string;
  httpPort: number;
  allowedHosts: string[] | undefined;
  logLevel: LogLevel;
  /** PostgreSQL statement time-out; the client gives up 2 s later (a silent server cannot hold a request). */
  statementTimeoutMs: number;
  /** Keep the hottest fixed reads prepared by name per connection (PostgreSQL); off behind a pooler that cannot. */
  preparedStatements: boolean;
  /** SVC_POOL_SIZE: connections to PostgreSQL this process keeps at most. */
  poolSize: number;
  /**
   * SVC_SEARCH_TIMEOUT_MS: how long a search may take, waiting its turn included, before it is stopped and refused
   * (at most the statement time-out).
   */
  searchTimeoutMs: number;
  /** SVC_PROJECT: the project first use finds or creates (`svc init`, `svc serve http`; docs/decisions/0028). */
  project: string | undefined;
  /** SVC_ACTOR_EMAIL: the actor first use finds or creates. */
  actorEmail: string | undefined;
}

const blankIsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const schema = z.object({
  SVC_DATABASE_URL: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  SVC_DATA_DIR: z.preprocess(blankIsUnset, z.string().default('./.svc/data')),
  SVC_DEFAULT_ACTOR_ID: z.preprocess(blankIsUnset, z.uuid('must be an actor UUID (see `svc actor list`)').optional()),
  SVC_HTTP_HOST: z.preprocess(blankIsUnset, z.string().default('127.0.0.1')),
  SVC_HTTP_PORT: z.preprocess(
    blankIsUnset,
    z.coerce.number().int('must be a whole number').min(0).max(65535, 'must be a port number (0 to 65535)').default(8080),
  ),
  SVC_PROJECT: z.preprocess(
    blankIsUnset,
    z
      .string()
      .refine(isSlug, 'must be a project slug (lowercase letters, digits and hyphens, starting with a letter or digit)')
      .optional(),
  ),
  SVC_ACTOR_EMAIL: z.preprocess(blankIsUnset, z.email('must be an email address').max(320).optional()),
  SVC_ALLOWED_HOSTS: z.preprocess(
    blankIsUnset,
    z
      .string()
      .superRefine((value, ctx) => {
        for (const entry of value.split(',').map((h) => h.trim()).filter((h) => h !== '')) {
          const why = badHostEntry(entry);
          if (why) ctx.addIssue({ code: 'custom', message: `${why}; a comma-separated list such as svc.example.com,svc.example.com:8443` });
        }
      })
      .optional(),
  ),
  SVC_LOG_LEVEL: z.preprocess(blankIsUnset, z.enum(LOG_LEVELS).default('info')),
  SVC_STATEMENT_TIMEOUT_MS: z.preprocess(
    blankIsUnset,
    z.coerce.number().int('must be a whole number of milliseconds').min(100).max(3_600_000).default(30_000),
  ),
  SVC_POOL_SIZE: z.preprocess(blankIsUnset, z.coerce.number().int('must be a whole number').min(1).max(1_000).default(10)),
  SVC_SEARCH_TIMEOUT_MS: z.preprocess(
    blankIsUnset,
    z.coerce.number().int('must be a whole number of milliseconds').min(100).max(3_600_000).default(DEFAULT_SEARCH_TIMEOUT_MS),
  ),
  SVC_PREPARED_STATEMENTS: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : v),
    z.enum(['on', 'off', 'true', 'false', '1', '0'], { error: 'must be on or off' }).default('on'),
  ),
});

/**
 * `name[:port]` or `[v6][:port]`, lower-cased; anything else (a scheme, userinfo, a path, `*`, a second colon,
 * trailing bytes after `]`) is not a host and matches nothing. An unbracketed IPv6 literal (`::1`) reads as that
 * address: the name (or bracketed literal) and the port if given. The one reading of a Host header and an
 * SVC_ALLOWED_HOSTS entry (an Origin is compared whole with the request's own, apps/mcp hosts.ts).
 */
export function parseHost(value: string): { host: string; port: string | undefined } | undefined {
  const v = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(v);
  if (match) return { host: match[1] as string, port: match[2] };
  if (/^[0-9a-f:.]+$/.test(v) && v.includes('::')) return { host: `[${v}]`, port: undefined };
  return undefined;
}

/** Why an SVC_ALLOWED_HOSTS entry can never match a request, or undefined when it can. */
function badHostEntry(entry: string): string | undefined {
  const parsed = parseHost(entry);
  if (!parsed) return `'${entry}' is not a host name[:port] (no scheme, path or wildcard)`;
  if (parsed.port !== undefined && (Number(parsed.port) < 1 || Number(parsed.port) > 65_535)) return `'${entry}': port must be 1 to 65535`;
  return undefined;
}

/** Read and validate the process settings; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue ? formatPath(issue.path) : 'environment';
    throw new SvcError('invalid_input', `${name}: ${issue?.message ?? 'is not valid'}`, { field: name });
  }
  const e = parsed.data;
  return {
    databaseUrl: e.SVC_DATABASE_URL,
    dataDir: e.SVC_DATA_DIR,
    defaultActorId: e.SVC_DEFAULT_ACTOR_ID?.toLowerCase(),
    httpHost: e.SVC_HTTP_HOST,
    httpPort: e.SVC_HTTP_PORT,
    allowedHosts: e.SVC_ALLOWED_HOSTS?.split(',')
      .map((h) => h.trim())
      .filter((h) => h !== ''),
    logLevel: e.SVC_LOG_LEVEL,
    statementTimeoutMs: e.SVC_STATEMENT_TIMEOUT_MS,
    preparedStatements: ['on', 'true', '1'].includes(e.SVC_PREPARED_STATEMENTS),
    poolSize: e.SVC_POOL_SIZE,
    searchTimeoutMs: Math.min(e.SVC_SEARCH_TIMEOUT_MS, e.SVC_STATEMENT_TIMEOUT_MS),
    project: e.SVC_PROJECT,
    actorEmail: e.SVC_ACTOR_EMAIL,
  };
}
