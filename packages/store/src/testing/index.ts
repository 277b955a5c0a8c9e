import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import pg from 'pg';
import { type Backend, createPGlite, openStore, type Store } from '../connection.js';
import { loadMigrations, migrate } from '../migrate.js';

/**
 * Test backends. Every store and service suite runs on the embedded database always, and on real PostgreSQL
 * when SVC_TEST_DATABASE_URL is set (CI sets it).
 *
 * - PGlite: one in-memory instance per test worker (creating one costs seconds and most of a gigabyte),
 *   migrated once; suites reset it between tests. Needs vitest's `isolate: false` to be shared across files.
 * - PostgreSQL: a template database is migrated once per schema; each suite clones it into a database of
 *   its own and drops it when done.
 */
export interface TestBackend {
  readonly name: Backend;
  open(): Promise<TestStore>;
}

export interface TestStore extends Store {
  /** Empty every table, keeping the schema and the seeded system item types. */
  reset(): Promise<void>;
  /** A connection string for this suite's database (PostgreSQL only), for spawned processes. */
  readonly url: string | undefined;
}

let sharedPGlite: Promise<PGlite> | undefined;

async function pgliteForWorker(): Promise<PGlite> {
  sharedPGlite ??= (async () => {
    const instance = await createPGlite();
    const store = await openStore({ pglite: instance });
    await migrate(store.db);
    await store.db.destroy();
    return instance;
  })();
  return sharedPGlite;
}

const DATA_TABLES = [
  'capture_promotions',
  'captures',
  'ideas',
  'items_history',
  'audit_log',
  'links',
  'items',
  'work_units',
  'systems',
  'sync_jobs',
  'glossary_rejections',
  'glossary_terms',
  'glossary_groups',
  'projects',
  'actors',
];

async function resetDatabase(store: Store): Promise<void> {
  await sql.raw(`truncate ${DATA_TABLES.join(', ')} restart identity cascade`).execute(store.db);
  await store.db.deleteFrom('item_types').where('owner', '<>', 'system').execute();
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const templates = new Map<string, Promise<string>>();

/** The name of a migrated template database for the current migrations, created once (by one worker). */
async function templateDatabase(url: string): Promise<string> {
  const digest = loadMigrations()
    .map((m) => m.checksum.slice(0, 8))
    .join('')
    .slice(-16);
  const name = `svc_test_tpl_${digest}`;
  let pending = templates.get(name);
  if (pending === undefined) {
    pending = (async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('select pg_advisory_lock(7305162011853002)');
        const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
        if (!rowCount) {
          const building = `${name}_build_${randomBytes(3).toString('hex')}`;
          await client.query(`create database ${building}`);
          const store = await openStore({ databaseUrl: withDatabase(url, building), poolSize: 1 });
          try {
            await migrate(store.db);
          } finally {
            await store.close();
          }
          await client.query(`alter database ${building} rename to ${name}`);
        }
        await client.query('select pg_advisory_unlock(7305162011853002)');
      } finally {
        await client.end();
      }
      return name;
    })();
    templates.set(name, pending);
  }
  return pending;
}

async function openPostgresClone(url: string): Promise<TestStore> {
  const template = await templateDatabase(url);
  const database = `svc_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(url, `create database ${database} template ${template}`);
      break;
    } catch (error) {
      // Two clones of one template at the same instant can collide; wait and retry.
      if (attempt >= 10) throw error;
      await new Promise((r) => setTimeout(r, 100 + attempt * 100));
    }
  }
  const suiteUrl = withDatabase(url, database);
  const store = await openStore({ databaseUrl: suiteUrl, poolSize: 25 });
  return {
    ...store,
    url: suiteUrl,
    reset: () => resetDatabase(store),
    async close() {
      await store.close();
      await adminQuery(url, `drop database if exists ${database} with (force)`);
    },
  };
}

const MISSING_POSTGRES =
  'SVC_TEST_DATABASE_URL is unset while CI=true: CI must run the PostgreSQL suites (the race tests among them; PGlite ' +
  'has one connection, so it serialises transactions and proves nothing about locks). Set it to a PostgreSQL URL.';

/**
 * Whether a PostgreSQL-only suite may skip: only outside CI. With CI=true and no SVC_TEST_DATABASE_URL the suite
 * runs and fails with a message saying so, so CI can never pass with its real races silently skipped.
 */
export function skipWithoutPostgres(): boolean {
  return !process.env.SVC_TEST_DATABASE_URL && process.env.CI !== 'true';
}

export function testBackends(): TestBackend[] {
  const backends: TestBackend[] = [
    {
      name: 'pglite',
      async open() {
        const store = await openStore({ pglite: await pgliteForWorker() });
        await resetDatabase(store);
        return { ...store, url: undefined, reset: () => resetDatabase(store) };
      },
    },
  ];
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (url) backends.push({ name: 'postgres', open: () => openPostgresClone(url) });
  else if (process.env.CI === 'true') backends.push({ name: 'postgres', open: () => Promise.reject(new Error(MISSING_POSTGRES)) });
  return backends;
}

/** A fresh, empty PostgreSQL database for tests that spawn processes or test migration itself. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (!url) {
    if (process.env.CI === 'true') throw new Error(MISSING_POSTGRES);
    return undefined;
  }
  const database = `svc_test_empty_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(url, `create database ${database}`);
  return {
    url: withDatabase(url, database),
    drop: () => adminQuery(url, `drop database if exists ${database} with (force)`),
  };
}
export { canStartPrivateCluster, freePort, type PrivateCluster, startPrivateCluster } from './private-cluster.js';
