import type { Service } from '@svc/service';
import { Hono } from 'hono';

export interface HttpOptions {
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

/** The HTTP surface: health and readiness probes (REST over the catalog comes with the HTTP issue). */
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

  app.notFound((c) =>
    c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}`, details: {} } }, 404),
  );
  app.onError((error, c) => {
    service.logger.error({ err: error }, 'unhandled HTTP error');
    return c.json({ error: { code: 'internal_error', message: 'internal error', details: {} } }, 500);
  });
  return app;
}
