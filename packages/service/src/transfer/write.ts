import { randomUUID } from 'node:crypto';
import { newSlugRefusal, SvcError } from '@svc/domain';
import {
  type ColumnType,
  type Database,
  deferSearchIndex,
  existingKeys,
  findProjectBySlug,
  INBOX_TABLES,
  itemsOfRedactedCaptures,
  type Transaction,
  rebuildSearchIndex,
  redactChainText,
  resetIdentities,
  TABLES,
  type TableSpec,
  tryImportRows,
} from '@svc/store';
import { fromDatabase } from '../errors.js';
import type { WriteContext } from '../operation.js';
import { SHARED } from './confine.js';
import { type ImportRecord, lineError, remap } from './file.js';

/** The last steps of an import: fresh ids for a copy, then the rows, in batches, in foreign-key order. */

const BATCH = 500;

type Progress = WriteContext['progress'];

/**
 * Importing as a new slug: the slug is valid and free here, and every id of the file's own rows gets a fresh
 * one (shared rows, actors and custom types, keep theirs; identity ids are renumbered by the database).
 * Returns the map from old id to new, and renames the project record.
 */
export async function renewIds(tx: Transaction<Database>, records: ImportRecord[], projectRecord: ImportRecord, slug: string): Promise<Map<string, string>> {
  const refused = newSlugRefusal(slug);
  if (refused) throw new SvcError('invalid_input', `as_slug: ${refused}`, { field: 'as_slug' });
  const taken = await findProjectBySlug(tx, slug);
  if (taken) throw new SvcError('conflict', `project slug '${slug}' already exists: choose another slug for --as`, { field: 'as_slug', project_id: taken.id });
  const ids = new Map<string, string>();
  for (const r of records) {
    if (SHARED.has(r.spec.kind) || r.spec.identity) continue;
    if (typeof r.row.id === 'string') ids.set(r.row.id, randomUUID());
  }
  projectRecord.row.slug = slug;
  return ids;
}

/**
 * Write a project's records table by table (`ids` renews them; without it they keep their ids, and the
 * identity-keyed kinds of `keptIdentity` their identity ids too), then index them for search once, not row by
 * row. Returns the imported project's id.
 */
export async function writeProject(
  tx: Transaction<Database>,
  records: ImportRecord[],
  columns: Map<string, ColumnType[]>,
  renewed: { ids: Map<string, string> | undefined; keptIdentity: Set<string> },
  progress: Progress,
): Promise<string> {
  const { ids, keptIdentity } = renewed;
  await deferSearchIndex(tx);
  let done = 0;
  for (const spec of TABLES) {
    const group = records.filter((r) => r.spec === spec);
    const rows = group.map((r) => (ids ? (remap(r.row, ids) as Record<string, unknown>) : r.row));
    const cols = (columns.get(spec.kind) ?? []).map((c) => c.name);
    for (let start = 0; start < rows.length; start += BATCH) {
      const batch = rows.slice(start, start + BATCH);
      const lineOf = (k: number) => (group[start + k] as ImportRecord).line;
      await insertBatch(tx, spec, cols, batch, !ids && keptIdentity.has(spec.kind), lineOf);
      done += batch.length;
      progress(done, records.length, spec.kind);
    }
  }
  await resetIdentities(tx);
  const project = records.find((r) => r.spec.kind === 'project') as ImportRecord;
  const projectId = String(ids ? remap(project.row.id, ids) : project.row.id);
  // An item made from a capture the file says is redacted holds only what redaction leaves, whatever the file
  // says: an export older than decision 0042 kept its context's keys and numbers, a crafted one could hold anything.
  // Only its versions written up to the redaction: the later ones are what was written after it.
  for (const { item_id, capture_id } of await itemsOfRedactedCaptures(tx, projectId)) await redactChainText(tx, item_id, capture_id);
  await rebuildSearchIndex(tx, projectId);
  return projectId;
}

/** Write the shared inbox's records (actors, then captures), keeping their ids. */
export async function writeInbox(tx: Transaction<Database>, records: ImportRecord[], columns: Map<string, ColumnType[]>, progress: Progress): Promise<void> {
  for (const spec of INBOX_TABLES) {
    const group = records.filter((r) => r.spec.kind === spec.kind);
    const cols = (columns.get(spec.kind) ?? []).map((c) => c.name);
    const target = TABLES.find((t) => t.kind === spec.kind) as TableSpec;
    for (let start = 0; start < group.length; start += BATCH) {
      const batch = group.slice(start, start + BATCH);
      await insertBatch(tx, target, cols, batch.map((r) => r.row), false, (k) => (batch[k] as ImportRecord).line);
      progress(start + batch.length, group.length, spec.kind);
    }
  }
}

/** A database refusal in the import's words: the field when the constraint names one. */
function refusalMessage(error: unknown, spec: TableSpec, columns: string[]): string {
  const constraint = String((error as { constraint?: unknown }).constraint ?? '');
  const column = columns.find((c) => constraint === `${spec.table}_${c}_check`);
  if (column) return `field '${column}' has a value this database does not allow`;
  const mapped = fromDatabase(error);
  return mapped ? mapped.message : 'it breaks a rule of the database';
}

/**
 * Insert one batch under a savepoint. Shared rows (actors, custom types) that exist already are kept. If the
 * batch fails, insert its rows one by one to name the line that the database refuses.
 */
async function insertBatch(
  tx: Transaction<Database>,
  spec: TableSpec,
  columns: string[],
  rows: Record<string, unknown>[],
  keepIdentity: boolean,
  lineOf: (index: number) => number,
): Promise<void> {
  let pending = rows;
  if (SHARED.has(spec.kind)) {
    const key = spec.kind === 'actor' ? 'id' : 'key';
    const have = await existingKeys(tx, spec, key, rows.map((r) => String(r[key])));
    pending = rows.filter((r) => !have.has(String(r[key])));
  }
  if (pending.length === 0) return;
  if ((await tryImportRows(tx, spec, columns, pending, keepIdentity)) === undefined) return;
  for (const [k, row] of pending.entries()) {
    const failed = await tryImportRows(tx, spec, columns, [row], keepIdentity);
    if (failed) {
      throw lineError(lineOf(rows.indexOf(row) === -1 ? k : rows.indexOf(row)), `this ${spec.kind} cannot be stored: ${refusalMessage(failed.refusal, spec, columns)}`);
    }
  }
}
