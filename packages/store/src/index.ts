export type { Actor } from '@svc/domain';
export { actorIdsByEmail, findActor, findActorByEmail, insertActor, listActors, requireActor } from './actors.js';
export { type AuditEntry, writeAudit } from './audit.js';
export { type Backend, createPGlite, DEFAULT_DATA_DIR, openStore, redactUrl, type Store, type StoreConfig } from './connection.js';
export { acquireDirLock, type DirLock } from './dir-lock.js';
export { type ChangeKind, type HistoryEntry, type HistoryQuery, queryHistory, recordHistory } from './history.js';
export { findItemType, insertItemType, type ItemType, listItemTypes } from './item-types.js';
export {
  findHeads,
  insertItem,
  type ItemValues,
  listChainVersions,
  lockHead,
  type ResolvedItem,
  type ResolveOptions,
  redactChainText,
  resolveItem,
  type ShownItem,
  setChainDeleted,
  showItem,
  supersedeItem,
  toItem,
  updateHeadState,
} from './items.js';
export { addLink, type Link, listLinksOf, removeLink } from './links.js';
export { REDACTABLE_TABLES, type RedactableTable, type RewrittenTable, rewriteTables } from './maintenance.js';
export {
  assertSchemaCurrent,
  loadMigrations,
  MIGRATIONS_DIR,
  type MigrationFile,
  type MigrationStatus,
  migrate,
  migrationStatus,
} from './migrate.js';
export {
  findProjectByIdOrSlug,
  findProjectBySlug,
  insertProject,
  lockFirstUse,
  listProjects,
  oldestProject,
  projectSlugsByPrefix,
  resolveProject,
  toProject,
  updateProjectSettings,
} from './projects.js';
export { insertSystem, listSystems, resolveSystem, type System } from './systems.js';
export type { Database } from './schema.js';
export type { Kysely, Transaction } from 'kysely';
export {
  findWorkUnitsByKeyword,
  insertWorkUnit,
  lockWorkUnit,
  resolveWorkUnit,
  setWorkUnitStatus,
  touchWorkUnit,
  toWorkUnit,
  type WorkUnit,
  workUnitsByIdPrefix,
} from './work-units.js';
export {
  BM25,
  bm25Tf,
  deferSearchIndex,
  glossarySynonyms,
  idf,
  matchEach,
  rebuildSearchIndex, type SearchFilters, type SearchHit, searchItems, tsquery } from './search.js';
export {
  acceptTerm,
  findGroupByName,
  findTerm,
  type GlossaryGroup,
  type GlossaryTerm,
  insertGroup,
  insertTerm,
  listGroups,
  rejectTerm,
  resolveTerm,
  reviewQueue,
  termsOfGroups,
} from './glossary.js';
export {
  activeWorkUnits,
  currentDecisions,
  type DecisionEntry,
  type RecentItem,
  recentItems,
  recordSyncJob,
  type WorkUnitSummary,
} from './brief.js';
export { inProgressTasks, listQaChecks, listTasks, nextSortOrder, type QaFilter } from './tasks.js';
export {
  type Capture,
  type CaptureFilter,
  findCapture,
  insertCapture,
  listCaptures,
  lockCapture,
  REDACTED,
  recordPromotion,
  redactCapture,
  updateCapture,
} from './captures.js';
export { type Idea, type IdeaFilter, insertIdea, listIdeas, lockIdea, redactIdea } from './ideas.js';
export { type FindingItem, MAX_FINDINGS_PER_RULE, RULE_QUERIES, type RawFinding } from './checks.js';
export { type ExpiredResearch, listExpiredResearch, researchExpired, researchExpiresAt, researchExpiring } from './research.js';
export { type ImpactEntry, impact } from './impact.js';
export {
  type ColumnType,
  existingKeys,
  exportRows,
  firstLiveId,
  firstTakenUuid,
  identityIdsFree,
  INBOX_TABLES,
  resetIdentities,
  TABLES,
  type TableSpec,
  tableColumns,
  tableColumnTypes,
  tryImportRows,
} from './transfer.js';
