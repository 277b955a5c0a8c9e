import { checkSourceUrl, isSlug, isTypeKey, newSlugRefusal, type JsonSchema, SvcError, validateContext, validateTypeSchema } from '@svc/domain';
import {
  actorIdsByEmail,
  type Database,
  findProjectByIdOrSlug,
  firstLiveId,
  firstTakenUuid,
  identityIdsFree,
  type Transaction,
  listItemTypes,
  REDACTED,
  TABLES,
} from '@svc/store';
import { MAX_EXTERNAL_ID, MAX_EXTERNAL_ID_NAME } from '../inputs.js';
import { validateProjectSettings } from '../operations/project-config-shared.js';
import { type ImportRecord, isObject, lineError, remap, UUID } from './file.js';

/**
 * The trust checks of an import (docs/decisions/0014), run before anything is written: a file holds one
 * project (or the shared inbox) and nothing else, points only inside itself, and takes no id or slug that
 * belongs to another record of this database; an actor whose email is registered here is taken for that actor.
 */

/** Kinds of record shared between projects: kept when they exist here already, never renewed. */
export const SHARED = new Set(['actor', 'item_type']);

/** The column that identifies a record of each kind (unique within a file). */
const KEY: Record<string, string> = { item_type: 'key', capture_promotion: 'capture_id' };

/**
 * Every reference a record makes, and the kind of record of the same file it must name: a file can only
 * point inside itself, so nothing it holds can attach to another project's rows (docs/decisions/0014).
 */
const REFERENCES: Record<string, [column: string, kind: string][]> = {
  work_unit: [['system_id', 'system'], ['created_by', 'actor']],
  item: [['item_type', 'item_type'], ['chain_id', 'item'], ['supersedes_id', 'item'], ['system_id', 'system'], ['work_unit_id', 'work_unit'], ['created_by', 'actor']],
  link: [['from_chain_id', 'item'], ['to_chain_id', 'item'], ['created_by', 'actor']],
  history: [['item_id', 'item'], ['chain_id', 'item'], ['actor_id', 'actor']],
  glossary_term: [['group_id', 'glossary_group'], ['created_by', 'actor']],
  glossary_rejection: [['group_id', 'glossary_group'], ['rejected_by', 'actor']],
  capture: [['created_by', 'actor'], ['redacted_by', 'actor']],
  capture_promotion: [['capture_id', 'capture'], ['item_id', 'item'], ['promoted_by', 'actor']],
  idea: [['work_unit_id', 'work_unit'], ['author_id', 'actor'], ['redacted_by', 'actor']],
  sync_job: [['created_by', 'actor']],
  audit: [['actor_id', 'actor']],
};

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * Check that the file holds one project and nothing else: every record carries the project's id, every
 * reference names a record of the same file, settings and item-type schemas pass the checks they pass when
 * given by hand, and (keeping ids) no id is taken already. Returns the identity-keyed kinds (history, audit)
 * whose ids are free here and can be kept, and the file's actors taken for actors here by their email (file id →
 * id here; every record already names them so).
 */
export async function confine(
  tx: Transaction<Database>,
  records: ImportRecord[],
  projectRecord: ImportRecord,
  fresh: boolean,
): Promise<{ keptIdentity: Set<string>; adopted: Map<string, string>; actorsHere: string[] }> {
  await checkProjectRecord(tx, projectRecord, fresh);
  const has = uniqueKeys(records);
  const schemas = await checkItemTypes(tx, records);
  const { known, here } = await checkActors(tx, records);
  const gone = checkRecords(records, String(projectRecord.row.id), schemas, has);
  await checkGoneTargets(tx, gone);
  adoptActors(records, known);
  return { keptIdentity: fresh ? new Set<string>() : await freeIds(tx, records), adopted: known, actorsHere: here };
}

/**
 * The inbox file's checks: captures of no project and the actors they name only, references inside the file,
 * redacted captures masked, and no capture id that exists here already (it would be someone else's capture).
 */
