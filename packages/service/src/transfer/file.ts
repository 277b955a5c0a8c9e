import { MAX_JSON_DEPTH, SvcError } from '@svc/domain';
import { type ColumnType, type Kysely, type Database, migrationStatus, TABLES, type TableSpec, tableColumnTypes } from '@svc/store';
import { isIsoTime } from '../inputs.js';
import { lengthProblem } from './limits.js';

/**
 * Reading an export file (the first steps of an import): its size, its header, and each line as a record of a
 * known kind whose every field fits its column. Nothing here knows which project the file is for.
 */

/** The export format: JSON Lines, a header, one record per row, an end record. Bump on any change. */
export const FORMAT = 'svc-export';
export const FORMAT_VERSION = 1;

/** A project file names its project; a file of the shared inbox says `inbox: true` instead. */
export interface Header {
  format: string;
  format_version: number;
  schema: string;
  release: string;
  project?: string;
  inbox?: true;
}

/** The largest import file the CLI reads, and the longest line (the HTTP body limit): docs/decisions/0014. */
export const IMPORT_MAX_BYTES = 512 * 1024 * 1024;
export const IMPORT_MAX_LINE_BYTES = 2 * 1024 * 1024;

/** One line of the file: its line number, the table it belongs to and its fields. */
export interface ImportRecord {
  line: number;
  spec: TableSpec;
  row: Record<string, unknown>;
}

export function lineError(line: number, message: string, recordField?: string): SvcError {
  return new SvcError('invalid_input', `line ${line}: ${message}`, { field: 'file', line, ...(recordField ? { record_field: recordField } : {}) });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Replace every string equal to a mapped id, anywhere in a value (columns and JSON alike). */
export function remap(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => remap(v, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, remap(v, ids)]));
  }
  return value;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** What is wrong with a JSON value stored as jsonb, walking it without recursion (a line can nest deeply). */
function jsonProblem(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return 'holds a NUL character';
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'holds a number that is not finite (one beyond ±1.8e308, such as 1e400, overflows and would be stored as null)';
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
      for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
        if (typeof k === 'string' && k.includes('\u0000')) return 'holds a NUL character';
        if (k === '__proto__') return "holds a '__proto__' key";
        stack.push([child, depth + 1]);
      }
    }
  }
  return undefined;
}

/** What is wrong with a value for a column of this type, in words; undefined when it fits. */
function valueProblem(column: ColumnType, value: unknown): string | undefined {
  if (value === null) return column.nullable ? undefined : 'must not be null';
  switch (column.type) {
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? undefined : 'must be a UUID (lowercase hex)';
    case 'text':
      if (typeof value !== 'string') return 'must be a string';
      return value.includes('\u0000') ? 'holds a NUL character' : undefined;
    case 'timestamptz':
      return typeof value === 'string' && TIMESTAMP.test(value) && isIsoTime(value) ? undefined : 'must be an ISO 8601 time such as 2024-05-01T12:00:00.000Z';
    case 'int4':
      if (!(Number.isInteger(value) && (value as number) >= -2_147_483_648 && (value as number) <= 2_147_483_647)) return 'must be a whole number below 2^31';
      // A version counts a chain's rows from 1, in items and in the history that names them.
      return column.name === 'version' && (value as number) < 1 ? 'must be 1 or more (versions count from 1)' : undefined;
    case 'int8':
      // Exports write bigint ids as strings (as the database driver reads them).
      return (typeof value === 'string' && /^[1-9]\d{0,17}$/.test(value)) || (Number.isSafeInteger(value) && (value as number) >= 1)
        ? undefined
        : 'must be a positive whole number (as a string of at most 18 digits)';
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case '_text':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && !v.includes('\u0000')) ? undefined : 'must be an array of strings';
    case 'jsonb':
      return jsonProblem(value);
    default:
      return undefined;
  }
}

/** The lines of a file without the empty one a final newline leaves, within the import's size limits. */
export function fileLines(given: string[]): string[] {
  const lines = given.at(-1) === '' ? given.slice(0, -1) : given;
  let total = 0;
  for (const [i, line] of lines.entries()) {
    const bytes = Buffer.byteLength(line);
    if (bytes > IMPORT_MAX_LINE_BYTES) throw new SvcError('payload_too_large', `line ${i + 1}: longer than the ${IMPORT_MAX_LINE_BYTES / 1024 / 1024} MiB a line of an import may hold`, { field: 'file', line: i + 1 });
    total += bytes + 1;
  }
  if (total > IMPORT_MAX_BYTES) throw new SvcError('payload_too_large', `the file is larger than the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB an import may be`, { field: 'file' });
  return lines;
}

