import type { AnyOperation } from './operation.js';
import { actorAdd, actorList } from './operations/actor.js';
import { brief } from './operations/brief.js';
import { check } from './operations/check.js';
import { completion } from './operations/completion.js';
import { decisionList } from './operations/decision-list.js';
import {
  captureAdd,
  captureAnnotate,
  captureDiscard,
  captureList,
  capturePromote,
  captureRedact,
  captureSearch,
  captureSetState,
} from './operations/capture.js';
import {
  glossaryGroupAdd,
  glossaryList,
  glossaryQueue,
  glossaryTermAccept,
  glossaryTermAdd,
  glossaryTermPropose,
  glossaryTermReject,
} from './operations/glossary.js';
import { historyQuery } from './operations/history-query.js';
import { ideaAdd, ideaList, ideaRedact, ideaSearch } from './operations/idea.js';
import { impact } from './operations/impact.js';
import { itemDelete, itemRestore } from './operations/item-delete.js';
import { itemHistory } from './operations/item-history.js';
import { itemSearch } from './operations/item-search.js';
import { itemShow } from './operations/item-show.js';
import { typeAdd, typeList } from './operations/item-type.js';
import { itemUpsert } from './operations/item-upsert.js';
import { linkAdd, linkRemove } from './operations/link.js';
import { pageSync } from './operations/page-sync.js';
import { projectCreate, projectList, projectShow } from './operations/project.js';
import { projectConfigExport, projectConfigImport } from './operations/project-config.js';
import { qaAdd, qaFail, qaListPending, qaPass } from './operations/qa.js';
import { researchSweep } from './operations/research-sweep.js';
import { saveDecisions } from './operations/save-decisions.js';
import { setup } from './operations/setup.js';
import { storagePurge } from './operations/storage-purge.js';
import { systemAdd } from './operations/system-add.js';
import { inboxExport, projectExport, projectImport } from './operations/transfer.js';
import { taskAdd, taskBlock, taskDone, taskEdit, taskList, taskStart } from './operations/task.js';
import { workClose, workOpen, workReopen, workResume } from './operations/work.js';

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
