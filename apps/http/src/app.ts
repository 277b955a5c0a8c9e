import { randomUUID } from 'node:crypto';
import { createMcpHttpHandler, hostRefusal } from '@svc/mcp';
import { type AnyOperation, type ErrorCode, isSvcError, jsonErrorPlace, MAX_REQUEST_ID, ops, type Service, SvcError } from '@svc/service';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { buildOpenApi } from './openapi.js';
import { pathParams, ROUTES } from './routes.js';
import { isWebFormPost, mountWeb, webPayloadTooLarge } from './web/index.js';

export interface HttpOptions {
  /** Host values every route but /health accepts (SVC_ALLOWED_HOSTS; default: this machine's names); an Origin must be the request's own. */
  allowedHosts?: string[] | undefined;
  /** How long /ready waits for the database before answering 503. */
  readyTimeoutMs?: number;
  /** Largest request body, bytes (default 2 MiB). */
  maxBodyBytes?: number;
}

const MAX_BODY_BYTES = 2 * 1024 * 1024;

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_input: 400,
  not_found: 404,
  ambiguous_id: 400,
  conflict: 409,
  refused_transition: 409,
  actor_required: 400,
  unknown_actor: 400,
  forbidden: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unavailable: 503,
  internal_error: 500,
};

type Env = { Variables: { requestId: string } };

/**
 * Every refusal HTTP answers, whoever refuses (a route, a middleware, hono itself): the error's JSON with the
 * status its code maps to, after any fields the answer carries besides (readiness says its status too).
 */