export async function confineInbox(tx: Transaction<Database>, records: ImportRecord[]): Promise<{ adopted: Map<string, string>; actorsHere: string[] }> {
  for (const r of records) {
    if (r.spec.kind !== 'actor' && r.spec.kind !== 'capture') {
      throw lineError(r.line, `a ${r.spec.kind} record in an inbox file, which holds only captures and the actors they name`, 'type');
    }
  }
  const has = uniqueKeys(records);
  const { known, here } = await checkActors(tx, records);
  const captures = records.filter((r) => r.spec.kind === 'capture');
  for (const r of captures) {
    if (r.row.project_id !== null) throw lineError(r.line, `field 'project_id' is ${String(r.row.project_id)}: an inbox file holds only captures of no project`, 'project_id');
    checkReferences(r, has);
    if (r.row.review_state === 'promoted') throw lineError(r.line, "a promoted capture in an inbox file: it travels with its project's export", 'review_state');
    checkCapture(r, false);
  }
  adoptActors(records, known);
  if (captures.length === 0) return { adopted: known, actorsHere: here };
  const taken = await firstTakenUuid(tx, (captures[0] as ImportRecord).spec, 'id', captures.map((r) => r.row.id));
  if (taken !== undefined) {
    const r = captures.find((c) => c.row.id === taken) as ImportRecord;
    throw new SvcError('conflict', `line ${r.line}: a capture with id ${taken} already exists in this database; the inbox file cannot replace it`, {
      field: 'file',
      line: r.line,
      record_field: 'id',
    });
  }
  return { adopted: known, actorsHere: here };
}

/**
 * Run a check that also guards input given by hand (settings, a type's schema, an item's context) on a record:
 * its refusal becomes the record's line refusal, worded by `say` from the check's own message; any other
 * error is a bug and stays one (internal_error), never a refusal of the file.
 */
function refusedAtLine<T>(r: ImportRecord, recordField: string, say: (message: string) => string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof SvcError && error.code === 'invalid_input') throw lineError(r.line, say(error.message), recordField);
    throw error;
  }
}

/** The project record: a valid slug and settings, and (keeping ids) neither its id nor its slug taken here. */
async function checkProjectRecord(tx: Transaction<Database>, projectRecord: ImportRecord, fresh: boolean): Promise<void> {
  const projectId = projectRecord.row.id as string;
  const { slug, settings } = projectRecord.row;
  if (typeof slug !== 'string' || !isSlug(slug)) throw lineError(projectRecord.line, `field 'slug' '${String(slug)}' is not a valid slug`, 'slug');
  refusedAtLine(projectRecord, 'settings', (m) => `field 'settings': ${m}`, () => validateProjectSettings(settings));
  if (fresh) return;
  const refused = newSlugRefusal(slug);
  if (refused) throw lineError(projectRecord.line, `field 'slug' ${refused}; or import with --as NEW_SLUG (as_slug)`, 'slug');
  const clash = await findProjectByIdOrSlug(tx, projectId, slug);
  if (clash) {
    const what = clash.slug === slug ? `project slug '${slug}' already exists` : `project id ${projectId} already exists (as '${clash.slug}')`;
    throw new SvcError('conflict', `${what}: import with --as NEW_SLUG (as_slug) to import it beside, with fresh ids`, { field: 'as_slug', project_id: clash.id });
  }
}

/**
 * Item types: the system ones exist here; a file's own are checked as `svc type add` checks them, and one that
 * exists here must have the same schema. Returns the schema of every type a record may name.
 */
