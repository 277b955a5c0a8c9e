import { fstatSync, writeFileSync } from 'node:fs';

/** Results go to stdout (JSON with --json, readable text otherwise); messages and logs go to stderr. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** What main.ts needs to know about the command that ran. */
export interface RunState {
  /** The command was given --json: a refusal is printed as JSON too. */
  json: boolean;
}

/** Ends the command with this exit code after its output was printed (check --fail-on); the message goes to stderr. */
export class ExitCode extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Text for a terminal: control characters other than newline and tab shown as their Unicode pictures (ESC as ␛,
 * BEL as ␇, DEL as ␡) and C1 controls as U+FFFD. Stored text is anyone's who can write over REST or MCP: raw, an
 * escape sequence in a title could hide text, retitle the window or (OSC 52) write the operator's clipboard.
 */
function terminalSafe(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd';
  });
}

/** Whether standard output is a regular file (worked out once). */
let stdoutIsFile: boolean | undefined;

/**
 * Write `text` to standard output whole. To a regular file, writes are repeated until every byte is out: Node's stream
 * writes once and drops what a short write left, so on a full disk `svc export p > file` cut the export at 1 MiB and
 * exited 0 (an attacker, 2026-11-27); a failed write ends the command with `cannot write standard output`. A terminal
 * or pipe goes through process.stdout, whose errors main.ts reports.
 */
export function writeStdout(text: string): void {
  if (stdoutIsFile === undefined) {
    try {
      stdoutIsFile = fstatSync(1).isFile();
    } catch {
      stdoutIsFile = false;
    }
  }
  if (!stdoutIsFile) {
    process.stdout.write(text);
    return;
  }
  try {
    writeFileSync(1, text);
  } catch (error) {
    throw new ExitCode(1, `cannot write standard output (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

export const processIo: Io = {
  out: (text) => writeStdout(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => {
    const safe = terminalSafe(text);
    process.stderr.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  },
};

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value.includes('\n') ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A readable, indented rendering of any result. */
function human(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    return value
      .map((entry) => {
        if (!isPlainObject(entry)) return `${indent}- ${scalar(entry)}`;
        const inner = human(entry, `${indent}  `);
        return `${indent}- ${inner.trimStart()}`;
      })
      .join('\n');
  }
  if (isPlainObject(value)) {
    const lines: string[] = [];
    for (const [key, v] of Object.entries(value)) {
      if (Array.isArray(v) && v.length > 0 && v.some(isPlainObject)) {
        lines.push(`${indent}${key}:`, human(v, `${indent}  `));
      } else if (isPlainObject(v) && Object.keys(v).length > 0) {
        lines.push(`${indent}${key}:`, human(v, `${indent}  `));
      } else {
        lines.push(`${indent}${key}: ${Array.isArray(v) ? (v.length === 0 ? '[]' : v.map(scalar).join(', ')) : scalar(v)}`);
      }
    }
    return lines.join('\n');
  }
  return `${indent}${scalar(value)}`;
}

/** A result: JSON as it is (its strings escape control characters), text made terminalSafe. */
export function print<T>(io: Io, value: T, json: boolean, text?: (value: T) => string): void {
  io.out(json ? JSON.stringify(value, null, 2) : terminalSafe(text ? text(value) : human(value)));
}
