import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { type AnyOperation, codeVersion, isSvcError, type Service, type Source, toolOperations } from '@svc/service';
import { z } from 'zod';

export interface McpOptions {
  /** The actor of this connection's auth context (--actor, X-Actor); SVC_DEFAULT_ACTOR_ID applies when unset. */
  actorId?: string | undefined;
  source?: Source;
  /** stdio (the default) or http: decides how an error tells the caller to name an actor. */
  transport?: 'stdio' | 'http';
}

/** Drop what zod emits that tells a model nothing (every tool description is paid for in every conversation). */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === '$schema') continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    if (key === 'additionalProperties' && JSON.stringify(value) === '{}') continue;
    out[key] = compact(value);
  }
  return out;
}

function inputSchema(op: AnyOperation): Tool['inputSchema'] {
  const schema = compact(z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' })) as Tool['inputSchema'];
  if (!op.mcpRequired?.length) return schema;
  const required = new Set([...(schema.required ?? []), ...op.mcpRequired]);
  return { ...schema, required: Object.keys(schema.properties ?? {}).filter((key) => required.has(key)) };
}

/** Tool definitions from the catalog: only `tool` operations; operator ones stay in the CLI. */
export function listTools(): Tool[] {
  return toolOperations().map((op) => ({
    name: op.name,
    title: op.title,
    description: op.description,
    inputSchema: inputSchema(op),
    annotations: {
      readOnlyHint: op.annotations.readOnlyHint,
      destructiveHint: op.annotations.destructiveHint ?? false,
      idempotentHint: op.annotations.idempotentHint ?? false,
      openWorldHint: false,
    },
  }));
}

function errorResult(code: string, message: string, details: Record<string, unknown> = {}): CallToolResult {
  const error = { code, message, details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

/**
 * An MCP server over the catalog. Every call goes through the service runner, so validation, transactions and
 * attribution are the same as on HTTP and the CLI. Failures come back as tool results with isError; nothing
 * but an SvcError's own code and message ever reaches the client (no SQL, no stack, no connection string).
 */
export function createMcpServer(service: Service, options: McpOptions = {}): Server {
  const server = new Server(
    { name: 'svc', title: 'svc project memory', version: codeVersion().release.replace(/^v/, '') },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'svc keeps decision memory for this team. Call svc_brief only when the human asks for context; save ' +
        '(svc_item_upsert, svc_save_decisions) only when the human asks you to. Ids may be shortened to their first 8 characters.',
    },
  );
  const tools = listTools();
  const byName = new Map(toolOperations().map((op) => [op.name, op]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const op = byName.get(request.params.name);
    if (!op) return errorResult('not_found', `no tool '${request.params.name}'; tools/list shows the tools`);
    try {
      const result = await service.call(op.name, request.params.arguments ?? {}, {
        source: options.source ?? 'mcp',
        actorId: options.actorId,
        transport: options.transport ?? 'stdio',
      });
      if (op.presentation.kind === 'markdown') {
        return { content: [{ type: 'text', text: op.presentation.render(result) }] };
      }
      if (op.presentation.kind === 'ack') {
        return {
          content: [{ type: 'text', text: op.presentation.render(result) }],
          structuredContent: result as Record<string, unknown>,
        };
      }
      return {
        content: [{ type: 'text', text: JSON.stringify(result) }],
        structuredContent: result as Record<string, unknown>,
      };
    } catch (error) {
      if (isSvcError(error)) return errorResult(error.code, error.message, error.details);
      service.logger.error({ err: error, tool: op.name }, 'tool call failed outside the runner');
      return errorResult('internal_error', 'internal error; the server log has the details');
    }
  });
  return server;
}
