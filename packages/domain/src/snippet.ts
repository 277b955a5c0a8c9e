/**
 * The marks the store asks ts_headline to put around each matched word of a search snippet. Control
 * characters, stripped from the body before ts_headline sees it, so a body's own asterisks can never pass for
 * a match (with `**` as the marks, a body's `**bold**` word read exactly like a matched one).
 */
export const MATCH_START = '\u0002';
export const MATCH_STOP = '\u0003';

/** A backslash is doubled only where it would otherwise escape what follows it. */
const ESCAPABLE = new Set(['\\', '*', MATCH_START, MATCH_STOP]);

/**
 * A snippet as svc_item_search answers it, from the store's marked one: markdown where `**word**` marks a match,
 * every asterisk of the body is `\*`, and a backslash of the body before a backslash, an asterisk or a mark is
 * `\\`. Everything else is as the body wrote it, so a snippet without asterisks reads as before.
 */
export function snippetMarkdown(marked: string): string {
  let out = '';
  for (let i = 0; i < marked.length; i++) {
    const c = marked[i] as string;
    if (c === MATCH_START || c === MATCH_STOP) out += '**';
    else if (c === '*') out += '\\*';
    else if (c === '\\' && ESCAPABLE.has(marked[i + 1] ?? '')) out += '\\\\';
    else out += c;
  }
  return out;
}

export interface SnippetPart {
  text: string;
  match: boolean;
}

/**
 * A snippet of svc_item_search read back: its text, with the runs `**…**` marked as matches and the escapes
 * `\*` and `\\` undone. A `**` left open at the end is text.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  const push = (text: string, match: boolean) => {
    const last = parts[parts.length - 1];
    if (text === '') return;
    if (!match && last && !last.match) last.text += text;
    else parts.push({ text, match });
  };
  let run = '';
  let inMatch = false;
  for (let i = 0; i < snippet.length; i++) {
    const c = snippet[i] as string;
    const next = snippet[i + 1];
    if (c === '\\' && (next === '\\' || next === '*')) {
      run += next;
      i++;
    } else if (c === '*' && next === '*') {
      push(run, inMatch);
      run = '';
      inMatch = !inMatch;
      i++;
    } else {
      run += c;
    }
  }
  push(inMatch ? `**${run}` : run, false);
  return parts;
}