/** The header of the first line, written by this format version. */
export function readHeader(first: string | undefined): Header {
  let raw: unknown;
  try {
    raw = JSON.parse(first ?? '');
  } catch {
    throw lineError(1, 'not a svc export (the header is not JSON)');
  }
  if (!isObject(raw) || raw.format !== FORMAT) {
    throw lineError(1, `not a svc export (the first line must be a header with format '${FORMAT}')`, 'format');
  }
  const version = raw.format_version;
  if (version !== FORMAT_VERSION) {
    throw lineError(
      1,
      typeof version === 'number'
        ? `format version ${version} is not supported (this svc reads version ${FORMAT_VERSION})`
        : `format_version must be the number ${FORMAT_VERSION}, not ${JSON.stringify(version) ?? 'missing'}`,
      'format_version',
    );
  }
  if (raw.inbox !== undefined && raw.inbox !== true) throw lineError(1, `header field 'inbox' must be true or absent`, 'inbox');
  for (const key of ['schema', 'release', ...(raw.inbox === true ? [] : ['project'])]) {
    if (typeof raw[key] !== 'string') throw lineError(1, `header field '${key}' must be a string`, key);
  }
  return raw as unknown as Header;
}

/** The file was exported from the schema this database is at. */
export async function checkSchema(db: Kysely<Database>, header: Header): Promise<void> {
  const status = await migrationStatus(db);
  if (header.schema !== status.current) {
    throw lineError(1, `exported from schema ${header.schema} (${header.release}); this database is at ${status.current} (${status.currentRelease}): import with the matching svc version`, 'schema');
  }
}

/** The columns a record of each kind must have, with their types, as this database has them. */
export async function recordColumns(db: Kysely<Database>): Promise<Map<string, ColumnType[]>> {
  const columns = new Map<string, ColumnType[]>();
  for (const spec of TABLES) columns.set(spec.kind, await tableColumnTypes(db, spec));
  return columns;
}

/**
 * Every line after the header as a record: JSON, of a known kind, with exactly its columns, each value fitting
 * its column and no longer than the same field given by hand (limits.ts); then the end record, counting them. A
 * truncated file, an edited line or a stray field names its line.
 */
export function parseRecords(lines: string[], columns: Map<string, ColumnType[]>): ImportRecord[] {
  const byKind = new Map(TABLES.map((t) => [t.kind, t]));
  const records: ImportRecord[] = [];
  let ended = false;
  for (let i = 1; i < lines.length; i++) {
    const number = i + 1;
    if (ended) throw lineError(number, 'content after the end record');
    let parsed: unknown;
    try {
      parsed = JSON.parse(lines[i] as string);
    } catch {
      throw lineError(number, 'not valid JSON (is the file truncated or edited?)');
    }
    if (!isObject(parsed)) throw lineError(number, 'not a JSON object');
    const { type, ...row } = parsed;
    if (type === 'end') {
      if (parsed.records !== records.length) throw lineError(number, `the end record counts ${JSON.stringify(parsed.records) ?? 'nothing'} records, the file has ${records.length}`, 'records');
      ended = true;
      continue;
    }
    const spec = typeof type === 'string' ? byKind.get(type) : undefined;
    if (!spec) throw lineError(number, `unknown record type ${JSON.stringify(type) ?? '(none)'}; records are ${TABLES.map((t) => t.kind).join(', ')}`, 'type');
    const known = columns.get(spec.kind) ?? [];
    for (const key of Object.keys(row)) if (!known.some((c) => c.name === key)) throw lineError(number, `unknown field '${key}' for a ${spec.kind} record`, key);
    for (const column of known) {
      if (!(column.name in row)) throw lineError(number, `missing field '${column.name}' for a ${spec.kind} record`, column.name);
      const problem = valueProblem(column, row[column.name]) ?? lengthProblem(spec.kind, column, row[column.name]);
      if (problem) throw lineError(number, `field '${column.name}' of a ${spec.kind} record ${problem}`, column.name);
    }
    records.push({ line: number, spec, row });
  }
  if (!ended) throw lineError(lines.length + 1, 'the file ends without its end record (it is truncated)');
  return records;
}
