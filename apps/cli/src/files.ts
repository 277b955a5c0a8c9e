import { closeSync, constants, existsSync, fchmodSync, fstatSync, ftruncateSync, openSync, readSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_MAX_BYTES, type Config, IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES, jsonErrorPlace, SvcError } from '@svc/service';

/** The files the CLI reads and writes for its commands, each read with a cap and refused in words naming the flag. */

const MIB = 1024 * 1024;

/**
 * Refuse to go on where the embedded database would be made new and empty: a read, or an MCP server started over
 * stdio from another directory (a newcomer's client started one in its own directory, which made an empty database
 * and then refused the configured actor as unknown). PostgreSQL and `memory://` pass.
 */
export function requireEmbeddedDatabase(cfg: Config): void {
  if (cfg.databaseUrl !== undefined || cfg.dataDir.startsWith('memory://') || existsSync(cfg.dataDir)) return;
  throw new SvcError(
    'not_found',
    `SVC_DATA_DIR: no svc database at ${resolve(cfg.dataDir)}; run svc from the directory that holds .svc/data, set SVC_DATA_DIR to its data directory (or SVC_DATABASE_URL), or create one here with svc init`,
    { field: 'SVC_DATA_DIR' },
  );
}

/**
 * Read a file chunk by chunk, handing each complete line (without its newline) to `onLine`, and stop with a
 * message naming the limit as soon as the file or a line outgrows it: `/dev/zero` or a runaway pipe is
 * refused after reading at most a limit's worth, never held whole in memory.
 */
function readCapped(path: string, flag: string, maxBytes: number, maxLineBytes: number, onLine: (line: string) => void): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new SvcError('invalid_input', `${flag}: cannot read ${shown(path)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { field: flag });
  }
  // Bytes that are not UTF-8 are refused, not replaced with U+FFFD: the text would be stored other than it was
  // written, without a word (an attacker's --body-file, 2026-11-27).
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  const decode = (bytes: Buffer): string => {
    try {
      return utf8.decode(bytes);
    } catch {
      throw new SvcError('invalid_input', `${flag}: line ${line} of ${shown(path)} is not valid UTF-8; svc stores text as written, so save the file as UTF-8`, {
        field: flag,
        line,
      });
    }
  };
  try {
    const chunk = Buffer.alloc(MIB);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let total = 0;
    const tooLong = () =>
      new SvcError('payload_too_large', `${flag}: line ${line} of ${shown(path)} is longer than ${maxLineBytes / MIB} MiB, the most a line may hold`, { field: flag, line });
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new SvcError('invalid_input', `${flag}: cannot read ${shown(path)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { field: flag });
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new SvcError('payload_too_large', `${flag}: ${shown(path)} is larger than ${maxBytes / MIB} MiB, the most svc reads from such a file`, { field: flag });
      let start = 0;
      for (let at = chunk.indexOf(10, 0); at !== -1 && at < n; at = chunk.indexOf(10, start)) {
        if (pendingBytes + at - start > maxLineBytes) throw tooLong();
        onLine(decode(Buffer.concat([...pending, chunk.subarray(start, at)])));
        pending = [];
        pendingBytes = 0;
        start = at + 1;
        line++;
      }
      if (pendingBytes + n - start > maxLineBytes) throw tooLong();
      pending.push(Buffer.from(chunk.subarray(start, n)));
      pendingBytes += n - start;
    }
    if (pendingBytes > 0) onLine(decode(Buffer.concat(pending)));
  } finally {
    closeSync(fd);
  }
}

/** A whole small file (configuration, schema) as text, read with a cap of CONFIG_MAX_BYTES. */
export function readTextFile(path: string, flag: string): string {
  const lines: string[] = [];
  readCapped(path, flag, CONFIG_MAX_BYTES, CONFIG_MAX_BYTES, (line) => lines.push(line));
  return lines.join('\n');
}

/** An export file as its lines, read with the import limits (docs/decisions/0014). */
export function readImportLines(path: string, flag: string): string[] {
  const lines: string[] = [];
  readCapped(path, flag, IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES, (line) => lines.push(line));
  return lines;
}

export function readJsonFile(path: string, flag: string): unknown {
  const text = readTextFile(path, flag);
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it refused: the file may be anyone's (--schema /etc/shadow), so say where, never what.
    throw new SvcError('invalid_input', `${flag}: ${shown(path)} is not valid JSON (${jsonErrorPlace(text, (error as Error).message)})`, { field: flag });
  }
}

/**
 * A path as a message names it: quoted as JSON when it holds a control character, so that a newline in a file name
 * cannot print a line of its own that reads as svc's (an attacker, 2026-11-27); as given otherwise.
 */
function shown(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  return /[\u0000-\u001f\u007f]/.test(path) ? JSON.stringify(path) : path;
}

/**
 * Write an export to `path` for this user only: 0600 whether it is created or was there (an existing file keeps
 * its mode otherwise), never through a symbolic link someone planted there (O_NOFOLLOW), and never into a file of
 * another user's (refused before anything in it is truncated). A device (/dev/null) is written as it is; a write that
 * fails (a full disk) is refused naming `--out`.
 */
export function writePrivateFile(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new SvcError('invalid_input', `--out: ${shown(path)} is a symbolic link; svc does not write through one (name the file itself, or leave --out out for standard output)`, {
        field: '--out',
      });
    }
    throw new SvcError('invalid_input', `--out: cannot write ${shown(path)} (${code ?? 'error'})`, { field: '--out' });
  }
  try {
    const file = fstatSync(fd);
    // A file another user made (a world-writable one in /tmp, or a pipe) would hand them the export; a device such as
    // /dev/null is the system's, and hands nothing on.
    if (process.getuid && file.uid !== process.getuid() && !file.isCharacterDevice()) {
      throw new SvcError('invalid_input', `--out: ${shown(path)} belongs to another user; svc does not write an export into it`, { field: '--out' });
    }
    // Only a regular file is made private and emptied first: a device or pipe is written as it is (run as root, svc
    // made /dev/full 0600 for every user of the machine, then failed to truncate it: an attacker, 2026-11-27).
    if (file.isFile()) {
      fchmodSync(fd, 0o600);
      ftruncateSync(fd, 0);
    }
    try {
      writeFileSync(fd, text);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const partial = file.isFile() ? '; the file may hold part of the export' : '';
      throw new SvcError('invalid_input', `--out: could not write ${shown(path)} (${code})${partial}`, { field: '--out' });
    }
  } finally {
    closeSync(fd);
  }
}
