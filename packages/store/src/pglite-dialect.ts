import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { createSessionMutex, type SessionMutex } from './session-mutex.js';

/**
 * A kysely dialect for PGlite. PGlite is one connection; kysely assumes a pool. The driver hands out that
 * one connection to a single holder at a time (a FIFO mutex), so a transaction's statements never interleave
 * with anyone else's, and everything else waits its turn, as it would for a pool of size one.
 */
export class PGliteDialect implements Dialect {
  readonly #pg: PGlite;
  readonly #mutex: SessionMutex;

  /** `mutex`: shared with the session server when other processes use this PGlite too (session-server.ts). */
  constructor(pg: PGlite, mutex: SessionMutex = createSessionMutex()) {
    this.#pg = pg;
    this.#mutex = mutex;
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#pg, this.#mutex);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #pg: PGlite;

  constructor(pg: PGlite) {
    this.#pg = pg;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Without parameters, use the simple protocol as node-postgres does, so a script of several statements
    // (a migration file) runs the same on both backends; its last statement's rows are the result.
    const result =
      compiled.parameters.length === 0
        ? ((await this.#pg.exec(compiled.sql)).at(-1) ?? { rows: [], fields: [], affectedRows: 0 })
        : await this.#pg.query<R>(compiled.sql, [...compiled.parameters]);
    const affected = result.affectedRows;
    return {
      rows: result.rows as R[],
      ...(affected !== undefined && result.fields.length === 0 ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; kysely only calls this for .stream()
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect: streaming queries are not supported');
  }
}

class PGliteDriver implements Driver {
  readonly #pg: PGlite;
  readonly #connection: PGliteConnection;
  readonly #mutex: SessionMutex;
  #release: (() => void) | undefined;

  constructor(pg: PGlite, mutex: SessionMutex) {
    this.#pg = pg;
    this.#mutex = mutex;
    this.#connection = new PGliteConnection(pg);
  }

  async init(): Promise<void> {
    await this.#pg.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#release = await this.#mutex.acquire();
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const modes: string[] = [];
    if (settings.isolationLevel) modes.push(`isolation level ${settings.isolationLevel}`);
    if (settings.accessMode) modes.push(settings.accessMode);
    await connection.executeQuery(CompiledQuery.raw(`begin${modes.length > 0 ? ` ${modes.join(' ')}` : ''}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  async destroy(): Promise<void> {
    // The owner of the PGlite instance closes it; several Kysely instances may share one in tests.
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
