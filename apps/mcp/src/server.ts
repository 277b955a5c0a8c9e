import { setImmediate as nextTurn } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { type AnyOperation, codeVersion, fromZod, isSvcError, nearestToolName, type Service, type Source, SvcError, toolOperations } from '@svc/service';
import { z } from 'zod';
import { fromSvcError, registerContext } from './context.js';

export interface McpOptions {
  /** The actor of this connection's auth context (--actor, X-Actor); SVC_DEFAULT_ACTOR_ID applies when unset. */
  actorId?: string | undefined;
  source?: Source;
  /** Tool calls of this server (one HTTP request, or one stdio session) that run at once; default 4. */
  maxConcurrentCalls?: number;
  /** stdio (the default) or http: decides how an error tells the caller to name an actor. */
  transport?: 'stdio' | 'http';
}

/** A JSON value's kind, in the words of the runner's other refusals ('must be …, not an array'). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'a JSON object' : `a ${typeof value}`;
}

/**
 * tools/call as the SDK defines it, but with the arguments exactly as sent: zod's record drops a `__proto__`
 * key, which must reach the runner to be refused like any other unknown parameter. Arguments that are not an
 * object are refused here, as invalid params in one sentence: left to the SDK's own check, which runs after this
 * parse, the answer's message was zod's issue list as JSON (an attacker, 2026-11-28).
 */
const CallToolAsSent = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({
    arguments: z
      .unknown()
      .superRefine((value, ctx) => {
        if (value === undefined || kindOf(value) === 'a JSON object') return;
        ctx.addIssue({ code: 'custom', message: `must be a JSON object of the tool's parameters, not ${kindOf(value)}` });
      })
      .optional(),
  }),
});

/** Calls one server runs at a time: a JSON-RPC batch of 100 calls must not take every pooled connection. */
const MAX_CONCURRENT_CALLS = 4;

/**
 * A counting semaphore: a task waits for one of `limit` slots, first come first served. A task that waited
 * starts on a later turn of the event loop, so other requests' I/O gets in between (the embedded database
 * answers without real I/O, and a chain of its answers would otherwise never let the loop turn).
 */
function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) {
      await new Promise<void>((resolve) => waiting.push(resolve));
      await nextTurn();
    } else active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next caller, so a newcomer cannot overtake the queue.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** The most tools/list may weigh, in characters of JSON: it is paid for in every conversation (scripts/conformance.sh). */
export const TOOLS_LIST_BUDGET = 28_000;

/** Numeric bounds this far out only fence off absurd input (a limit of 100,000, zod's safe-integer range). */
const SANITY_BOUND = 100_000;

/**
 * Drop what zod emits that tells a model nothing (every tool description is paid for in every conversation).
 * String length bounds and numeric sanity bounds go too: the runner still enforces them, and a refusal names the
 * field and the bound. Bounds a caller must know (depth 1 to 5, max_chars, a limit's minimum of 1) stay.
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== 'object') return node;
  const nullable = asNullableType(node as Record<string, unknown>);
  if (nullable) return nullable;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === '$schema' || key === 'minLength' || key === 'maxLength') continue;
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && Math.abs(value) >= SANITY_BOUND) continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    if (key === 'additionalProperties' && JSON.stringify(value) === '{}') continue;
    out[key] = compact(value);
  }
  return out;
}

/**
 * zod writes a nullable field as `anyOf: [{type: T, description}, {type: 'null'}]` under its own description;
 * `type: [T, 'null']` says the same in a third of the characters. Anything richer than a bare type keeps its anyOf.
 */
function asNullableType(node: Record<string, unknown>): Record<string, unknown> | undefined {
  const { anyOf, ...rest } = node;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return undefined;
  const [value, none] = anyOf.map(compact) as Record<string, unknown>[];
  if (JSON.stringify(none) !== '{"type":"null"}' || typeof value?.type !== 'string') return undefined;
  if (Object.keys(value).some((key) => key !== 'type' && key !== 'description')) return undefined;
  const description = rest.description ?? value.description;
  return { ...rest, ...(description === undefined ? {} : { description }), type: [value.type, 'null'] };
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
    // Only hints that say something: destructive and idempotent mean nothing for a read, and readOnly and
    // idempotent are false unless said (MCP's defaults).
    annotations:
      op.kind === 'read'
        ? { readOnlyHint: true, openWorldHint: false }
        : {
            destructiveHint: op.annotations.destructiveHint ?? false,
            ...(op.annotations.idempotentHint ? { idempotentHint: true } : {}),
            openWorldHint: false,
          },
  }));
}

