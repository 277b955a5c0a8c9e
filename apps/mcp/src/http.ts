import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Service } from '@svc/service';
import { hostRefusal } from './hosts.js';
import { createMcpServer } from './server.js';

export interface McpHttpOptions {
  /** Host names (optionally with :port) accepted in Host; an Origin must be the request's own. Default LOCAL_HOSTS. */
  allowedHosts?: string[] | undefined;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * MCP over Streamable HTTP, stateless: each request gets its own server and transport, so any number of
 * replicas can serve /mcp with no session affinity, and each request carries its own actor (X-Actor).
 * Host is checked against the allowed hosts first (DNS-rebinding protection), and an Origin against the request's own.
 */
export function createMcpHttpHandler(service: Service, options: McpHttpOptions = {}) {
  const hosts = options.allowedHosts ?? [];
  return async (request: Request): Promise<Response> => {
    const refusal = hostRefusal(
      { host: request.headers.get('host'), origin: request.headers.get('origin'), url: request.url, forwardedProto: request.headers.get('x-forwarded-proto') },
      hosts,
    );
    if (refusal) return jsonRpcError(403, -32000, `Forbidden: ${refusal.message}`);
    if (request.method !== 'POST') {
      // Stateless: no server-initiated stream and no session to delete.
      return jsonRpcError(405, -32000, 'Method not allowed: this endpoint is stateless; send JSON-RPC requests with POST');
    }
    const server = createMcpServer(service, { actorId: request.headers.get('x-actor') ?? undefined, source: 'mcp', transport: 'http' });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      void server.close();
    }
  };
}
