import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Service } from '@svc/service';
import { createMcpServer, type McpOptions } from './server.js';

/**
 * How long, once stdin has ended, the requests already read may still run before the server closes: a write past it
 * is cut off with its connection and rolls back, unanswered.
 */
const DRAIN_MS = 60_000;

/**
 * What the transport or the SDK reported, in words that hold none of the input, and the parse error to answer when
 * it is a line that could not be read. Never the error's message or stack: JSON.parse's message quotes the start of
 * the line, zod's can name its keys, and the SDK's own can hold a whole message as JSON, so a secret in a malformed
 * line reached the log (an attacker, 2026-11-28). The HTTP side logs nothing of a request's body either.
 */
function readFailure(error: unknown): { problem: string; reply?: string } {
  if (error instanceof SyntaxError) return { problem: 'a line is not JSON', reply: 'Parse error: Invalid JSON' };
  const { name, message, code } = (error ?? {}) as { name?: unknown; message?: unknown; code?: unknown };
  if (name === 'ZodError' || name === '$ZodError') return { problem: 'a line is JSON but not a JSON-RPC message', reply: 'Parse error: Invalid JSON-RPC message' };
  // The SDK's own words, which hold only its limit; it closes the connection after them.
  if (typeof message === 'string' && /^ReadBuffer exceeded maximum size of \d+ bytes$/.test(message)) return { problem: `${message}: the connection is closed` };
  // A system error of stdin or stdout (EPIPE, EIO) by its code; anything else by its kind alone.
  return { problem: typeof code === 'string' ? `stdio failed with ${code}` : `the MCP SDK reported ${typeof name === 'string' ? name : 'an error'} (its message is not logged: it may quote the input)` };
}

/**
 * Serve MCP over stdin/stdout until the client goes away. Logs go to stderr only. When stdin ends, every request read
 * before is answered first: a script piping its requests in and closing stdin (a newcomer, 2026-11-27) got the
 * initialize reply only, while its upsert was committed unanswered and its search died on a closed database.
 */
export async function serveStdio(service: Service, options: McpOptions = {}): Promise<void> {
  const server = createMcpServer(service, options);
  const transport = new StdioServerTransport();
  // What the transport met: a line that is not JSON-RPC, or a message over the SDK's 10 MiB, after which it closes.
  // Said on stderr; the process used to end without a word (an attacker, 2026-11-27). A line that could not be read
  // is answered as JSON-RPC says, with a parse error whose id is null (the SDK only calls onerror), as over HTTP.
  server.server.onerror = (error) => {
    const { problem, reply } = readFailure(error);
    service.logger.warn({ problem }, 'MCP over stdio: a message could not be read');
    if (reply === undefined) return;
    // The SDK's type leaves the id out (optional); JSON-RPC 2.0 wants it null when the request's could not be read.
    const parseError = { jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError, message: reply } } as unknown as JSONRPCMessage;
    transport.send(parseError).catch(() => {});
  };
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
