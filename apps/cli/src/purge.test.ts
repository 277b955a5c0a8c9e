import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, ops, } from '@svc/service';
import { createEmptyPostgresDatabase, openServiceForTest } from '@svc/service/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type Env, freshDataDir, svc, svcEnv } from './testing/svc-process.js';

/** Every file under `dir` whose bytes hold `marker`, relative to `dir`. */
function filesHolding(dir: string, marker: string): string[] {
  const needle = Buffer.from(marker);
  const out: string[] = [];
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (readFileSync(full).includes(needle)) out.push(full.slice(dir.length + 1));
    }
  };
  walk(dir);
  return out;
}

const TABLES = ['captures', 'ideas', 'items'];

/** The file number of each table: VACUUM FULL writes a table to new files. */
async function filenodes(service: Awaited<ReturnType<typeof openServiceForTest>>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of TABLES) {
    const row = await service.store.db
      .selectNoFrom((eb) => eb.fn<string>('pg_relation_filenode', [eb.val(table)]).as('n'))
      .executeTakeFirstOrThrow();
    out[table] = String(row.n);
  }
  return out;
}

interface Backend {
  name: string;
  env(): Promise<{ env: Env; dataDir?: string }>;
}

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

async function embedded(): Promise<{ env: Env; dataDir?: string }> {
  const dataDir = freshDataDir();
  return { env: svcEnv({ SVC_DATA_DIR: dataDir }), dataDir };
}

async function postgres(): Promise<{ env: Env; dataDir?: string }> {
  const db = (await createEmptyPostgresDatabase())!;
  drops.push(() => db.drop());
  return { env: svcEnv({ SVC_DATABASE_URL: db.url }) };
}

const backends: Backend[] = [{ name: 'pglite', env: embedded }, ...(process.env.SVC_TEST_DATABASE_URL ? [{ name: 'postgres', env: postgres }] : [])];

describe.each(backends)('svc purge on $name', (backend) => {
  it('rewrites captures, ideas and items outside a transaction and reports what it did; redacted bytes leave the table files', async () => {
    const { env, dataDir } = await backend.env();
    expect((await svc(['migrate'], env)).code).toBe(0);
    const marker = `zqxpurge${Date.now().toString(36)}`;

    // Seed through the service in this process (the CLI has no capture commands), then let go of the database.
    const service = await openServiceForTest(loadConfig(env));
    let before: Record<string, string>;
    try {
      await service.call(ops.project_create, { slug: 'purge' }, { source: 'cli' });
      const capture = (await service.call(ops.svc_capture_add, { text: `the key is ${marker}` }, { source: 'cli' })) as { id: string };
      await service.call(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'purge', title: `Key ${marker}` }, { source: 'cli' });
      await service.call(ops.svc_capture_redact, { capture_id: capture.id }, { source: 'cli' });
      before = await filenodes(service);
    } finally {
      await service.close();
    }
    // Redaction answered nothing with the marker, but its old row versions are still in the table files.
    if (dataDir) expect(filesHolding(join(dataDir, 'base'), marker)).not.toEqual([]);

    const text = await svc(['purge'], env);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^rewrote captures: \d+ KiB → \d+ KiB\nrewrote ideas: .*\nrewrote items: .*\nrewrote search_postings: .*\nrewrote search_terms: .*\nrewrote search_deltas: .*\nredacted text is gone from the table files \(the write-ahead log, backups and replicas may hold it until recycled: SECURITY\.md\)\n$/);
    const json = await svc(['purge', '--json'], env);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout) as { tables: { table: string; bytes_before: number; bytes_after: number }[] };
    expect(result.tables.map((t) => t.table)).toEqual(['captures', 'ideas', 'items', 'search_postings', 'search_terms', 'search_deltas']);
    for (const t of result.tables) expect(t.bytes_after).toBeGreaterThan(0);

    if (dataDir) expect(filesHolding(join(dataDir, 'base'), marker)).toEqual([]);
    const reopened = await openServiceForTest(loadConfig(env));
    try {
      // VACUUM FULL gives each table new files.
      const after = await filenodes(reopened);
      for (const t of ['captures', 'ideas', 'items']) expect(after[t]).not.toBe(before![t]);
      const audit = await reopened.store.db.selectFrom('audit_log').select(['operation', 'source', 'details']).where('operation', '=', 'storage_purge').execute();
      expect(audit).toEqual([
        { operation: 'storage_purge', source: 'cli', details: { tables: ['captures', 'ideas', 'items', 'search_postings', 'search_terms', 'search_deltas'] } },
        { operation: 'storage_purge', source: 'cli', details: { tables: ['captures', 'ideas', 'items', 'search_postings', 'search_terms', 'search_deltas'] } },
      ]);
    } finally {
      await reopened.close();
    }
  }, 180_000);
});
