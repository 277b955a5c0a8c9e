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

/** Line-by-line rows for a side-by-side view: removed lines beside the added lines that replace them. */
function sideBySide(before: string, after: string): DiffRow[] {
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
  for (const part of diffLines(end(before), end(after))) {
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
