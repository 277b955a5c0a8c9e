/**
 * REST routes over the catalog's tool operations: resource-shaped paths, one line per operation. Path
 * parameters and query parameters are named after the operation's input fields; POST/PATCH bodies carry the
 * rest. Everything else (validation, actor, transaction, errors) is the operation's, through the runner.
 */
import type { ops } from '@svc/service';

export interface Route {
  method: 'get' | 'post' | 'patch';
  /** Hono path: `:name` segments are input fields of the operation. */
  path: string;
  /** A catalog operation's name: a misspelt or renamed one does not compile. */
  operation: keyof typeof ops;
}

export const ROUTES: readonly Route[] = [
  { method: 'get', path: '/projects/:project_id/brief', operation: 'svc_brief' },
  { method: 'get', path: '/projects/:project_id/items/search', operation: 'svc_item_search' },
  { method: 'post', path: '/projects/:project_id/items', operation: 'svc_item_upsert' },
  { method: 'post', path: '/projects/:project_id/decisions', operation: 'svc_save_decisions' },
  { method: 'post', path: '/projects/:project_id/page-sync', operation: 'svc_page_sync' },
  { method: 'get', path: '/projects/:project_id/history', operation: 'svc_history_query' },
  { method: 'get', path: '/items/:item_id', operation: 'item_show' },
  { method: 'get', path: '/items/:item_id/impact', operation: 'svc_impact' },
  { method: 'get', path: '/checks', operation: 'svc_check' },
  { method: 'post', path: '/projects/:project_id/work-units', operation: 'svc_work_open' },
  { method: 'get', path: '/projects/:project_id/work-units/resume', operation: 'svc_work_resume' },
  { method: 'post', path: '/work-units/:work_unit_id/close', operation: 'svc_work_close' },
  { method: 'post', path: '/work-units/:work_unit_id/tasks', operation: 'svc_task_add' },
  { method: 'get', path: '/work-units/:work_unit_id/tasks', operation: 'svc_task_list' },
  { method: 'post', path: '/tasks/:task_id/start', operation: 'svc_task_start' },
  { method: 'post', path: '/tasks/:task_id/done', operation: 'svc_task_done' },
  { method: 'post', path: '/tasks/:task_id/block', operation: 'svc_task_block' },
  { method: 'patch', path: '/tasks/:task_id', operation: 'svc_task_edit' },
  { method: 'post', path: '/projects/:project_id/qa-checks', operation: 'svc_qa_add' },
  { method: 'get', path: '/projects/:project_id/qa-checks/pending', operation: 'svc_qa_list_pending' },
  { method: 'post', path: '/qa-checks/:qa_id/pass', operation: 'svc_qa_pass' },
  { method: 'post', path: '/qa-checks/:qa_id/fail', operation: 'svc_qa_fail' },
  { method: 'post', path: '/captures', operation: 'svc_capture_add' },
  { method: 'get', path: '/captures', operation: 'svc_capture_list' },
  { method: 'get', path: '/captures/search', operation: 'svc_capture_search' },
  { method: 'post', path: '/captures/:capture_id/annotate', operation: 'svc_capture_annotate' },
  { method: 'post', path: '/captures/:capture_id/state', operation: 'svc_capture_set_state' },
  { method: 'post', path: '/captures/:capture_id/discard', operation: 'svc_capture_discard' },
  { method: 'post', path: '/captures/:capture_id/redact', operation: 'svc_capture_redact' },
  { method: 'post', path: '/captures/:capture_id/promote', operation: 'svc_capture_promote' },
  { method: 'post', path: '/work-units/:work_unit_id/ideas', operation: 'svc_idea_add' },
  { method: 'get', path: '/work-units/:work_unit_id/ideas', operation: 'svc_idea_list' },
  { method: 'get', path: '/projects/:project_id/ideas/search', operation: 'svc_idea_search' },
  { method: 'post', path: '/ideas/:idea_id/redact', operation: 'svc_idea_redact' },
];

export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string);
}

/** `/items/:item_id` → `/items/{item_id}` (OpenAPI). */
export function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}
