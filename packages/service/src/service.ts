import { isUuid, SvcError } from '@svc/domain';
import {
  assertSchemaCurrent,
  embeddedDatabaseMade,
  loadMigrations,
  type MigrationStatus,
  migrate,
  migrationStatus,
  openStore,
  requireActor,
  type Backend,
  type Store,
} from '@svc/store';
import { findOperation, type ops } from './catalog.js';
import type { Config } from './config.js';
import type { AnyOperation, InputOf, OutputOf } from './operation.js';
import { fromDatabase } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import { type CallContext, execute, type Runtime } from './runner.js';
import { DEFAULT_SEARCH_TIMEOUT_MS, searchBounds } from './searches.js';

/**
 * What the apps hold: operations by name and the few start-up steps around them. The store beneath stays the
 * service's own (test helpers in ./testing reach it for assertions); `database` says only what to print.
 */
export interface Service {
  readonly logger: Logger;
  /** SVC_DEFAULT_ACTOR_ID: the actor for writes whose call names none. */
  readonly defaultActorId?: string | undefined;
  /** Which database serves, and where (a path or a redacted URL), for start-up messages. */
  readonly database: { readonly backend: Backend; readonly location: string };
  /**
   * Run an operation of the catalog by name: the surfaces dispatch by the name they were called with. The
   * input is checked when the call runs; a name the catalog holds answers that operation's type.
   */
  call<const N extends keyof typeof ops>(name: N, input: unknown, call: CallContext): Promise<OutputOf<(typeof ops)[N]>>;
  call(name: string, input: unknown, call: CallContext): Promise<unknown>;
  /**
   * Run an operation given as itself (`ops.svc_task_start`: tests, the bench): input and answer take its
   * types, and a renamed or removed operation fails to compile instead of at run time.
   */
  call<Op extends AnyOperation>(op: Op, input: InputOf<Op>, call: CallContext): Promise<OutputOf<Op>>;
  /**
   * Check an actor named at start-up (`--actor`, SVC_DEFAULT_ACTOR_ID; `field` says which), so a server never
   * starts with an actor every write would refuse: malformed is invalid_input, unregistered unknown_actor.
   */
  verifyActor(actorId: string, field: string): Promise<void>;
  /** One trivial round trip through the database pool (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function createService(
  store: Store,
  options: { logger?: Logger; defaultActorId?: string | undefined; searchTimeoutMs?: number | undefined } = {},
): Service {
  const runtime: Runtime = {
    store,
    logger: options.logger ?? createLogger('silent'),
    defaultActorId: options.defaultActorId,
    searches: searchBounds(store.backend, store.connections, options.searchTimeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS),
  };
  return {
    logger: runtime.logger,
    defaultActorId: runtime.defaultActorId,
    database: {
      get backend() {
        return store.backend;
      },
      get location() {
        return store.location;
      },
    },
    call: ((target: string | AnyOperation, input: unknown, call: CallContext) => {
      const op = typeof target === 'string' ? findOperation(target) : target;
      if (!op) return Promise.reject(new SvcError('not_found', `no operation '${target}'`));
      return execute(runtime, op, input, call);
    }) as Service['call'],
    async verifyActor(actorId, field) {
      if (!isUuid(actorId)) {
        throw new SvcError(
          'invalid_input',
          `${field}: '${actorId}' is not an actor UUID; \`svc actor list\` shows the registered ones, \`svc actor add --email EMAIL\` registers one`,
          { field },
        );
      }
      try {
        await requireActor(store.db, actorId.toLowerCase(), field);
      } catch (error) {
        const refused = fromDatabase(error) ?? error;
        // Which database was asked: a newcomer started a server on another data directory than the one that printed
        // the actor, and was told to register an actor that existed (2026-11-28).
        if (refused instanceof SvcError && refused.code === 'unknown_actor') {
          throw new SvcError(refused.code, `${refused.message} (looked in ${store.location}: is this the database that printed it?)`, refused.details);
        }
        throw refused;
      }
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

export function storeConfig(config: Config, logger?: Logger, prepare?: (db: Store['db']) => Promise<void>) {
  return {
    prepare,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    statementTimeoutMs: config.statementTimeoutMs,
    poolSize: config.poolSize,
    preparedStatements: config.preparedStatements,
    onWarning: logger && ((message: string) => logger.warn(message)),
  };
}

/**
 * Open the service for a server process. The embedded database migrates itself; on PostgreSQL a server
 * refuses to start while migrations are pending unless `migrate` is set (operators run `svc migrate`).
 */
export async function openService(config: Config, options: { migrate?: boolean; logger?: Logger } = {}): Promise<Service> {
  return (await openServiceAndStore(config, options)).service;
}

/** openService, and the store it runs on (for ./testing, which reads rows beneath a service for assertions). */
export async function openServiceAndStore(
  config: Config,
  options: { migrate?: boolean; logger?: Logger } = {},
): Promise<{ service: Service; store: Store }> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // The embedded database migrates itself, in the process that owns its data directory (and only there);
  // the others it serves check the schema like a server on PostgreSQL does (docs/decisions/0024).
  const store = await openStore(
    storeConfig(config, logger, async (db) => {
      const { applied } = await migrate(db);
      if (applied.length > 0) logger.info({ applied }, 'applied migrations');
    }),
  );
  try {
    if (options.migrate && store.backend === 'postgres') {
      const { applied } = await migrate(store.db);
      if (applied.length > 0) logger.info({ applied }, 'applied migrations');
    } else {
      await assertSchemaCurrent(store.db);
    }
  } catch (error) {
    await store.close();
    throw startUpError(store, error);
  }
  logger.info({ database: store.location }, 'database ready');
  return { service: createService(store, { logger, defaultActorId: config.defaultActorId, searchTimeoutMs: config.searchTimeoutMs }), store };
}

