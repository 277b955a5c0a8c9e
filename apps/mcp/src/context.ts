import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, type GetPromptResult, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type AnyOperation,
  type CallContext,
  type CompletionKind,
  type InputOf,
  inline,
  isSvcError,
  type OutputOf,
  ops,
  ref,
  type Service,
  SvcError,
  type ErrorCode as SvcErrorCode,
} from '@svc/service';
import { z } from 'zod';

/** Projects whose brief and decisions resources/list names: resources/list is not paginated here, so bounded. */
const LISTED_PROJECTS = 25;
/** Inbox captures shown by the review-inbox prompt. */
const INBOX = 20;
/** The MCP spec's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Resources, prompts and completions: what an assistant can read or start from without a tool call. Each reads
 * through the service runner (svc_brief, decision_list, item_show, svc_capture_list, completion), so limits,
 * validation and errors are the tools' own; the tool list does not grow.
 */
export function registerContext(mcp: McpServer, service: Service, call: CallContext): void {
  const run = async <Op extends AnyOperation>(op: Op, input: InputOf<Op>): Promise<OutputOf<Op>> => {
    try {
      return await service.call(op, input, call);
    } catch (error) {
      throw toMcpError(error, service);
    }
  };
  const markdown = async <Op extends AnyOperation>(op: Op, input: InputOf<Op>): Promise<string> => {
    const result = await run(op, input);
    return op.presentation?.kind === 'markdown' ? op.presentation.render(result) : JSON.stringify(result);
  };
  /** Completion never fails the client: what cannot be matched completes to nothing. */
  const complete = async (kind: CompletionKind, prefix: string, projectId?: string): Promise<string[]> => {
    try {
      const input = { kind, prefix, ...(kind === 'work_unit' && projectId ? { project_id: projectId } : {}) };
      return (await service.call(ops.completion, input, call)).values;
    } catch (error) {
      if (isSvcError(error) && (error.code === 'not_found' || error.code === 'invalid_input' || error.code === 'ambiguous_id')) return [];
      throw toMcpError(error, service);
    }
  };
  const projects = async () =>
    (await run(ops.project_list, { limit: LISTED_PROJECTS })).projects;
  const projectVariable = { project: (value: string) => complete('project', value) };

  mcp.registerResource(
    'project-brief',
    new ResourceTemplate('svc://projects/{project}/brief', {
      list: async () => ({
        resources: (await projects()).map((p) => ({
          uri: `svc://projects/${p.slug}/brief`,
          name: `${p.slug}-brief`,
          title: `${p.name}: brief`,
        })),
      }),
      complete: projectVariable,
    }),
    {
      title: 'Project brief',
      description: 'What svc_brief answers (open work units, recent items), at most 2000 characters.',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => text(uri, 'text/markdown', await markdown(ops.svc_brief, { project_id: variable(variables, 'project') })),
  );

  mcp.registerResource(
    'project-decisions',
    new ResourceTemplate('svc://projects/{project}/decisions', {
      list: async () => ({
        resources: (await projects()).map((p) => ({
          uri: `svc://projects/${p.slug}/decisions`,
          name: `${p.slug}-decisions`,
          title: `${p.name}: current decisions`,
        })),
      }),
      complete: projectVariable,
    }),
    {
      title: 'Current decisions',
      description: 'The current decisions of a project, grouped by system, newest first (at most 50).',
      mimeType: 'text/markdown',
    },
    async (uri, variables) =>
      text(uri, 'text/markdown', await markdown(ops.decision_list, { project_id: variable(variables, 'project'), limit: 50 })),
  );

  mcp.registerResource(
    'item',
    new ResourceTemplate('svc://items/{id}', { list: undefined }),
    {
      title: 'Item',
      description: 'One item, current version (any version id or 8-character prefix), with its links: {item, links, truncated}.',
      mimeType: 'application/json',
    },
    async (uri, variables) => text(uri, 'application/json', JSON.stringify(await run(ops.item_show, { item_id: variable(variables, 'id') }))),
  );

  const projectArg = completable(z.string().describe('Project slug'), (value) => complete('project', value));

  mcp.registerPrompt(
    'start-session',
    {
      title: 'Start a session',
      description: "Begin work on a project: embeds its brief, and with work_unit that unit's tasks.",
      argsSchema: {
        project: projectArg,
        work_unit: completable(z.string().optional().describe('Work unit id to continue (optional)'), (value, context) =>
          complete('work_unit', value ?? '', context?.arguments?.project),
        ),
      },
    },
    async ({ project, work_unit }): Promise<GetPromptResult> => {
      const brief = await markdown(ops.svc_brief, { project_id: project });
      const messages: GetPromptResult['messages'] = [
        { role: 'user', content: { type: 'resource', resource: { uri: projectUri(project, 'brief'), mimeType: 'text/markdown', text: brief } } },
      ];
      let focus = 'Then ask me what to work on.';
      if (work_unit) {
        const { tasks, truncated } = await run(ops.svc_task_list, { work_unit_id: work_unit, project_id: project });
        const lines = tasks.map((t) => `- [${t.status}] ${inline(t.title)} (${ref(t.id)})`);
        if (tasks.length === 0) lines.push('_No tasks yet._');
        if (truncated) lines.push('- _More tasks not shown; svc_task_list has them._');
        messages.push({ role: 'user', content: { type: 'text', text: `Tasks of work unit ${ref(work_unit)}:\n\n${lines.join('\n')}` } });
        focus = 'We continue that work unit: say which task is in progress or next, and start it with svc_task_start when I agree.';
      }
      messages.push({
        role: 'user',
        content: {
          type: 'text',
          text:
            `We are starting a work session on project ${inline(project)}. The brief above is its current state. ` +
            `Summarise it in a few lines. ${focus} Use svc_work_resume or svc_item_search when you need more; ` +
            'save nothing (svc_item_upsert, svc_save_decisions) unless I ask you to.',
        },
      });
      return { description: `Start a session on ${project}`, messages };
    },
  );

  mcp.registerPrompt(
    'record-decision',
    {
      title: 'Record a decision',
      description: 'Guide the recording of a decision with svc_save_decisions, after checking what is already decided.',
      argsSchema: {
        project: projectArg,
        topic: z.string().optional().describe('What the decision is about (optional)'),
      },
    },
    async ({ project, topic }): Promise<GetPromptResult> => {
      // Resolves the project first, so an unknown one is refused here rather than at the save.
      const { slug } = await run(ops.project_show, { project_id: project });
      const about = topic ? ` about ${inline(topic, 200)}` : '';
      const search = topic ? `svc_item_search with project_id "${slug}" and a query from the topic` : 'svc_item_search';
      return {
        description: `Record a decision in ${slug}`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text:
                `I want to record a decision${about} in project ${slug}.\n\n` +
                `1. Check what is already decided: ${search} (item_types ["decision"]).\n` +
                '2. Draft it with me: a title that states the decision, a body with the reasons and the alternatives ' +
                'rejected, and links: `supersedes` an older decision it replaces, `depends` on one it builds on.\n' +
                `3. When I confirm, call svc_save_decisions with project_id "${slug}" and decisions: [{title, body, links}] ` +
                '(several at once if we made several). To change an existing decision instead, call svc_item_upsert with its item_id.\n' +
                '4. Answer with the ids saved. Save nothing I have not confirmed.',
            },
          },
        ],
      };
    },
  );

  mcp.registerPrompt(
    'review-inbox',
    {
      title: 'Review the capture inbox',
      description: 'List the captures waiting in the inbox and guide their triage: promote, keep for review, discard or redact.',
      argsSchema: {
        project: completable(z.string().optional().describe('Project that promoted captures go to (optional)'), (value) =>
          complete('project', value ?? ''),
        ),
        item_type: completable(z.string().optional().describe("Item type for promoted captures (default 'knowledge')"), (value) =>
          complete('item_type', value ?? ''),
        ),
      },
    },
    async ({ project, item_type }): Promise<GetPromptResult> => {
      const slug = project ? (await run(ops.project_show, { project_id: project })).slug : undefined;
      const { captures, truncated } = await run(ops.svc_capture_list, { review_state: 'inbox', limit: INBOX });
      const lines = captures.map((c) => `- ${ref(c.id)} (${c.created_at.slice(0, 10)}): ${inline(c.text, 300)}`);
      if (captures.length === 0) lines.push('_The inbox is empty._');
      if (truncated) lines.push(`- _Only the newest ${INBOX} are shown; svc_capture_list has the rest._`);
      const target = slug ? `project_id "${slug}"` : 'the project I name';
      const type = item_type ? `item_type "${item_type}"` : 'the item type that fits (knowledge by default)';
      return {
        description: 'Triage the capture inbox',
        messages: [
          { role: 'user', content: { type: 'text', text: `Captures in the inbox:\n\n${lines.join('\n')}` } },
          {
            role: 'user',
            content: {
              type: 'text',
              text:
                'Help me triage these captures, one at a time. For each, propose one of: promote it ' +
                `(svc_capture_promote with ${target}, ${type} and a clear title), keep it for later ` +
                "(svc_capture_set_state review_state 'review'), discard it (svc_capture_discard), or redact it " +
                '(svc_capture_redact) if it holds a secret or personal data. Act only on what I agree to.',
            },
          },
        ],
      };
    },
  );

  // Nothing tells this process when another one adds a project or an item, so it never announces list
  // changes; the stateless /mcp endpoint could not deliver them anyway (docs/decisions/0023).
  mcp.server.registerCapabilities({ resources: { listChanged: false }, prompts: { listChanged: false } });
}

