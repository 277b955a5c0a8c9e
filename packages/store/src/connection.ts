import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { SvcError } from '@svc/domain';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { autoAnalyze } from './auto-analyze.js';
import { EmbeddedDriver, embeddedKysely, joinEmbedded } from './embedded-share.js';
import { PGliteDialect } from './pglite-dialect.js';
import { preparedName } from './prepared.js';
import type { Database } from './schema.js';
import { createSessionMutex } from './session-mutex.js';

export type Backend = 'pglite' | 'postgres';

export interface StoreConfig {
  /** postgres://… selects real PostgreSQL; otherwise the embedded database is used. */
  databaseUrl?: string | undefined;
  /** Data directory of the embedded database; 'memory://' keeps it in memory (tests). */
  dataDir?: string | undefined;
  /** An already opened PGlite instance to use (tests share one per worker). */
  pglite?: PGlite | undefined;
  /** pg pool size. */
  poolSize?: number | undefined;
  /** Server-side statement time-out, milliseconds (PostgreSQL). */
  statementTimeoutMs?: number | undefined;
  /**
   * Keep the hottest fixed reads prepared by name on each connection (PostgreSQL; default true). Off for a
   * pooler in transaction mode that does not track prepared statements (prepared.ts).
   */
  preparedStatements?: boolean | undefined;
  /**
   * Told once when the database loses the statements it was asked to keep prepared (a pooler in transaction
   * mode that does not track them): naming is then turned off for the rest of the process.
   */
  onWarning?: ((message: string) => void) | undefined;
  /**
   * Embedded database: run by the process that opens the data directory first (its owner), before any other
   * process can connect to it, and again by a process that takes ownership over after the owner died. Servers
   * apply migrations here, so only the owner ever migrates.
   */
  prepare?: ((db: Kysely<Database>) => Promise<void>) | undefined;
  /**
   * Embedded database, in the process that owns it: how often its tables are looked at and those due analyzed
   * (auto-analyze.ts; PGlite has no autovacuum), in milliseconds; 0 never. Default a minute (ANALYZE_EVERY_MS).
   */
  analyzeEveryMs?: number | undefined;
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly backend: Backend;
  /** Human-readable location, without credentials. */
  readonly location: string;
  /** How many connections the pool keeps at most (the embedded database: its one session). */
  readonly connections: number;
  /** One trivial round trip through the pool (readiness). */
  ping(): Promise<void>;
  /**
   * Run `fn` on a session for maintenance statements that cannot run in a transaction block and may outlast
   * the statement time-out (VACUUM): on PostgreSQL a connection of its own with no time-out; on PGlite the one
   * connection, taken in turn like any other caller's.
   */
  maintenance<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const DEFAULT_DATA_DIR = './.svc/data';

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    // libpq and pg also take a password in the query string (`?password=`, `?sslpassword=`).
    for (const key of [...u.searchParams.keys()]) if (/password/i.test(key)) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}

export async function openStore(config: StoreConfig = {}): Promise<Store> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config);
  return openPGlite(config);
}

/**
 * A named statement the server does not hold (26000) or already holds under that name (42P05): the session
 * behind the connection changed under pg, as behind a pooler in transaction mode. The statement was refused
 * before it ran, so running the text again unnamed is safe outside a transaction (named texts are one-statement
 * reads run on the pool).
 */
function lostPreparedStatement(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '26000' || code === '42P05';
}

/** Errors after which a connection must not go back to the pool: its server may never answer it again. */
function breaksConnection(error: unknown): boolean {
  const message = String((error as { message?: unknown } | undefined)?.message ?? '');
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  return /Query read timeout|Connection terminated|ECONNRESET|EPIPE|not queryable/i.test(message) || code.startsWith('08') || code === '57P01';
}

/**
 * A pg pool as svc uses it: on PostgreSQL, or on an embedded database another svc process serves
 * (embedded-share.ts).
 */
export function createPool(options: pg.PoolConfig, config: StoreConfig): pg.Pool {
  const statementTimeout = config.statementTimeoutMs ?? 30_000;
  let prepare = config.preparedStatements ?? true;
  const pool = new pg.Pool({
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // The client gives up too, so a server that silently stops answering (a half-open link) cannot hold a
    // request forever.
    query_timeout: statementTimeout + 2_000,
    application_name: 'svc',
    ...options,
  });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  // A connection whose query timed out may never be answered (a half-open link): close its socket, so the
  // pool drops it on release instead of queueing the next request behind it (pg does the same when pipelining).
  pool.on('connect', (client) => {
    // A checked-out client whose server goes away emits 'error' between queries; unhandled, that would end the
    // process. The next query on it fails and is answered as unavailable instead.
    client.on('error', () => {});
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      // kysely calls query(text, values); a registered text goes out with its name, so it is parsed and
      // planned once per connection.
      const name = prepare && typeof args[0] === 'string' ? preparedName(args[0]) : undefined;
      const result =
        name === undefined
          ? query(...args)
          : (query({ name, text: args[0], values: args[1] }) as Promise<unknown>).catch((error: unknown) => {
              if (!lostPreparedStatement(error)) throw error;
              if (prepare) {
                prepare = false;
                config.onWarning?.(
                  `the database lost the prepared statement ${name} (SQLSTATE ${(error as { code: string }).code}), as a pooler in ` +
                    'transaction mode does: statements are no longer prepared by name (set SVC_PREPARED_STATEMENTS=off to say so)',
                );
              }
              // Inside a transaction the failed statement aborted it, and running the text again fails with 25P02:
              // the loss is what the caller must see (the service runs the transaction again, unnamed now).
              return (query(...args) as Promise<unknown>).catch((again: unknown) => {
                throw (again as { code?: unknown } | undefined)?.code === '25P02' ? error : again;
              });
            });
      if (result && typeof (result as Promise<unknown>).catch === 'function') {
        (result as Promise<unknown>).catch((error: unknown) => {
          if (breaksConnection(error)) (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        });
      }
      return result;
    };
  });
  return pool;
}