async function checkItemTypes(tx: Transaction<Database>, records: ImportRecord[]): Promise<Map<string, JsonSchema>> {
  const existingTypes = await listItemTypes(tx);
  const existing = new Map(existingTypes.map((t) => [t.key, t]));
  const schemas = new Map<string, JsonSchema>();
  for (const t of existingTypes) if (t.owner === 'system') schemas.set(t.key, t.schema);
  for (const r of records.filter((x) => x.spec.kind === 'item_type')) {
    const key = r.row.key as string;
    if (!isTypeKey(key)) throw lineError(r.line, `field 'key': '${key}' is not a valid type key`, 'key');
    const here = existing.get(key);
    if (r.row.owner === 'system' || here?.owner === 'system') throw lineError(r.line, `item type '${key}' is a system type or claims to be one; an export carries only custom types`, 'owner');
    const schema = refusedAtLine(r, 'schema', (m) => `field 'schema' of item type '${key}': ${m}`, () => validateTypeSchema(r.row.schema));
    if (here && canonical(here.schema) !== canonical(schema)) {
      throw lineError(r.line, `item type '${key}' exists here with a different schema; the file cannot change it`, 'schema');
    }
    schemas.set(key, schema);
  }
  return schemas;
}

/**
 * Each record on its own: it carries the project's id, names records of the file only, and agrees with itself
 * (captures with their state, items with their type's schema). Returns the deleted records audit rows name.
 */
function checkRecords(records: ImportRecord[], projectId: string, schemas: Map<string, JsonSchema>, has: (kind: string, id: string) => boolean): Gone[] {
  const fileIds = new Set(records.map((r) => String(r.row.id)));
  const gone: Gone[] = [];
  const promotions = new Set(records.filter((r) => r.spec.kind === 'capture_promotion').map((r) => String(r.row.capture_id)));
  const captureStates = new Map(records.filter((r) => r.spec.kind === 'capture').map((r) => [String(r.row.id), r.row.review_state]));
  for (const r of records) {
    const { kind } = r.spec;
    // A capture of the shared inbox (project_id null) travels with the project it was promoted into.
    const unfiled = kind === 'capture' && r.row.project_id === null;
    if (kind !== 'project' && 'project_id' in r.row && r.row.project_id !== projectId && !unfiled) {
      throw lineError(r.line, `field 'project_id' is ${String(r.row.project_id)}, not the imported project ${projectId}: a file holds one project's records only`, 'project_id');
    }
    checkReferences(r, (target, value) => (target === 'item_type' ? schemas.has(value) : has(target, value)));
    if (unfiled && !promotions.has(String(r.row.id))) {
      throw lineError(r.line, 'a capture of no project that no capture_promotion of this file names: an export holds only the captures filed under its project or promoted into it', 'project_id');
    }
    if (kind === 'audit') checkAuditTarget(r, fileIds, gone);
    if (kind === 'capture') checkCapture(r, promotions.has(String(r.row.id)));
    if (kind === 'capture_promotion') {
      const state = captureStates.get(String(r.row.capture_id));
      if (state !== 'promoted' && state !== 'redacted') {
        throw lineError(r.line, `field 'capture_id' names a capture in state ${String(state)}; a promoted capture is in state promoted (or redacted)`, 'capture_id');
      }
    }
    if (kind === 'item') checkItem(r, schemas, has);
  }
  return gone;
}

/** An item's context fits its type's schema, its source_url is a source, and a QA check targets items of the file. */
function checkItem(r: ImportRecord, schemas: Map<string, JsonSchema>, has: (kind: string, id: string) => boolean): void {
  const type = String(r.row.item_type);
  refusedAtLine(r, 'context', (m) => `field ${m}`, () => validateContext(type, schemas.get(type) as JsonSchema, r.row.context));
  const { source_url } = r.row;
  if (typeof source_url === 'string') refusedAtLine(r, 'source_url', (m) => `field ${m}`, () => checkSourceUrl(source_url, "'source_url'"));
  if (type !== 'qa_check' || !isObject(r.row.context)) return;
  for (const field of ['target_task_ids', 'target_item_ids']) {
    const targets = r.row.context[field];
    for (const target of Array.isArray(targets) ? targets : []) {
      if (!has('item', String(target))) throw lineError(r.line, `field 'context.${field}' names item ${String(target)}, which is not in this file`, 'context');
    }
  }
}

