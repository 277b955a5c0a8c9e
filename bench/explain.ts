/**
 * Print PostgreSQL's plan (EXPLAIN ANALYZE) of the search query svc runs for each benchmark shape, against
 * the `svc_bench` database a `pnpm bench` run leaves behind:
 *
 *   node --conditions=@svc/source --import tsx bench/explain.ts [--server URL] [--query TEXT]…
 *
 * searchItems runs unchanged; a kysely plugin prefixes its SQL with EXPLAIN and keeps the plan rows.
 */
import { parseArgs } from 'node:util';
import { openStore, searchItems } from '@svc/store';
import { type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, sql, type UnknownRow } from 'kysely';
import { SEED, VOCABULARY, vocabulary } from './corpus.js';
import { planFor } from './measure.js';
import { shapes } from './shapes.js';

const { values: args } = parseArgs({
  options: {
    server: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    query: { type: 'string', multiple: true },
  },
});

function explaining(plan: string[]): KyselyPlugin {
  return {
    transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
      if (node.kind !== 'RawNode') return node;
      const [first = '', ...rest] = node.sqlFragments;
      return { ...node, sqlFragments: [`explain (analyze, buffers) ${first}`, ...rest] } as RootOperationNode;
    },
    async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      for (const row of result.rows) plan.push(String(Object.values(row)[0]));
      return { ...result, rows: [] };
    },
  };
}

async function main(): Promise<void> {
  const server = new URL(args.server);
  const store = await openStore({ databaseUrl: new URL('/svc_bench', server).toString(), poolSize: 1 });
  try {
    const { rows } = await sql<{ id: string }>`select id from projects where slug = 'bench'`.execute(store.db);
    const projectId = rows[0]?.id;
    if (!projectId) throw new Error('no bench project in svc_bench: run `pnpm bench --only postgres` first');
    const queries = args.query?.map((query) => ({ name: 'query', query })) ?? shapes(vocabulary(VOCABULARY, SEED).words);
    for (const shape of queries) {
      const tsPlan = await planFor(store.db, projectId, shape.query);
      if (!tsPlan) continue;
      const lines: string[] = [];
      await searchItems(store.db.withPlugin(explaining(lines)), tsPlan, { project_id: projectId, research_ttl_days: 90 }, 20);
      process.stdout.write(`\n=== ${shape.name}: ${shape.query}\n${lines.join('\n')}\n`);
    }
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
