import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Service } from '@svc/service';
import { createMcpServer, type McpOptions } from './server.js';

/**
 * How long, once stdin has ended, the requests already read may still run before the server closes: a write past it
 * is cut off with its connection and rolls back, unanswered.
 */
const DRAIN_MS = 60_000;

/**
 * Serve MCP over stdin/stdout until the client goes away. Logs go to stderr only. When stdin ends, every request read
 * before is answered first: a script piping its requests in and closing stdin (a newcomer, 2026-11-27) got the
 * initialize reply only, while its upsert was committed unanswered and its search died on a closed database.
 */
export async function serveStdio(service: Service, options: McpOptions = {}): Promise<void> {
  const server = createMcpServer(service, options);
  const transport = new StdioServerTransport();
  // What the transport met: a line that is not JSON-RPC, or a message over the SDK's 10 MiB, after which it closes.
  // Said on stderr; the process used to end without a word (an attacker, 2026-11-27).
  server.server.onerror = (error) => service.logger.warn({ err: error }, 'MCP over stdio: a message could not be read');
  // The requests read and not yet answered (the SDK calls a handler set before connect before its own).
  const running = new Set<string | number>();
  let drained: (() => void) | undefined;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) running.add(message.id);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      if (!('method' in message) && 'id' in message && message.id !== undefined && running.delete(message.id) && running.size === 0) drained?.();
    }
  };
  let transportClosed = false;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => {
      transportClosed = true;
      resolve();
    };
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  // A request cancelled by the client gets no answer: the wait is bounded.
  if (!transportClosed && running.size > 0) {
    await new Promise<void>((resolve) => {
      drained = resolve;
      setTimeout(resolve, DRAIN_MS).unref();
    });
  }
  await server.close();
}
