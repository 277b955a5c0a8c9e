// @jsxRuntime automatic
// @jsxImportSource hono/jsx
import { diffLines } from 'diff';

export interface DiffRow {
  left: string | null;
  right: string | null;
  kind: 'same' | 'change';
}

function lines(value: string): string[] {
  const parts = value.split('\n');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/**
 * What a comparison may cost. A line diff costs about (lines of both) × (lines changed) and runs on the server's one
 * thread: two unbounded 35 kB bodies of 6,000 different lines each held every request for 10 s. Past either
 * limit the page says the versions are too long or too different to compare here.
 */
export const DIFF_LIMITS = { lines: 5_000, changedLines: 400 } as const;

/**
 * Line-by-line rows for a side-by-side view: removed lines beside the added lines that replace them; undefined
 * when past DIFF_LIMITS.
 */
function sideBySide(before: string, after: string): DiffRow[] | undefined {
  if (lines(before).length > DIFF_LIMITS.lines || lines(after).length > DIFF_LIMITS.lines) return undefined;
  const rows: DiffRow[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) {
      rows.push({ left: removed[i] ?? null, right: added[i] ?? null, kind: 'change' });
    }
    removed = [];
    added = [];
  };
  // Both end in a newline, so a last line is not a change for lacking one.
  const end = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  const parts = diffLines(end(before), end(after), { maxEditLength: DIFF_LIMITS.changedLines });
  if (parts === undefined) return undefined;
  for (const part of parts) {
    if (part.removed) removed.push(...lines(part.value));
    else if (part.added) added.push(...lines(part.value));
    else {
      flush();
      for (const line of lines(part.value)) rows.push({ left: line, right: line, kind: 'same' });
    }
  }
  flush();
  return rows;
}

function cell(text: string | null, side: 'del' | 'ins', kind: DiffRow['kind']) {
  if (text === null) return <td class="empty" />;
  return <td class={kind === 'change' ? side : undefined}>{text}</td>;
}

/** One field compared between two versions, as a two-column table (text only: nothing is interpreted). */
export function DiffTable(props: { field: string; before: string; after: string; leftLabel: string; rightLabel: string }) {
  const rows = sideBySide(props.before, props.after);
  if (rows === undefined) {
    return (
      <section aria-label={`${props.field} compared`}>
        <h3>
          {props.field} <span class="tag">changed</span>
        </h3>
        <p class="notice">
          Too long or too different to compare line by line here (over {DIFF_LIMITS.lines.toLocaleString('en')} lines, or more than{' '}
          {DIFF_LIMITS.changedLines} lines changed). Open each version to read it whole.
        </p>
      </section>
    );
  }
  const changed = rows.some((r) => r.kind === 'change');
  return (
    <section aria-label={`${props.field} compared`}>
      <h3>
        {props.field} {changed ? <span class="tag">changed</span> : <span class="tag">unchanged</span>}
      </h3>
      <table class="diff">
        <thead>
          <tr>
            <th scope="col">{props.leftLabel}</th>
            <th scope="col">{props.rightLabel}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {cell(row.left, 'del', row.kind)}
              {cell(row.right, 'ins', row.kind)}
            </tr>
          ))}
          {rows.length === 0 ? (
            <tr>
              <td class="empty">(empty)</td>
              <td class="empty">(empty)</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </section>
  );
}
