import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Service } from '@svc/service';
import { createMcpServer, type McpOptions } from './server.js';

/** Serve MCP over stdin/stdout until the client goes away. Logs go to stderr only. */
export async function serveStdio(service: Service, options: McpOptions = {}): Promise<void> {
  const server = createMcpServer(service, options);
  const transport = new StdioServerTransport();
  // What the transport met: a line that is not JSON-RPC, or a message over the SDK's 10 MiB, after which it closes.
  // Said on stderr; the process used to end without a word (an attacker, 2026-11-27).
  server.server.onerror = (error) => service.logger.warn({ err: error }, 'MCP over stdio: a message could not be read');
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
