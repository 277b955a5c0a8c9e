import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Service } from '@svc/service';
import { createHttpApp, type HttpOptions } from './app.js';

/** How long an idle keep-alive connection stays open. */
const KEEP_ALIVE_MS = 65_000;

export interface RunningHttpServer {
  readonly url: string;
  readonly port: number;
  /** Stop accepting connections, let in-flight requests finish, then close the service. */
  close(): Promise<void>;
}

export function startHttpServer(
  service: Service,
  options: HttpOptions & { host: string; port: number },
): Promise<RunningHttpServer> {
  const app = createHttpApp(service, options);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => {
              service.close().then(done, done);
            });
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }),
      });
    });
    // Node closes an idle keep-alive connection after 5 s; a client or reverse proxy that reuses it at that moment
    // gets ECONNRESET (a proxy answers 502). Idle connections stay open longer than clients and proxies keep theirs
    // (they close first, without a race: undici and nginx take the server's Keep-Alive hint; AWS ALB idles 60 s).
    // headersTimeout must exceed it, or a reused connection's next request can be cut by the headers timer.
    if ('keepAliveTimeout' in server) {
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      server.headersTimeout = KEEP_ALIVE_MS + 1_000;
    }
    server.once('error', reject);
  });
}
