import { createMcpHttpHandler } from '@svc/mcp';
import { type ErrorCode, isSvcError, type Service } from '@svc/service';
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export interface HttpOptions {
  /** Host/Origin values /mcp accepts (SVC_ALLOWED_HOSTS); default: this machine's names. */
  allowedHosts?: string[] | undefined;
  /** How long /ready waits for the database before answering 503. */
  readyTimeoutMs?: number;
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

export const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_input: 400,
  not_found: 404,
  ambiguous_id: 400,
  conflict: 409,
  refused_transition: 409,
  actor_required: 400,
  unknown_actor: 400,
  payload_too_large: 413,
  unavailable: 503,
  internal_error: 500,
};

/** Run a catalog operation for a request and answer its result as JSON, or the error body of DESIGN.md. */
async function answer(c: Context, service: Service, name: string, input: Record<string, unknown>) {
  try {
    const result = await service.call(name, input, { source: 'http', actorId: c.req.header('x-actor') ?? undefined });
    return c.json(result as object);
  } catch (error) {
    if (isSvcError(error)) return c.json({ error: error.toJSON() }, STATUS[error.code]);
    service.logger.error({ err: error }, 'unexpected failure outside the runner');
    return c.json({ error: { code: 'internal_error', message: 'internal error', details: {} } }, 500);
  }
}

function numberParam(value: string | undefined): number | string | undefined {
  if (value === undefined || value === '') return undefined;
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

/** The HTTP surface: health and readiness probes, impact and checks (REST over the catalog comes with the HTTP issue). */
export function createHttpApp(service: Service, options: HttpOptions = {}): Hono {
  const app = new Hono();
  const readyTimeoutMs = options.readyTimeoutMs ?? 2_000;

  // The process is up; touches nothing else.
  app.get('/health', (c) => c.json({ status: 'ok' }));

  app.get('/ready', async (c) => {
    try {
      await withTimeout(service.ping(), readyTimeoutMs);
      return c.json({ status: 'ready' });
    } catch (error) {
      service.logger.warn({ err: error }, 'readiness check failed');
      return c.json({ status: 'unavailable', error: { code: 'unavailable', message: 'the database does not answer' } }, 503);
    }
  });

  app.get('/items/:item_id/impact', (c) =>
    answer(c, service, 'svc_impact', {
      item_id: c.req.param('item_id'),
      project_id: c.req.query('project_id'),
      depth: numberParam(c.req.query('depth')),
    }),
  );

  app.get('/checks', (c) =>
    answer(c, service, 'svc_check', {
      project_id: c.req.query('project_id'),
      rule: c.req.query('rule'),
      severity: c.req.query('severity'),
    }),
  );

  const mcp = createMcpHttpHandler(service, { allowedHosts: options.allowedHosts });
  app.all('/mcp', (c) => mcp(c.req.raw));

  app.notFound((c) =>
    c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}`, details: {} } }, 404),
  );
  app.onError((error, c) => {
    service.logger.error({ err: error }, 'unhandled HTTP error');
    return c.json({ error: { code: 'internal_error', message: 'internal error', details: {} } }, 500);
  });
  return app;
}
