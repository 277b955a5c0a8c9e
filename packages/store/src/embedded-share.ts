import { chmodSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { SvcError } from '@svc/domain';
import {
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { autoAnalyze } from './auto-analyze.js';
import { createPGlite, createPool, type StoreConfig } from './connection.js';
import { assertOwnPlace, type DirLock, readDirLockHolder, refusal, tryAcquireDirLock } from './dir-lock.js';
import { PGliteDialect } from './pglite-dialect.js';
import type { Database } from './schema.js';
import { createSessionMutex } from './session-mutex.js';
import { type SessionServer, serveSession } from './session-server.js';

/**
 * The embedded database shared by every svc process on one data directory
 * (docs/decisions/0024-sharing-the-embedded-database.md). The first process to open the directory takes its
 * lock, opens PGlite and serves it on a Unix socket named in the lock file; the others connect to that socket
 * with pg. A client that finds the owner gone (killed, stopped) opens again: it takes the lock over and
 * becomes the owner, or connects to whoever did.
 */
export type EmbeddedRole =
  | { kind: 'owner'; pglite: PGlite; driver: Driver; close(): Promise<void> }
  | { kind: 'client'; pid: number; driver: Driver; close(): Promise<void> };

/** How long a process waits for a starting owner to publish its socket, or for a new owner to take over. */
const JOIN_TIMEOUT_MS = 60_000;

function socketPlace(dataDir: string): { dir: string; path: string; temporary: boolean } {
  const abs = resolve(dataDir);
  const dir = join(dirname(abs), `.${basename(abs)}.sock`);
  const path = join(dir, '.s.PGSQL.5432');
  // A Unix socket path is limited to about 104 bytes; a deep data directory serves from a private temp dir.
  if (Buffer.byteLength(path) <= 100) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A folder someone else made there is refused, not chmod-ed (which failed as an internal error: an attacker).
    if (ownedByMe(dir)) chmodSync(dir, 0o700);
    assertOwnPlace(dir, 'private dir');
    return { dir, path, temporary: false };
  }
  const temp = mkdtempSync(join(tmpdir(), 'svc-'));
  return { dir: temp, path: join(temp, '.s.PGSQL.5432'), temporary: true };
}

/** Whether `dir` is this user's, so chmod may make it private; another user's is left for assertOwnPlace to refuse. */
function ownedByMe(dir: string): boolean {
  const uid = process.getuid?.();
  return uid === undefined || statSync(dir).uid === uid;
}

function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (something else lives there) or already gone: leave it.
  }
}

/** The owner went away (killed, stopped, socket removed): open again rather than fail the caller. */
function ownerGone(error: unknown): boolean {
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  const message = String((error as { message?: unknown } | undefined)?.message ?? '');
  return ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE'].includes(code) || /Connection terminated/i.test(message);
}

async function becomeOwner(dataDir: string, lock: DirLock, config: StoreConfig): Promise<EmbeddedRole> {
  let pglite: PGlite;
  try {
    pglite = await createPGlite(dataDir);
  } catch (error) {
    lock.release();
    throw new SvcError('unavailable', `cannot open the embedded database at ${dataDir}: ${(error as Error).message}`);
  }
  const mutex = createSessionMutex();
  let server: SessionServer | undefined;
  let place: ReturnType<typeof socketPlace> | undefined;
  try {
    // Migrations run here, by the owner only, before anyone else can connect.
    if (config.prepare) await config.prepare(new Kysely<Database>({ dialect: new PGliteDialect(pglite, mutex) }));
    place = socketPlace(dataDir);
    server = await serveSession(pglite, mutex, place.path);
    lock.publish(place.path);
  } catch (error) {
    await server?.close();
    await pglite.close();
    lock.release();
    throw error;
  }
  const dialect = new PGliteDialect(pglite, mutex);
  const served = server;
  const where = place;
  const analyzer = autoAnalyze(pglite, mutex, config);
  return {
    kind: 'owner',
    pglite,
    driver: dialect.createDriver(),
    async close() {
      try {
        await analyzer?.stop();
        await served.close();
        // Wait for every client's exchange to finish (or be rolled back) before closing the database.
        const release = await mutex.acquire();
        try {
          await pglite.close();
        } finally {
          release();
        }
      } finally {
        // The socket and its directory go before the lock: once the lock is free, a new owner may make its own.
        rmSync(where.temporary ? where.dir : where.path, { recursive: true, force: true });
        if (!where.temporary) removeIfEmpty(where.dir);
        lock.release();
      }
    },
  };
}