function projectUri(project: string, part: 'brief' | 'decisions'): string {
  return `svc://projects/${encodeURIComponent(project)}/${part}`;
}

function variable(variables: Variables, name: string): string {
  const value = variables[name];
  const raw = Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    throw fromSvcError(new SvcError('invalid_input', `${name}: '${raw}' is not a valid URI component`, { field: name }));
  }
}

function text(uri: URL, mimeType: string, body: string): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType, text: body }] };
}

/**
 * A JSON-RPC error for the SDK to send as is: an integer code, the message unchanged (the SDK's McpError would
 * prefix it with "MCP error <code>:", and the client prefixes it again), data with svc's own code and details.
 */
export class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: { code: SvcErrorCode; details?: Record<string, unknown> },
  ) {
    super(message);
  }
}

/** An SvcError as a JSON-RPC error: its message as is, its code and details as data; anything else is internal. */
function toMcpError(error: unknown, service: Service): RequestError {
  if (!isSvcError(error)) {
    service.logger.error({ err: error }, 'resource or prompt read failed outside the runner');
    return new RequestError(ErrorCode.InternalError, 'internal error; the server log has the details', { code: 'internal_error' });
  }
  return fromSvcError(error);
}

/** The JSON-RPC error of a refusal: not_found is the resource's, bad input the params', anything else internal. */
export function fromSvcError(error: SvcError): RequestError {
  const code =
    error.code === 'not_found'
      ? RESOURCE_NOT_FOUND
      : error.code === 'invalid_input' || error.code === 'ambiguous_id'
        ? ErrorCode.InvalidParams
        : ErrorCode.InternalError;
  return new RequestError(code, error.message, { code: error.code, details: error.details });
}