async function openPostgres(url: string, config: StoreConfig): Promise<Store> {
  const pool = createPool(
    {
      connectionString: url,
      max: config.poolSize ?? 10,
      statement_timeout: config.statementTimeoutMs ?? 30_000,
      idle_in_transaction_session_timeout: 60_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
    config,
  );
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    backend: 'postgres',
    location: redactUrl(url),
    connections: config.poolSize ?? 10,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async maintenance(fn) {
      const session = new Kysely<Database>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, application_name: 'svc maintenance' }) }),
      });
      try {
        return await session.connection().execute(async (conn) => {
          // A role or database default could still set one.
          await sql`set statement_timeout = 0`.execute(conn);
          return fn(conn);
        });
      } finally {
        await session.destroy();
      }
    },
    async close() {
      await db.destroy();
    },
  };
}

async function openPGlite(config: StoreConfig): Promise<Store> {
  const dataDir = config.dataDir ?? DEFAULT_DATA_DIR;
  if (config.pglite === undefined && !dataDir.startsWith('memory://')) return openShared(dataDir, config);
  let owned: PGlite | undefined;
  let pglite = config.pglite;
  if (pglite === undefined) {
    owned = await createPGlite();
    pglite = owned;
  }
  const mutex = createSessionMutex();
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite, mutex) });
  if (owned && config.prepare) await config.prepare(db);
  // A shared instance (tests) is its opener's to analyze.
  const analyzer = owned ? autoAnalyze(owned, mutex, config) : undefined;
  return {
    db,
    backend: 'pglite',
    location: config.pglite ? 'pglite (shared instance)' : 'pglite (in memory)',
    connections: 1,
    async ping() {
      await sql`select 1`.execute(db);
    },
    maintenance: (fn) => fn(db),
    async close() {
      await analyzer?.stop();
      await db.destroy();
      await owned?.close();
    },
  };
}

/** A data directory on disk: shared with every other svc process that opens it (embedded-share.ts). */
async function openShared(dataDir: string, config: StoreConfig): Promise<Store> {
  const open = () => joinEmbedded(dataDir, config);
  const driver = new EmbeddedDriver(await open(), open);
  const db = embeddedKysely(driver);
  return {
    db,
    backend: 'pglite',
    connections: 1,
    get location() {
      const role = driver.role;
      return role?.kind === 'client' ? `pglite ${dataDir} (served by process ${role.pid})` : `pglite ${dataDir}`;
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    maintenance: (fn) => fn(db),
    async close() {
      await db.destroy();
    },
  };
}

/**
 * The embedded data directory holds every row, and WAL segments hold text later redacted: it is its owner's
 * alone. Create it 0700 (whatever the umask), and tighten one this user owns that others can reach; PGlite
 * creates its files with the process umask (0644 or 0666), so the directory's mode is what keeps them private.
 */
function privateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const stat = statSync(dataDir);
  const uid = process.getuid?.();
  // Another user's folder (made before svc came, world-writable) is refused: the database's files, which PGlite makes
  // readable and writable by all, would be theirs to read and change (an attacker found a secret in its WAL, 2026-11-28).
  if (uid !== undefined && stat.uid !== uid) {
    throw new SvcError('unavailable', `the data directory ${dataDir} belongs to another user (uid ${stat.uid}); svc keeps its database only in a folder of yours. Choose another SVC_DATA_DIR.`, {
      data_dir: dataDir,
    });
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(dataDir, 0o700);
}

/** Open a PGlite instance with the type parsing pg uses, so both backends return the same values. */
/** Whether an embedded database has been made in `dataDir` (a PostgreSQL data directory holds PG_VERSION). */
export function embeddedDatabaseMade(dataDir: string): boolean {
  return dataDir.startsWith('memory://') || existsSync(join(dataDir, 'PG_VERSION'));
}

export async function createPGlite(dataDir?: string): Promise<PGlite> {
  if (dataDir && !dataDir.startsWith('memory://')) privateDataDir(dataDir);
  const pglite = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    extensions: { btree_gin },
    // int8 and numeric as strings, as node-postgres returns them; timestamptz by node-postgres's own parser (PGlite's
    // read the years 0001–0099 as 1901–1999 or 2000–2049).
    parsers: { 20: (v: string) => v, 1700: (v: string) => v, 1184: pg.types.getTypeParser(1184, 'text') },
  });
  return pglite;
}