/**
 * Keeping ids, none may be taken already (it would be another project's row, or a capture of none). Returns
 * the identity-keyed kinds whose ids are all free: identity ids only order rows, so when any is taken, the
 * kind gets fresh ones in the file's order.
 */
async function freeIds(tx: Transaction<Database>, records: ImportRecord[]): Promise<Set<string>> {
  const keptIdentity = new Set<string>();
  for (const spec of TABLES) {
    const rows = records.filter((r) => r.spec === spec);
    if (SHARED.has(spec.kind) || spec.kind === 'project' || rows.length === 0) continue;
    const column = KEY[spec.kind] ?? 'id';
    if (spec.identity) {
      if (await identityIdsFree(tx, spec, rows.map((r) => r.row.id))) keptIdentity.add(spec.kind);
      continue;
    }
    const taken = await firstTakenUuid(tx, spec, column, rows.map((r) => r.row[column]));
    if (taken !== undefined) {
      const r = rows.find((x) => x.row[column] === taken) as ImportRecord;
      throw lineError(r.line, `a ${spec.kind} with ${column} ${taken} already exists in this database (outside this project): import with --as NEW_SLUG to give every row a fresh id`, column);
    }
  }
  return keptIdentity;
}

/** JSON with object keys sorted, so two schemas compare equal whatever order jsonb gave their keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Each record's key once per kind (else the line of the second); answers whether the file holds a record. */
function uniqueKeys(records: ImportRecord[]): (kind: string, id: string) => boolean {
  const keys = new Map<string, Map<string, number>>();
  for (const r of records) {
    const column = KEY[r.spec.kind] ?? 'id';
    const key = String(r.row[column]);
    const seen = keys.get(r.spec.kind) ?? new Map<string, number>();
    keys.set(r.spec.kind, seen);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw lineError(r.line, `a second ${r.spec.kind} with ${column} ${key} (the first is on line ${earlier})`, column);
    seen.set(key, r.line);
  }
  return (kind, id) => keys.get(kind)?.has(id) === true;
}

/** Kinds of record svc deletes for good (a removed link, a deleted glossary term), and their tables. */
const DELETED_TARGETS = { link: 'links', glossary_term: 'glossary_terms' } as const;
type Gone = { line: number; id: string; table: (typeof DELETED_TARGETS)[keyof typeof DELETED_TARGETS] };

/**
 * An audit row's target is a record of the same file (of any kind), so a file cannot pin its history on
 * another project's records. A link or glossary term svc deleted is gone from the export while its audit rows
 * stay: such a target may name no record of this file, provided it names no record here either (`gone`,
 * checked by the caller). docs/decisions/0014.
 */
function checkAuditTarget(r: ImportRecord, fileIds: Set<string>, gone: Gone[]): void {
  const target = r.row.target_id;
  if (target === null || target === undefined || fileIds.has(String(target))) return;
  const kind = r.row.target_kind;
  if ((kind === 'link' || kind === 'glossary_term') && typeof target === 'string' && UUID.test(target)) {
    gone.push({ line: r.line, id: target, table: DELETED_TARGETS[kind] });
    return;
  }
  throw auditTargetError(r.line, String(target));
}

function auditTargetError(line: number, target: string): SvcError {
  return lineError(
    line,
    `field 'target_id' names ${target}, which is not a record of this file: an audit row may only name records of its own project`,
    'target_id',
  );
}

/** A deleted link or term an audit row names must not be a live record of this database (another project's). */
async function checkGoneTargets(tx: Transaction<Database>, gone: Gone[]): Promise<void> {
  for (const table of Object.values(DELETED_TARGETS)) {
    const live = await firstLiveId(tx, table, gone.filter((g) => g.table === table).map((g) => g.id));
    if (live !== undefined) throw auditTargetError((gone.find((g) => g.id === live) as Gone).line, live);
  }
}

