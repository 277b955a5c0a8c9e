import { REDACTABLE_TABLES, type RewrittenTable, rewriteTables } from '@svc/store';
import { z } from 'zod';
import { defineOperation } from '../operation.js';

export interface PurgeResult {
  tables: RewrittenTable[];
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

export const storagePurge = defineOperation({
  name: 'storage_purge',
  surface: 'operator',
  title: 'Purge redacted text from the database files',
  description:
    'Rewrite the tables redaction changes (captures, ideas, items, and the search index) with VACUUM FULL, so the text before a ' +
    'redaction leaves the table files too, not only every answer. Each table is locked while it is rewritten: ' +
    'run it when a short pause is acceptable. Returns {tables: [{table, bytes_before, bytes_after}]}.',
  input: z.object({}),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  outsideTransaction: true,
  presentation: {
    kind: 'markdown',
    render: (r: PurgeResult) =>
      [...r.tables.map((t) => `rewrote ${t.table}: ${kib(t.bytes_before)} → ${kib(t.bytes_after)}`), 'redacted text is gone from the table files (the write-ahead log, backups and replicas may hold it until recycled: SECURITY.md)'].join('\n'),
  },
  async run(ctx): Promise<PurgeResult> {
    const tables = await ctx.maintenance((db) => rewriteTables(db, REDACTABLE_TABLES));
    ctx.audit({ target_kind: 'storage', details: { tables: tables.map((t) => t.table) } });
    return { tables };
  },
});
