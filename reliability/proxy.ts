import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy that can turn half-open: while `blackhole` is on, it keeps every connection open but forwards
 * nothing in either direction, the way a dead network path or a frozen server looks to a client.
 */
export class HalfOpenProxy {
  blackhole = false;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;

  constructor(
    readonly targetPort: number,
    readonly targetHost = '127.0.0.1',
  ) {}

  async listen(): Promise<number> {
    this.#server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      this.#sockets.add(client).add(upstream);
      const pipe = (from: Socket, to: Socket) =>
        from.on('data', (chunk) => {
          if (!this.blackhole) to.write(chunk);
        });
      pipe(client, upstream);
      pipe(upstream, client);
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.#sockets.delete(client);
        this.#sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    return new Promise((resolve) => {
      this.#server?.listen(0, '127.0.0.1', () => {
        const address = this.#server?.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }
}
