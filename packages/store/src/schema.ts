import type { CaptureState, GlossaryTermStatus, ItemStatus, LinkType, WorkUnitStatus } from '@svc/domain';
import type { ColumnType, Generated, Selectable } from 'kysely';

/** Columns the database fills in; readable, optional on insert. */
type Auto<T> = ColumnType<T, T | undefined, T>;
/** Generated columns: readable, never written. */
type ReadOnly<T> = ColumnType<T, never, never>;
type Json = ColumnType<Record<string, unknown>, string | Record<string, unknown>, string | Record<string, unknown>>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

interface ProjectsTable {
  id: Generated<string>;
  slug: string;
  name: string;
  settings: Json;
  created_at: Timestamp;
}

interface ActorsTable {
  id: Generated<string>;
  email: string;
  name: Auto<string>;
  role: string | null;
  external_ids: Json;
  joined_at: Timestamp;
}

interface SystemsTable {
  id: Generated<string>;
  project_id: string;
  name: string;
  created_at: Timestamp;
}

interface WorkUnitsTable {
  id: Generated<string>;
  project_id: string;
  system_id: string | null;
  title: string;
  description: Auto<string>;
  status: Auto<WorkUnitStatus>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  closed_at: Date | null;
}

interface ItemTypesTable {
  key: string;
  display_name: string;
  schema: Json;
  owner: string;
  created_at: Timestamp;
}

interface ItemsTable {
  id: Generated<string>;
  project_id: string;
  system_id: string | null;
  item_type: string;
  title: string;
  body: Auto<string>;
  context: Json;
  source_url: string | null;
  work_unit_id: string | null;
  status: ItemStatus | null;
  chain_id: string;
  supersedes_id: string | null;
  is_head: Auto<boolean>;
  version: Auto<number>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When a person last wrote the content (created it, or edited title, body, context or source_url). */
  refreshed_at: Timestamp;
  deleted_at: Date | null;
  search: ReadOnly<string>;
}

interface LinksTable {
  id: Generated<string>;
  project_id: string;
  from_chain_id: string;
  link_type: LinkType;
  to_chain_id: string;
  created_by: string | null;
  created_at: Timestamp;
}

interface ItemsHistoryTable {
  id: Generated<string>;
  project_id: string;
  chain_id: string;
  item_id: string;
  version: number;
  change_kind: 'created' | 'updated' | 'superseded' | 'status_changed' | 'deleted' | 'restored';
  semantic_impacts: ColumnType<string[], string[] | undefined, string[]>;
  details: Json;
  actor_id: string | null;
  source: string;
  changed_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<string>;
  at: Timestamp;
  actor_id: string | null;
  source: string;
  operation: string;
  project_id: string | null;
  target_kind: string | null;
  target_id: string | null;
  request_id: string | null;
  details: Json;
}

interface SyncJobsTable {
  id: Generated<string>;
  project_id: string;
  kind: string;
  status: 'running' | 'succeeded' | 'failed';
  details: Json;
  created_by: string | null;
  started_at: Timestamp;
  finished_at: Date | null;
}

interface GlossaryGroupsTable {
  id: Generated<string>;
  project_id: string;
  name: string;
  created_at: Timestamp;
}

interface GlossaryTermsTable {
  id: Generated<string>;
  project_id: string;
  group_id: string;
  term: string;
  normalized: string;
  status: GlossaryTermStatus;
  created_by: string | null;
  created_at: Timestamp;
  decided_at: Date | null;
}

interface GlossaryRejectionsTable {
  id: Generated<string>;
  project_id: string;
  group_id: string;
  term: string;
  normalized: string;
  reason: Auto<string>;
  rejected_by: string | null;
  rejected_at: Timestamp;
}

interface CapturesTable {
  id: Generated<string>;
  text: string;
  summary: string | null;
  sensitivity_hint: string | null;
  signals: Json;
  review_state: Auto<CaptureState>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  redacted_at: Date | null;
  redacted_by: string | null;
  search: ReadOnly<string>;
  /** The project the capture is filed under; null is the shared inbox (migration 0010). */
  project_id: Auto<string | null>;
}

interface CapturePromotionsTable {
  capture_id: string;
  item_id: string;
  project_id: string;
  promoted_by: string | null;
  promoted_at: Timestamp;
}

interface IdeasTable {
  id: Generated<string>;
  project_id: string;
  work_unit_id: string;
  text: string;
  author_id: string | null;
  created_at: Timestamp;
  redacted_at: Date | null;
  redacted_by: string | null;
  search: ReadOnly<string>;
}

interface SchemaMigrationsTable {
  id: string;
  name: string;
  release: string;
  checksum: string;
  applied_at: Timestamp;
}

export interface Database {
  projects: ProjectsTable;
  actors: ActorsTable;
  systems: SystemsTable;
  work_units: WorkUnitsTable;
  item_types: ItemTypesTable;
  items: ItemsTable;
  links: LinksTable;
  items_history: ItemsHistoryTable;
  audit_log: AuditLogTable;
  sync_jobs: SyncJobsTable;
  glossary_groups: GlossaryGroupsTable;
  glossary_terms: GlossaryTermsTable;
  glossary_rejections: GlossaryRejectionsTable;
  captures: CapturesTable;
  capture_promotions: CapturePromotionsTable;
  ideas: IdeasTable;
  schema_migrations: SchemaMigrationsTable;
}

export type ItemRow = Selectable<ItemsTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type ActorRow = Selectable<ActorsTable>;
export type HistoryRow = Selectable<ItemsHistoryTable>;
