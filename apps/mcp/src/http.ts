import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Service } from '@svc/service';
import { createMcpServer } from './server.js';

/** Host names the /mcp endpoint accepts when SVC_ALLOWED_HOSTS is not set: this machine only. */
export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]', '::1'];

export interface McpHttpOptions {
  /** Host names (optionally with :port) accepted in Host and Origin; default LOCAL_HOSTS. */
  allowedHosts?: string[] | undefined;
}

function hostOf(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) return v.slice(0, v.indexOf(']') + 1);
  const colon = v.lastIndexOf(':');
  return colon > 0 && v.indexOf(':') === colon ? v.slice(0, colon) : v;
}

function allowed(value: string, list: string[]): boolean {
  const v = value.trim().toLowerCase();
  return list.some((entry) => {
    const e = entry.toLowerCase();
    return e === v || e === hostOf(v);
  });
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
 * Host and Origin are checked against the allowed hosts first (DNS-rebinding protection).
 */
export function createMcpHttpHandler(service: Service, options: McpHttpOptions = {}) {
  const hosts = options.allowedHosts && options.allowedHosts.length > 0 ? options.allowedHosts : LOCAL_HOSTS;
  return async (request: Request): Promise<Response> => {
    const host = request.headers.get('host');
    if (!host || !allowed(host, hosts)) {
      return jsonRpcError(403, -32000, `Forbidden: Host ${host ?? '(none)'} is not allowed; set SVC_ALLOWED_HOSTS to serve behind a proxy`);
    }
    const origin = request.headers.get('origin');
    if (origin) {
      let originHost: string;
      try {
        originHost = new URL(origin).host;
      } catch {
        return jsonRpcError(403, -32000, 'Forbidden: malformed Origin');
      }
      if (!allowed(originHost, hosts)) return jsonRpcError(403, -32000, `Forbidden: Origin ${origin} is not allowed`);
    }
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