function errorBody(c: Context, error: SvcError, besides: Record<string, unknown> = {}) {
  return c.json({ ...besides, error: error.toJSON() }, STATUS[error.code]);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The kind of a zod field, unwrapped from optional/default, to turn query strings into the right type. */
function fieldKind(op: AnyOperation, key: string): string | undefined {
  const shape = op.input.shape as Record<string, { def: { type: string; innerType?: unknown } }>;
  // Own keys only: `?constructor=x` is an unknown parameter (the runner refuses it), not Object.prototype's.
  let schema = Object.hasOwn(shape, key) ? shape[key] : undefined;
  while (schema && (schema.def.type === 'optional' || schema.def.type === 'default' || schema.def.type === 'nullable')) {
    schema = schema.def.innerType as typeof schema;
  }
  return schema?.def.type;
}

/** `application/json`, with or without parameters; `application/json-seq` or `text/plain; application/json` is not. */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Refuse a query string part that is not percent-encoded UTF-8 (`?query=%ED%A0%80`, an encoded lone surrogate, or
 * `%zz`): the router keeps such a value as written, so the search would look for the text `%ED%A0%80` and answer
 * as though that had been asked (an attacker, 2026-11-27).
 */
function refuseBadEncoding(url: string): void {
  const at = url.indexOf('?');
  if (at < 0) return;
  for (const part of url.slice(at + 1).split('#', 1)[0]?.split('&') ?? []) {
    const [key = '', value = ''] = part.split(/=(.*)/s);
    const bad = [key, value].find((text) => decoded(text) === undefined);
    if (bad !== undefined) {
      const name = decoded(key) ?? key;
      throw new SvcError('invalid_input', `${name}: not valid percent-encoded UTF-8 (${JSON.stringify(bad.slice(0, 60))})`, { field: name });
    }
  }
}

/** A query string part decoded (`+` a space), or undefined when it is not percent-encoded UTF-8. */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function fromQuery(op: AnyOperation, c: Context<Env>): Record<string, unknown> {
  refuseBadEncoding(c.req.url);
  // No prototype: `?__proto__=x` must arrive as a key the runner refuses, not vanish into a setter.
  const input: Record<string, unknown> = Object.create(null);
  for (const [key, values] of Object.entries(c.req.queries())) {
    const kind = fieldKind(op, key);
    const last = values.at(-1) ?? '';
    // A single value given twice (`?query=a&query=b`) is refused: taking the last would drop the other silently.
    if (kind !== 'array' && values.length > 1) {
      throw new SvcError('invalid_input', `${key}: given ${values.length} times; give it once`, { field: key });
    }
    // `item_types=decision, policy`: each value, given once or repeated, may list several separated by commas, as the
    // CLI's --type does; the space after a comma is not part of the next (a newcomer's was refused), and an empty
    // entry (`a,,b`, a trailing comma) names nothing and is left out.
    if (kind === 'array') input[key] = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
    else if (kind === 'number') {
      // In a query string every value is text: one that is not written in digits is refused as such, not as
      // "a string" where a number was wanted.
      if (last !== '' && !/^-?\d+(\.\d+)?$/.test(last)) {
        throw new SvcError('invalid_input', `${key}: must be a number written in digits, such as 20 (got ${JSON.stringify(last)})`, { field: key });
      }
      input[key] = last === '' ? '' : Number(last);
    }
    else if (kind === 'boolean') input[key] = last === 'true' ? true : last === 'false' ? false : last;
    else input[key] = last;
  }
  return input;
}

/** The client went away mid-request (an upload cut short): its doing, not a fault of ours. */
function isClientAbort(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'ECONNABORTED' || error.name === 'AbortError' || error.message === 'aborted';
}

const CLIENT_ABORT = 'client closed the connection before the request body arrived';

async function fromBody(c: Context<Env>): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Named `request body`, not `body`: an item's body is a field of its own, and a newcomer read this as about that.
    // Where, not what: the parser's message may quote the text, which may hold a secret (a log would keep it). A body
    // over 64 KiB that names no place is not searched for one: each try parses it again.
    const where = jsonErrorPlace(text, (error as Error).message, 64 * 1024);
    throw new SvcError('invalid_input', `request body: not valid JSON (${where})`, { field: 'request body' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SvcError('invalid_input', 'request body: must be a JSON object', { field: 'request body' });
  }
  return parsed as Record<string, unknown>;
}

/**
 * The HTTP surface: probes, REST over every tool operation, /openapi.json and MCP at /mcp. Writes resolve the
 * actor from X-Actor, else SVC_DEFAULT_ACTOR_ID, else 400 (the runner decides; reads need no actor).
 */
export function createHttpApp(service: Service, options: HttpOptions = {}): Hono<Env> {
  const app = new Hono<Env>();
  const readyTimeoutMs = options.readyTimeoutMs ?? 2_000;
  const log = service.logger;

  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    // Adopted only when it is a plain token: it goes into headers and log lines (and an export's audit rows, whose
    // import holds them to the same length).
    const requestId = incoming && incoming.length <= MAX_REQUEST_ID && /^[A-Za-z0-9._:-]+$/.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    const started = performance.now();
    // Set before the handler answers, so the answer is built with it; a header added to a finished response
    // makes hono rebuild it around a stream (several times the cost of the rest of a small GET).
    c.header('X-Request-Id', requestId);
    await next();
    // A handler that returns its own Response (the MCP transport) bypasses the prepared headers.
    if (!c.res.headers.has('X-Request-Id')) c.header('X-Request-Id', requestId);
    log.info(
      { requestId, method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) },
      'request',
    );
  });

  // Before any route, /health aside (a probe from anywhere may ask whether the process is up): a page in a
  // browser must not reach svc through a rebound name or from another origin, nor send a write that needs no
  // CORS preflight (a form or a text/plain fetch); application/json always needs one, and svc grants none.
  const allowedHosts = options.allowedHosts ?? [];
  app.use('*', async (c, next) => {
    const method = c.req.method;
    if (c.req.path === '/health' && (method === 'GET' || method === 'HEAD')) return next();
    // No Host header (app.request() in tests, HTTP/1.0): the server's own idea of its host, from the URL.
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const refusal = hostRefusal({ host, origin: c.req.header('origin'), url: c.req.url, forwardedProto: c.req.header('x-forwarded-proto') }, allowedHosts);
    if (refusal) return errorBody(c, new SvcError('forbidden', `${refusal.field}: ${refusal.message}`, { field: refusal.field }));
    // A read another site's page makes (an <img>, a script, a fetch) carries no Origin, so the check above lets it
    // by: a page made the user's svc run a costly search over and over, and the embedded database, one thread, held
    // every other request meanwhile (an attacker, 2026-11-28). Browsers say where a request comes from
    // (Sec-Fetch-Site): from another site, only a navigation (a link followed, the user's own tab) is served. A client
    // that is not a browser sends no such header and is unaffected.
    const site = c.req.header('sec-fetch-site');
    if ((site === 'cross-site' || site === 'same-site') && !(c.req.header('sec-fetch-mode') === 'navigate' && (c.req.header('sec-fetch-dest') ?? 'document') === 'document')) {
      return errorBody(
        c,
        new SvcError('forbidden', `sec-fetch-site: a ${site} request that is not a page navigation is not served; open svc's pages or call its API from svc's own origin`, {
          field: 'sec-fetch-site',
        }),
      );
    }
    // /mcp answers in JSON-RPC; its transport refuses other media types itself.
    // The web view's form posts are the one exception: they answer only with the same-origin check and the
    // form token (web/index.tsx), and the exception is scoped to their paths and to the form media type.
    const contentType = c.req.header('content-type');
    if (
      method !== 'GET' &&
      method !== 'HEAD' &&
      c.req.path !== '/mcp' &&
      !isJson(contentType) &&
      !isWebFormPost(method, c.req.path, contentType)
    ) {
      const given = c.req.header('content-type') ?? '(none)';
      return errorBody(
        c,
        new SvcError('unsupported_media_type', `content-type: ${method} needs Content-Type: application/json, not ${given}`, { field: 'content-type' }),
      );
    }
    return next();
  });

  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes ?? MAX_BODY_BYTES,
    onError: (c) =>
      isWebFormPost(c.req.method, c.req.path, c.req.header('content-type'))
        ? webPayloadTooLarge(c, options.maxBodyBytes ?? MAX_BODY_BYTES)
        : errorBody(c, new SvcError('payload_too_large', `the request body is larger than ${options.maxBodyBytes ?? MAX_BODY_BYTES} bytes`)),
  });
  // GET and HEAD carry no body the routes read. Asking for one makes @hono/node-server build a full WHATWG
  // Request (URL, Headers, AbortSignal), which costs a small GET more than the rest of hono does.
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  // The process is up; touches nothing else.
  app.get('/health', (c) => c.json({ status: 'ok' }));

  app.get('/ready', async (c) => {
    try {
      await withTimeout(service.ping(), readyTimeoutMs);
      return c.json({ status: 'ready' });
    } catch (error) {
      log.warn({ err: error, requestId: c.get('requestId') }, 'readiness check failed');
      return errorBody(c, new SvcError('unavailable', 'the database does not answer'), { status: 'unavailable' });
    }
  });

  const openapi = buildOpenApi();
  app.get('/openapi.json', (c) => c.json(openapi));

  for (const route of ROUTES) {
    const op: AnyOperation = ops[route.operation];
    const params = pathParams(route.path);
    app.on(route.method.toUpperCase(), route.path, async (c) => {
      try {
        const input = route.method === 'get' ? fromQuery(op, c) : await fromBody(c);
        for (const name of params) {
          const inPath = c.req.param(name);
          const given = Object.hasOwn(input, name) ? input[name] : undefined;
          // The path names the record; a body or query naming another one would be silently overruled.
          if (given !== undefined && given !== '' && given !== inPath) {
            throw new SvcError('invalid_input', `${name}: the path names '${inPath}' but the request also gives ${JSON.stringify(given)}; give it once`, {
              field: name,
            });
          }
          input[name] = inPath;
        }
        const result = await service.call(op.name, input, {
          source: 'http',
          actorId: c.req.header('x-actor'),
          requestId: c.get('requestId'),
          signal: c.req.raw.signal,
        });
        return c.json(result as object);
      } catch (error) {
        if (isSvcError(error)) return errorBody(c, error);
        if (isClientAbort(error)) {
          log.warn({ requestId: c.get('requestId'), method: c.req.method, path: c.req.path }, CLIENT_ABORT);
          return errorBody(c, new SvcError('invalid_input', `request body: ${CLIENT_ABORT}`, { field: 'request body' }));
        }
        log.error({ err: error, requestId: c.get('requestId') }, 'unexpected failure outside the runner');
        return errorBody(c, new SvcError('internal_error', `internal error (request id ${c.get('requestId')})`, { request_id: c.get('requestId') }));
      }
    });
  }

  // The web view for people: pages at / and /p/..., assets at /static/ (decision 0031).
  mountWeb(app, service, STATUS);

  const mcp = createMcpHttpHandler(service, { allowedHosts: options.allowedHosts });
  app.all('/mcp', (c) => mcp(c.req.raw));

  app.notFound((c) => errorBody(c, new SvcError('not_found', `no route ${c.req.method} ${c.req.path}; see /openapi.json`)));
  app.onError((error, c) => {
    if (isClientAbort(error)) {
      log.warn({ requestId: c.get('requestId'), method: c.req.method, path: c.req.path }, CLIENT_ABORT);
      return errorBody(c, new SvcError('invalid_input', `request body: ${CLIENT_ABORT}`, { field: 'request body' }));
    }
    log.error({ err: error, requestId: c.get('requestId') }, 'unhandled HTTP error');
    return errorBody(c, new SvcError('internal_error', `internal error (request id ${c.get('requestId')})`));
  });
  return app;
}