/** `svc migrate`: apply pending migrations (on the embedded database: by its owner, see openService). */
export async function migrateDatabase(config: Config): Promise<{ applied: string[]; current: string; release: string }> {
  let applied: string[] = [];
  const result = await withStore(
    config,
    async (store) => {
      if (store.backend === 'postgres') return migrate(store.db);
      await assertSchemaCurrent(store.db);
      return { applied, current: (await migrationStatus(store.db)).current ?? 'none' };
    },
    async (db) => {
      applied = (await migrate(db)).applied;
    },
  );
  return { ...result, release: releaseOf(result.current) };
}

/** `svc migrate --status`. */
export function schemaStatus(config: Config): Promise<MigrationStatus> {
  return withStore(config, (store) => migrationStatus(store.db));
}

/** Open the store for one schema step outside any operation, and close it again. */
async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>, prepare?: (db: Store['db']) => Promise<void>): Promise<T> {
  const store = await openStore(storeConfig(config, undefined, prepare));
  try {
    return await fn(store);
  } catch (error) {
    throw startUpError(store, error);
  } finally {
    await store.close();
  }
}

/**
 * The schema steps run before any operation, so the runner's mapping of database errors does not cover
 * them: without this, a PostgreSQL that cannot be reached reads `internal error: connect ECONNREFUSED …`.
 * An unavailable database says so, and where it was looked for; anything else (a migration that fails) stays
 * as it is, for the operator to read.
 */
function startUpError(store: Store, error: unknown): unknown {
  const mapped = fromDatabase(error);
  if (mapped === undefined || mapped === error || mapped.code !== 'unavailable') return error;
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' && code !== '' ? `: ${code}` : '';
  return new SvcError('unavailable', `${mapped.message} (${store.location}${reason})`, { database: store.location });
}

function releaseOf(id: string): string {
  return loadMigrations().find((m) => m.id === id)?.release ?? 'unknown';
}

/** The schema this code ships and its release (0006 → v0.7.0). */
/** Whether the embedded database of `config` has been made (true on PostgreSQL: nothing to make). */
export function embeddedDatabaseReady(config: Config): boolean {
  return config.databaseUrl !== undefined || embeddedDatabaseMade(config.dataDir);
}

export function codeVersion(): { schema: string; release: string } {
  const latest = loadMigrations().at(-1);
  return { schema: latest?.id ?? 'none', release: latest?.release ?? 'unknown' };
}
