import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Service } from '@svc/service';
import { createHttpApp, type HttpOptions } from './app.js';

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
    server.once('error', reject);
  });
}