/** Every reference of a record names a record `known` to the file. */
function checkReferences(r: ImportRecord, known: (target: string, value: string) => boolean): void {
  for (const [column, target] of REFERENCES[r.spec.kind] ?? []) {
    const value = r.row[column];
    if (value === null) continue;
    if (!known(target, String(value))) {
      // An item type is built in or defined in the file; "its own project" misled a newcomer who misspelt one.
      const why =
        target === 'item_type'
          ? 'which is neither built in nor defined in this file'
          : 'which is not in this file: a record may only point at records of its own project';
      throw lineError(r.line, `field '${column}' names ${target.replace('_', ' ')} ${String(value)}, ${why}`, column);
    }
  }
}

/**
 * Actors: well-formed, one record per email. An actor of the file whose email an actor here has under another
 * id (the same person, registered on each machine) is that actor: returns file id → id here (`known`), and the
 * emails of every actor of the file that is an actor here (`here`, sorted), whose records the import attributes to
 * them: the answer names them, as a file need not come from them (an attacker, 2026-11-28; decision 0063).
 */
async function checkActors(tx: Transaction<Database>, records: ImportRecord[]): Promise<{ known: Map<string, string>; here: string[] }> {
  const actorRecords = records.filter((r) => r.spec.kind === 'actor');
  const emails = new Map<string, number>();
  for (const r of actorRecords) {
    const email = String(r.row.email);
    if (!EMAIL.test(email)) throw lineError(r.line, `field 'email' '${email}' is not an email address`, 'email');
    const earlier = emails.get(email.toLowerCase());
    if (earlier !== undefined) throw lineError(r.line, `a second actor with email ${email} (the first is on line ${earlier})`, 'email');
    emails.set(email.toLowerCase(), r.line);
    if (!isObject(r.row.external_ids)) throw lineError(r.line, "field 'external_ids' must be a JSON object", 'external_ids');
    if (!Object.entries(r.row.external_ids).every(isExternalId)) {
      throw lineError(r.line, `field 'external_ids' must name each id (1 to ${MAX_EXTERNAL_ID_NAME} characters) with a string of at most ${MAX_EXTERNAL_ID} characters, as actor add takes them`, 'external_ids');
    }
  }
  const known = new Map<string, string>();
  const here: string[] = [];
  if (actorRecords.length === 0) return { known, here };
  for (const actor of await actorIdsByEmail(tx, [...emails.keys()])) {
    const r = actorRecords.find((a) => String(a.row.email).toLowerCase() === actor.email) as ImportRecord;
    here.push(actor.email);
    if (r.row.id !== actor.id) known.set(String(r.row.id), actor.id);
  }
  return { known, here: here.sort() };
}

/** One of an actor's external ids as actor_add takes it: the other system's name and a string, both bounded. */
const isExternalId = ([name, id]: [string, unknown]) =>
  name.length >= 1 && name.length <= MAX_EXTERNAL_ID_NAME && typeof id === 'string' && id.length <= MAX_EXTERNAL_ID;

/** After the checks: every record names the actors `known` here by their id here (the actor record too, so it is not written again). */
function adoptActors(records: ImportRecord[], known: Map<string, string>): void {
  if (known.size === 0) return;
  for (const r of records) r.row = remap(r.row, known) as Record<string, unknown>;
}

/**
 * A capture's state agrees with its content: a redacted one holds only the mask (a file cannot smuggle words
 * into a capture every answer treats as removed), and a promoted one has its promotion in the file.
 */
function checkCapture(r: ImportRecord, promoted: boolean): void {
  const { review_state: state } = r.row;
  if (state === 'redacted') {
    for (const [field, masked] of [['text', REDACTED], ['summary', REDACTED], ['sensitivity_hint', null]] as const) {
      if (r.row[field] !== masked) throw lineError(r.line, `field '${field}' of a redacted capture must be ${JSON.stringify(masked)}: redacted text never travels`, field);
    }
    if (!isObject(r.row.signals) || Object.keys(r.row.signals).length > 0) throw lineError(r.line, "field 'signals' of a redacted capture must be {}", 'signals');
  }
  if (state === 'promoted' && !promoted) throw lineError(r.line, 'a capture in state promoted that no capture_promotion of this file names', 'review_state');
}

