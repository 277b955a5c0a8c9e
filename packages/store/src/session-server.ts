import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import type { SessionMutex } from './session-mutex.js';

/**
 * Serves the owning process's PGlite to other svc processes over the PostgreSQL wire protocol on a Unix
 * socket, so they connect with `pg` as to any PostgreSQL (docs/decisions/0024-sharing-the-embedded-database.md).
 *
 * PGlite is one session shared by everyone, so a client takes the session mutex (the one the owner's own
 * kysely dialect takes) at its first message and keeps it until the backend reports ReadyForQuery with status
 * idle: a whole transaction, or an extended-protocol exchange up to its Sync. Nobody else's statement can run
 * inside it, nobody can replace its unnamed statement or portal between Parse and Execute. The start-up
 * message is answered here, not passed to PGlite: its parameters (statement_timeout, application_name …) would
 * otherwise change the one shared session for everybody.
 */
export interface SessionServer {
  readonly path: string;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const PROTOCOL_3 = 196608;
/** A client holding the session this long without a word is dropped (and its transaction rolled back). */
const SESSION_IDLE_HOLD_MS = 60_000;

export async function serveSession(pglite: PGlite, mutex: SessionMutex, path: string): Promise<SessionServer> {
  const version = (await pglite.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '17';
  const greeting = Buffer.concat([
    message('R', int32(0)),
    ...[
      ['server_version', version],
      ['server_encoding', 'UTF8'],
      ['client_encoding', 'UTF8'],
      ['DateStyle', 'ISO, MDY'],
      ['integer_datetimes', 'on'],
      ['standard_conforming_strings', 'on'],
    ].map(([name, value]) => message('S', Buffer.from(`${name}\0${value}\0`))),
    message('Z', Buffer.from('I')),
  ]);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, pglite, mutex, greeting);
  });
  rmSync(path, { force: true }); // a socket file left by an owner that was killed
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The directory is 0700 already; the socket itself is for its owner only, too.
  chmodSync(path, 0o600);
  return {
    path,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      rmSync(path, { force: true });
    },
  };
}

function serveConnection(socket: Socket, pglite: PGlite, mutex: SessionMutex, greeting: Buffer): void {
  let buffer: Buffer = Buffer.alloc(0);
  let started = false;
  let closed = false;
  /** Set while this connection holds the session. */
  let release: (() => void) | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  // Messages of one connection run one after another, in order.
  let chain: Promise<void> = Promise.resolve();

  const hold = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => socket.destroy(), SESSION_IDLE_HOLD_MS);
    idleTimer.unref();
  };
  const letGo = () => {
    clearTimeout(idleTimer);
    release?.();
    release = undefined;
  };

  const run = async (msg: Uint8Array) => {
    if (closed) return;
    if (release === undefined) release = await mutex.acquire();
    if (closed) return; // the close handler, queued behind us, gives the session back
    hold();
    const out = await pglite.execProtocolRaw(msg);
    if (out.length > 0 && !socket.destroyed) socket.write(out);
    if (readyStatus(out) === 'I') letGo();
  };

  socket.on('data', (data: Buffer) => {
    buffer = buffer.length === 0 ? data : Buffer.concat([buffer, data]);
    for (;;) {
      if (!started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        const code = buffer.readInt32BE(4);
        if (buffer.length < length) return;
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST) {
          socket.write('N');
        } else if (code === PROTOCOL_3) {
          started = true;
          socket.write(greeting);
        } else {
          // A cancel request (PGlite has no backend to signal) or a protocol this server does not speak.
          socket.destroy();
          return;
        }
        continue;
      }
      if (buffer.length < 5) return;
      const total = 1 + buffer.readInt32BE(1);
      if (buffer.length < total) return;
      const msg = Uint8Array.prototype.slice.call(buffer, 0, total);
      buffer = buffer.subarray(total);
      if (msg[0] === 0x58 /* X: Terminate */) {
        socket.end();
        return;
      }
      chain = chain.then(() => run(msg)).catch(() => {
        socket.destroy();
      });
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
    // A client that went away mid-exchange or mid-transaction (killed, timed out): finish its exchange and roll
    // its transaction back before anyone else gets the session.
    chain = chain
      .then(async () => {
        if (release === undefined) return;
        const status = readyStatus(await pglite.execProtocolRaw(message('S', Buffer.alloc(0))));
        if (status !== 'I') await pglite.execProtocolRaw(message('Q', Buffer.from('rollback\0')));
      })
      .catch(() => {})
      .finally(letGo);
  });
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function message(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
}

/** The transaction status of the last ReadyForQuery in a backend reply (I, T or E), if it holds one. */
function readyStatus(out: Uint8Array): string | undefined {
  const view = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  let status: string | undefined;
  for (let at = 0; at + 5 <= view.length; at += 1 + view.readInt32BE(at + 1)) {
    if (view[at] === 0x5a /* Z */) status = String.fromCharCode(view[at + 5] ?? 0);
  }
  return status;
}
