import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Service } from '@svc/service';
import { createMcpServer, type McpOptions } from './server.js';

/** Serve MCP over stdin/stdout until the client goes away. Logs go to stderr only. */
export async function serveStdio(service: Service, options: McpOptions = {}): Promise<void> {
  const server = createMcpServer(service, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