async function connect(socket: string, config: StoreConfig): Promise<pg.Pool> {
  const port = Number(/\.s\.PGSQL\.(\d+)$/.exec(socket)?.[1] ?? 5432);
  // The session is shared: the server ignores start-up parameters, and statements are never named (two
  // clients would prepare the same name on the one session).
  const pool = createPool(
    { host: dirname(socket), port, user: 'svc', database: 'svc', max: 4 },
    { ...config, preparedStatements: false },
  );
  try {
    await pool.query('select 1');
    return pool;
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}

/** Become the owner of the data directory, or a client of its owner. */
export async function joinEmbedded(dataDir: string, config: StoreConfig): Promise<EmbeddedRole> {
  const deadline = Date.now() + JOIN_TIMEOUT_MS;
  for (;;) {
    const lock = tryAcquireDirLock(dataDir);
    if (lock) return becomeOwner(dataDir, lock, config);
    const holder = readDirLockHolder(dataDir);
    if (holder && holder.host !== hostname()) throw refusal(dataDir, holder);
    if (holder?.socket) {
      // The socket the lock names must be this user's, in a folder only this user can enter: the lock is (readHolder
      // refuses another user's), but what it names is checked as well.
      assertOwnPlace(dirname(holder.socket), 'private dir');
      assertOwnPlace(holder.socket, 'socket');
      try {
        const pool = await connect(holder.socket, config);
        const driver = new PostgresDriver({ pool });
        return { kind: 'client', pid: holder.pid, driver, close: () => driver.destroy() };
      } catch (error) {
        if (!ownerGone(error)) throw error;
      }
    } else if (holder && Date.now() - Date.parse(holder.started_at) > JOIN_TIMEOUT_MS) {
      // A holder that never publishes a socket (an svc from before 0024) cannot be shared.
      throw refusal(dataDir, holder);
    }
    if (Date.now() > deadline) throw refusal(dataDir, holder);
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
  }
}

/**
 * A kysely driver that hands out connections of the current role, and opens again when a client's owner has
 * gone, so a long-running client (serve mcp, serve http) recovers on its next request.
 */
export class EmbeddedDriver implements Driver {
  readonly #open: () => Promise<EmbeddedRole>;
  #role: EmbeddedRole | undefined;
  #opening: Promise<EmbeddedRole> | undefined;
  readonly #origin = new WeakMap<DatabaseConnection, Driver>();

  constructor(first: EmbeddedRole, open: () => Promise<EmbeddedRole>) {
    this.#role = first;
    this.#open = open;
  }

  get role(): EmbeddedRole | undefined {
    return this.#role;
  }

  async #current(): Promise<EmbeddedRole> {
    if (this.#role) return this.#role;
    this.#opening ??= this.#open().then(
      (role) => {
        this.#role = role;
        this.#opening = undefined;
        return role;
      },
      (error: unknown) => {
        this.#opening = undefined;
        throw error;
      },
    );
    return this.#opening;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    for (let attempt = 0; ; attempt++) {
      const role = await this.#current();
      try {
        if (attempt === 0) await role.driver.init();
        const connection = await role.driver.acquireConnection();
        this.#origin.set(connection, role.driver);
        return connection;
      } catch (error) {
        // Nothing ran yet, so opening again and retrying is safe.
        if (role.kind !== 'client' || attempt > 0 || !ownerGone(error)) throw error;
        if (this.#role === role) {
          this.#role = undefined;
          void role.close().catch(() => {});
        }
      }
    }
  }

  #driver(connection: DatabaseConnection): Driver {
    const driver = this.#origin.get(connection);
    if (!driver) throw new Error('embedded driver: unknown connection');
    return driver;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#driver(connection).beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver(connection).commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver(connection).rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    await this.#driver(connection).savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2],
  ): Promise<void> {
    await this.#driver(connection).rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2],
  ): Promise<void> {
    await this.#driver(connection).releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#driver(connection).releaseConnection(connection);
  }

  async destroy(): Promise<void> {
    const role = this.#role ?? (await this.#opening?.catch(() => undefined));
    this.#role = undefined;
    await role?.close();
  }
}

/** A Kysely over the shared embedded database. */
export function embeddedKysely(driver: EmbeddedDriver): Kysely<Database> {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}
