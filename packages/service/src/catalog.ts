import { distance } from 'fastest-levenshtein';
import type { AnyOperation } from './operation.js';
import { actorAdd } from './operations/actor-add.js';
import { actorList } from './operations/actor-list.js';
import { brief } from './operations/brief.js';
import { check } from './operations/check.js';
import { completion } from './operations/completion.js';
import { decisionList } from './operations/decision-list.js';
import { captureAdd } from './operations/capture-add.js';
import { captureAnnotate } from './operations/capture-annotate.js';
import { captureDiscard } from './operations/capture-discard.js';
import { captureList } from './operations/capture-list.js';
import { capturePromote } from './operations/capture-promote.js';
import { captureRedact } from './operations/capture-redact.js';
import { captureSearch } from './operations/capture-search.js';
import { captureSetState } from './operations/capture-set-state.js';
import { captureShow } from './operations/capture-show.js';
import { glossaryGroupAdd } from './operations/glossary-group-add.js';
import { glossaryList } from './operations/glossary-list.js';
import { glossaryQueue } from './operations/glossary-queue.js';
import { glossaryTermAccept } from './operations/glossary-term-accept.js';
import { glossaryTermAdd } from './operations/glossary-term-add.js';
import { glossaryTermPropose } from './operations/glossary-term-propose.js';
import { glossaryTermReject } from './operations/glossary-term-reject.js';
import { historyQuery } from './operations/history-query.js';
import { ideaAdd } from './operations/idea-add.js';
import { ideaList } from './operations/idea-list.js';
import { ideaRedact } from './operations/idea-redact.js';
import { ideaSearch } from './operations/idea-search.js';
import { impact } from './operations/impact.js';
import { itemDelete } from './operations/item-delete.js';
import { itemRestore } from './operations/item-restore.js';
import { itemHistory } from './operations/item-history.js';
import { itemSearch } from './operations/item-search.js';
import { itemShow } from './operations/item-show.js';
import { typeAdd } from './operations/type-add.js';
import { typeList } from './operations/type-list.js';
import { itemUpsert } from './operations/item-upsert.js';
import { linkAdd } from './operations/link-add.js';
import { linkRemove } from './operations/link-remove.js';
import { pageSync } from './operations/page-sync.js';
import { projectCreate } from './operations/project-create.js';
import { projectList } from './operations/project-list.js';
import { projectShow } from './operations/project-show.js';
import { projectConfigExport } from './operations/project-config-export.js';
import { projectConfigImport } from './operations/project-config-import.js';
import { qaAdd } from './operations/qa-add.js';
import { qaFail } from './operations/qa-fail.js';
import { qaList } from './operations/qa-list.js';
import { qaListPending } from './operations/qa-list-pending.js';
import { qaPass } from './operations/qa-pass.js';
import { researchSweep } from './operations/research-sweep.js';
import { saveDecisions } from './operations/save-decisions.js';
import { setup } from './operations/setup.js';
import { storagePurge } from './operations/storage-purge.js';
import { systemAdd } from './operations/system-add.js';
import { inboxExport } from './operations/inbox-export.js';
import { inboxList } from './operations/inbox-list.js';
import { inboxShow } from './operations/inbox-show.js';
import { projectExport } from './operations/project-export.js';
import { projectImport } from './operations/project-import.js';
import { taskAdd } from './operations/task-add.js';
import { taskBlock } from './operations/task-block.js';
import { taskDone } from './operations/task-done.js';
import { taskEdit } from './operations/task-edit.js';
import { taskList } from './operations/task-list.js';
import { taskStart } from './operations/task-start.js';
import { workClose } from './operations/work-close.js';
import { workOpen } from './operations/work-open.js';
import { workReopen } from './operations/work-reopen.js';
import { workResume } from './operations/work-resume.js';

const operations = [
  brief,
  itemSearch,
  itemUpsert,
  saveDecisions,
  pageSync,
  historyQuery,
  workOpen,
  workResume,
  workClose,
  taskAdd,
  taskList,
  taskStart,
  taskDone,
  taskBlock,
  taskEdit,
  qaAdd,
  qaListPending,
  qaList,
  qaPass,
  qaFail,
  captureAdd,
  captureList,
  captureSearch,
  captureAnnotate,
  captureSetState,
  captureDiscard,
  captureRedact,
  capturePromote,
  captureShow,
  inboxList,
  inboxShow,
  ideaAdd,
  ideaList,
  ideaSearch,
  ideaRedact,
  impact,
  check,
  workReopen,
  itemShow,
  decisionList,
  completion,
  itemDelete,
  itemRestore,
  itemHistory,
  projectCreate,
  projectList,
  projectShow,
  projectConfigImport,
  projectConfigExport,
  projectExport,
  inboxExport,
  projectImport,
  researchSweep,
  storagePurge,
  systemAdd,
  actorAdd,
  actorList,
  typeAdd,
  typeList,
  linkAdd,
  linkRemove,
  glossaryGroupAdd,
  glossaryTermAdd,
  glossaryTermPropose,
  glossaryTermAccept,
  glossaryTermReject,
  glossaryQueue,
  glossaryList,
  setup,
] as const;

/** Every operation of the service, in order. Surfaces register from this list; nothing else names operations. */
export const catalog: readonly AnyOperation[] = operations;

type Catalog = (typeof operations)[number];

/**
 * The operations by name, typed: `service.call(ops.svc_task_start, input, …)` names an operation that exists
 * (a renamed one fails to compile) and takes and answers that operation's types. For tests and the bench; the
 * surfaces dispatch by the name they were called with.
 */
export const ops = Object.fromEntries(operations.map((op) => [op.name, op])) as { readonly [Op in Catalog as Op['name']]: Op };

const byName = new Map(catalog.map((op) => [op.name, op]));

export function findOperation(name: string): AnyOperation | undefined {
  return byName.get(name);
}

export function toolOperations(): AnyOperation[] {
  return catalog.filter((op) => op.surface === 'tool');
}

/**
 * The tool a misspelt or unprefixed name most likely meant, for the refusal to name (a newcomer's `item_search` or
 * `svc_item_serch` was told only that no such tool exists): the name in lower case with `_` for `-`, `.` and spaces,
 * with or without `svc_` before it, if that is a tool; else the nearest tool by edits, if it is within a quarter of
 * the name's length (at least 2). Undefined for a name of more than 64 characters (no tool name is half that long).
 */
export function nearestToolName(name: string): string | undefined {
  if (name.length > 64) return undefined;
  const tools = toolOperations().map((op) => op.name);
  const asked = name.trim().toLowerCase().replace(/[-.\s]/g, '_');
  const forms = asked.startsWith('svc_') ? [asked] : [asked, `svc_${asked}`];
  let best: { tool: string; edits: number } | undefined;
  for (const tool of tools) {
    const edits = Math.min(...forms.map((form) => distance(form, tool)));
    if (!best || edits < best.edits) best = { tool, edits };
  }
  return best && best.edits <= Math.max(2, Math.floor(asked.length / 4)) ? best.tool : undefined;
}
