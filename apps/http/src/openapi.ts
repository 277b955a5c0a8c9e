import { type AnyOperation, codeVersion, ERROR_CODES, ops } from '@svc/service';
import { z } from 'zod';
import { openApiPath, pathParams, ROUTES } from './routes.js';

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', description: `${ERROR_CODES.slice(0, -1).join(', ')} or ${ERROR_CODES.at(-1)}` },
        message: { type: 'string' },
        details: { type: 'object' },
      },
    },
  },
};

const errorResponses = Object.fromEntries(
  [
    ['400', 'Invalid input, or a write without an actor'],
    ['403', "Host not allowed (SVC_ALLOWED_HOSTS), or an Origin other than the request's own"],
    ['404', 'Not found'],
    ['409', 'Conflict or refused transition'],
    ['413', 'Request body too large'],
    ['415', 'A request other than GET without Content-Type: application/json'],
    ['503', 'Database unavailable, or a search stopped at its time-out (SVC_SEARCH_TIMEOUT_MS)'],
  ].map(([status, description]) => [status, { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }]),
);

/**
 * OpenAPI 3.1 from the same zod schemas the operations validate with (zod's own JSON Schema output: OpenAPI 3.1
 * uses JSON Schema 2020-12 as is), so the document cannot drift from what the server accepts.
 */
export function buildOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const op: AnyOperation = ops[route.operation];
    const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as {
      properties?: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    delete (schema as Record<string, unknown>).$schema;
    const inPath = pathParams(route.path);
    const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([k]) => !inPath.includes(k)));
    const required = (schema.required ?? []).filter((k) => !inPath.includes(k));
    const parameters: Record<string, unknown>[] = inPath.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      description: (schema.properties?.[name]?.description as string | undefined) ?? name,
    }));
    const operation: Record<string, unknown> = {
      operationId: op.name,
      summary: op.title,
      description: op.description,
      tags: [route.path.split('/')[1] ?? 'svc'],
      responses: { '200': { description: 'The result', content: { 'application/json': { schema: { type: 'object' } } } }, ...errorResponses },
    };
    if (route.method === 'get') {
      for (const [name, property] of Object.entries(properties)) {
        parameters.push({ name, in: 'query', required: required.includes(name), schema: property, ...(property.type === 'array' ? { style: 'form', explode: true } : {}) });
      }
    } else {
      operation.requestBody = {
        required: required.length > 0,
        content: { 'application/json': { schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) } } },
      };
      if (op.kind === 'write') {
        parameters.push({ name: 'X-Actor', in: 'header', required: false, schema: { type: 'string', format: 'uuid' }, description: 'Acting actor (else SVC_DEFAULT_ACTOR_ID, else 400)' });
      }
    }
    if (parameters.length > 0) operation.parameters = parameters;
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  paths['/health'] = { get: { operationId: 'health', summary: 'The process is up', responses: { '200': { description: 'ok' } } } };
  paths['/ready'] = {
    get: { operationId: 'ready', summary: 'The database answers', responses: { '200': { description: 'ready' }, '503': { description: 'the database does not answer' } } },
  };
  paths['/mcp'] = {
    post: {
      operationId: 'mcp',
      summary: 'MCP over Streamable HTTP (stateless JSON-RPC)',
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: { '200': { description: 'JSON-RPC response' }, '403': { description: 'Host or Origin not allowed' } },
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'svc', version: codeVersion().release.replace(/^v/, ''), description: 'Per-project decision memory for AI assistants and the people who work with them.' },
    paths,
    components: { schemas: { Error: errorSchema } },
  };
}