/** A refusal as a tool result: the error body HTTP answers with (SvcError's own JSON), flagged isError. */
function errorResult(refusal: SvcError): CallToolResult {
  const error = refusal.toJSON();
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

/**
 * An MCP server over the catalog. Every call goes through the service runner, so validation, transactions and
 * attribution are the same as on HTTP and the CLI. Failures come back as tool results with isError; nothing
 * but an SvcError's own code and message ever reaches the client (no SQL, no stack, no connection string).
 * Tools are set on the low-level server (their schemas come from the catalog, compacted); resources, prompts
 * and completions use the SDK's McpServer registration (context.ts), reading through the same runner.
 */
export function createMcpServer(service: Service, options: McpOptions = {}): McpServer {
  const mcp = new McpServer(
    { name: 'svc', title: 'svc project memory', version: codeVersion().release.replace(/^v/, '') },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'svc keeps decision memory for this team. Call svc_brief only when the human asks for context; save ' +
        '(svc_item_upsert, svc_save_decisions) only when the human asks you to. Ids may be shortened to their first 8 characters. ' +
        'Resources: svc://projects/{project}/brief and /decisions, svc://items/{id}; prompts: start-session, record-decision, review-inbox.',
    },
  );
  const server = mcp.server;
  // The SDK's McpServer, given the tools capability, sets its own tool handlers (replaced below) and declares
  // list_changed for them; svc never sends it (docs/decisions/0023), so it says so (a newcomer, 2026-11-27).
  server.registerCapabilities({ tools: { listChanged: false } });
  const call = { source: options.source ?? ('mcp' as const), actorId: options.actorId, transport: options.transport ?? ('stdio' as const) };
  const tools = listTools();
  const byName = new Map(toolOperations().map((op) => [op.name, op]));
  const slot = limiter(Math.max(1, options.maxConcurrentCalls ?? MAX_CONCURRENT_CALLS));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolAsSent, async (request, extra): Promise<CallToolResult> => {
    const op = byName.get(request.params.name);
    if (!op) {
      // The name as a JSON string, at most 64 characters of it: a client printing the refusal raw got the escape
      // sequences a name may carry (an attacker, 2026-11-28), and a lone surrogate is written out.
      const name = request.params.name;
      const shown = JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
      const nearest = nearestToolName(name);
      const hint = nearest ? `did you mean "${nearest}"? ` : '';
      return errorResult(new SvcError('not_found', `no tool ${shown}; ${hint}tools/list shows the tools`, nearest ? { did_you_mean: nearest } : {}));
    }
    try {
      const result = await slot(() => service.call(op.name, request.params.arguments ?? {}, { ...call, signal: extra.signal }));
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
      if (isSvcError(error)) return errorResult(error);
      service.logger.error({ err: error, tool: op.name }, 'tool call failed outside the runner');
      return errorResult(new SvcError('internal_error', 'internal error; the server log has the details'));
    }
  });
  registerContext(mcp, service, call);
  refuseMalformedParams(server);
  return mcp;
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * A request whose params break the protocol's own schema (a prompt argument that is not a string, a tools/call
 * without a name) is parsed by the SDK before any handler of ours runs, and answered as an internal error (-32603)
 * whose message is the schema library's issues as JSON (an attacker, 2026-11-27). Every handler is wrapped, once
 * all are set, so that such a failure is invalid params (-32602) naming each field in words, and an SDK refusal
 * (an unknown prompt, a missing prompt argument) keeps one "MCP error" prefix (the client adds its own). The SDK
 * keeps its handlers in a map it does not export; without it svc does not start (an SDK upgrade would otherwise lose
 * this silently), and the MCP end-to-end test holds the answers.
 */
function refuseMalformedParams(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) throw new Error('the MCP SDK keeps its request handlers elsewhere: refuseMalformedParams needs updating');
  for (const [method, handler] of handlers as Map<string, RequestHandler>) {
    handlers.set(method, async (request: unknown, extra: unknown) => {
      try {
        return await handler(request, extra);
      } catch (error) {
        throw asRequestError(error);
      }
    });
  }
}

/**
 * The SDK's failure to parse a request's params (a schema error whose paths start at `params`) as invalid params
 * naming the field; the SDK's McpError with its message as given (its code and data kept); anything else as is.
 */
function asRequestError(error: unknown): unknown {
  if (error instanceof McpError) {
    return Object.assign(new Error(error.message.replace(/^MCP error -?\d+: /, '')), { code: error.code, data: error.data });
  }
  const { name, issues } = (error ?? {}) as { name?: unknown; issues?: unknown };
  if ((name !== 'ZodError' && name !== '$ZodError') || !Array.isArray(issues)) return error;
  if (!(issues as { path?: PropertyKey[] }[]).every((issue) => issue.path?.[0] === 'params')) return error;
  // Said as every other refusal of an argument is (the runner's fromZod), as invalid params.
  return fromSvcError(fromZod(error as z.ZodError));
}
