import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { freshDataDir, REPO_ROOT, serveHttp, svc, svcEnv, svcJson } from './testing/svc-process.js';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };
const titles = (result: ToolResult) => ((result.structuredContent as { items: { title: string }[] }).items ?? []).map((i) => i.title);

/**
 * Issue 19's acceptance, played as the README tells a newcomer: start the server on an empty data directory,
 * connect over /mcp with the header it printed and save a decision; while the server runs, find the decision
 * from a second assistant over stdio (started with the printed configuration) and from the CLI in a third
 * process; then export, import into a new data directory, and find it there.
 */
describe('the README, played from the first start to an import elsewhere', () => {
  it('saves a decision over /mcp with the printed header, finds it over stdio MCP and with the CLI while the server runs, and again after export and import', async () => {
    const dataDir = freshDataDir();
    const env = svcEnv({ SVC_DATA_DIR: dataDir, SVC_ACTOR_EMAIL: 'walker@example.test' });
    const server = await serveHttp(env);
    const exportFile = join(mkdtempSync(join(tmpdir(), 'svc-walk-')), 'default.jsonl');
    try {
      const printed = server.output().stderr;
      const actorId = /header: X-Actor: (\S+)/.exec(printed)?.[1] as string;
      const mcpUrl = /URL: +(\S+\/mcp)/.exec(printed)?.[1] as string;
      expect(mcpUrl).toBe(`${server.url}/mcp`);

      // The first assistant: Streamable HTTP at the printed URL, with the printed header.
      const http = new Client({ name: 'walk-http', version: '1.0.0' });
      await http.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { 'X-Actor': actorId } } }));
      const saved = (await http.callTool({
        name: 'svc_save_decisions',
        arguments: { project_id: 'default', decisions: [{ title: 'Schedule jobs with PostgreSQL advisory locks', body: 'No cron host.' }] },
      })) as ToolResult;
      expect(saved.isError).toBeFalsy();
      await http.close();

      // The second assistant: the printed stdio configuration, started as a client would start it.
      const stdio = /"command": "([^"]*node_modules\/\.bin\/svc)",\s+"args": \[([^\]]*)\],\s+"env": \{\s+"SVC_DATA_DIR": "([^"]+)"/.exec(printed);
      expect(stdio).not.toBeNull();
      const [, command, rawArgs, printedDir] = stdio as unknown as [string, string, string, string];
      expect(existsSync(command)).toBe(true);
      expect(printedDir).toBe(dataDir);
      const assistant = new Client({ name: 'walk-stdio', version: '1.0.0' });
      await assistant.connect(
        new StdioClientTransport({
          command,
          args: JSON.parse(`[${rawArgs}]`) as string[],
          env: { ...(env as Record<string, string>), SVC_DATA_DIR: printedDir },
          cwd: REPO_ROOT,
          stderr: 'ignore',
        }),
      );
      try {
        const found = (await assistant.callTool({ name: 'svc_item_search', arguments: { project_id: 'default', query: 'advisory locks' } })) as ToolResult;
        expect(titles(found)).toEqual(['Schedule jobs with PostgreSQL advisory locks']);
      } finally {
        await assistant.close();
      }

      // A third process: the CLI, served by the running server.
      const cli = await svc(['search', 'default', 'advisory', 'locks'], env);
      expect(cli.code).toBe(0);
      expect(cli.stdout).toContain('Schedule jobs with PostgreSQL advisory locks');
      expect((await svc(['export', 'default', '--out', exportFile], env)).code).toBe(0);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }

    // Elsewhere: a new data directory, the file imported, the decision found.
    const elsewhere = svcEnv({ SVC_DATA_DIR: freshDataDir() });
    expect(readFileSync(exportFile, 'utf8')).toContain('Schedule jobs with PostgreSQL advisory locks');
    const imported = await svc(['import', exportFile], elsewhere);
    expect(imported.code).toBe(0);
    const again = await svcJson<{ items: { title: string }[] }>(['search', 'default', 'advisory', 'locks'], elsewhere);
    expect(again.items.map((i) => i.title)).toEqual(['Schedule jobs with PostgreSQL advisory locks']);
  }, 300_000);
});
