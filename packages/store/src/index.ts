export { actorIdsByEmail, findActor, findActorByEmail, insertActor, listActors, requireActor } from './actors.js';
export { type AuditEntry, writeAudit } from './audit.js';
export { type Backend, embeddedDatabaseMade, openStore, redactUrl, type Store } from './connection.js';
export { type AnnouncedServer, announcedServers, announceServer } from './dir-lock.js';
export { queryHistory, recordHistory } from './history.js';
export { findItemType, insertItemType, listItemTypes } from './item-types.js';
export {
  insertItem,
  type ItemValues,
  listChainVersions,
  lockHead,
  redactChainText,
  resolveItem,
  setChainDeleted,
  showItem,
  supersedeItem,
  updateHeadState,
} from './items.js';
export { addLink, removeLink } from './links.js';
export { REDACTABLE_TABLES, type RewrittenTable, rewriteTables } from './maintenance.js';
export {
  assertSchemaCurrent,
  loadMigrations,
  MIGRATIONS_DIR,
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
  updateProjectSettings,
} from './projects.js';
export { insertSystem, listSystems, resolveSystem } from './systems.js';
export type { Database } from './schema.js';
export type { Kysely, Transaction } from 'kysely';
export {
  findWorkUnitsByKeyword,
  insertWorkUnit,
  lockWorkUnit,
  resolveWorkUnit,
  setWorkUnitStatus,
  touchWorkUnit,
  type WorkUnit,
  workUnitsByIdPrefix,
} from './work-units.js';
export {
  BM25,
  bm25Tf,
  boundSearch,
  deferSearchIndex,
  glossarySynonyms,
  idf,
  NEAR_MISS_ROWS,
  openAnalyzedSearch,
  openItemSearch,
  rebuildSearchIndex,
  refuseWordless,
  searchItems,
  searchNearMisses,
  searchOneStatement,
  tsquery,
} from './search.js';
export {
  acceptTerm,
  findGroupByName,
  type GlossaryTerm,
  insertGroup,
  entryState,
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
export { inProgressTasks, listQaChecks, listTasks, nextSortOrder } from './tasks.js';
export {
  type Capture,
  insertCapture,
  itemsOfRedactedCaptures,
  listCaptures,
  lockCapture,
  promotionProjects,
  REDACTED,
  recordPromotion,
  redactCapture,
  resolveCapture,
  updateCapture,
} from './captures.js';
export { insertIdea, listIdeas, lockIdea, redactIdea } from './ideas.js';
export { type FindingItem, MAX_FINDINGS_PER_RULE, RULE_QUERIES } from './checks.js';
export { listExpiredResearch } from './research.js';
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

// The types below are named by no code outside this package, but the declarations of the packages above need
// them: they appear in the types of what this index exports, and tsc must be able to name them. @public keeps
// knip (which reports every other export nothing imports) from reporting them.
/** @public */
export type { GlossaryGroup } from './glossary.js';
/** @public */
export type { ChangeKind, HistoryEntry } from './history.js';
/** @public */
export type { Idea } from './ideas.js';
/** @public */
export type { ItemType } from './item-types.js';
/** @public */
export type { ResolvedItem, ShownItem } from './items.js';
/** @public */
export type { Link } from './links.js';
/** @public */
export type { System } from './systems.js';
/** @public */
export type { SearchHit, SearchStrategy } from './search.js';
