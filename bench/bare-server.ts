/**
 * The baseline of the HTTP load benchmark (bench/load.ts): a bare hono app on @hono/node-server whose every
 * route runs exactly one pg query on a plain pool, with nothing else (no validation, no runner, no logging).
 * Started by bench/load.ts in its own process:
 *
 *   node --import tsx bench/bare-server.ts <spec.json>
 *
 * spec.json: { databaseUrl, poolSize, searches: [{ sql, parameters }] }. Prints `listening <url>` on stdout
 * once it listens on a free loopback port; SIGTERM closes the server and the pool.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pg from 'pg';

export interface BareSpec {
  databaseUrl: string;
  poolSize: number;
  /** The statement svc runs last for each search query, compiled by svc's own code (bench/load.ts). */
  searches: { sql: string; parameters: readonly unknown[] }[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: bare-server.ts <spec.json>');
const spec = JSON.parse(readFileSync(file, 'utf8')) as BareSpec;
const pool = new pg.Pool({ connectionString: spec.databaseUrl, max: spec.poolSize });

const app = new Hono();

app.get('/items/:id', async (c) => {
  const { rows } = await pool.query('select id, title, body from items where id = $1', [c.req.param('id')]);
  const row = rows[0];
  return row ? c.json(row) : c.json({ error: 'not found' }, 404);
});

// The same statement prepared by name, as svc prepares its item_show statement: shown in the table for
// reference, beside the baseline above (the plain pg query the issue names).
app.get('/items-prepared/:id', async (c) => {
  const { rows } = await pool.query({ name: 'bare_item', text: 'select id, title, body from items where id = $1', values: [c.req.param('id')] });
  const row = rows[0];
  return row ? c.json(row) : c.json({ error: 'not found' }, 404);
});

app.get('/search/:n', async (c) => {
  const statement = spec.searches[Number(c.req.param('n'))];
  if (!statement) return c.json({ error: 'no such search' }, 404);
  const { rows } = await pool.query(statement.sql, [...statement.parameters]);
  return c.json({ items: rows });
});

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
  process.stdout.write(`listening http://127.0.0.1:${info.port}\n`);
});

process.once('SIGTERM', () => {
  server.close(() => {
    pool.end().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  if ('closeIdleConnections' in server) server.closeIdleConnections();
});
