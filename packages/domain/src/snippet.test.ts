import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MATCH_START, MATCH_STOP, type SnippetPart, snippetMarkdown, snippetParts } from './snippet.js';

const mark = (word: string) => `${MATCH_START}${word}${MATCH_STOP}`;

describe('snippetMarkdown', () => {
  it('writes each match as **word** and escapes the body’s own asterisks, so its **bold** is no match', () => {
    expect(snippetMarkdown(`we run ${mark('postgres')}, **all of it**`)).toBe('we run **postgres**, \\*\\*all of it\\*\\*');
    expect(snippetMarkdown(`the **${mark('cache')}** is warm`)).toBe('the \\*\\***cache**\\*\\* is warm');
    expect(snippetMarkdown('a*b')).toBe('a\\*b');
  });

  it('doubles a backslash only where it would escape what follows, and leaves text without either as it was', () => {
    expect(snippetMarkdown('C:\\temp\\x and \\d+')).toBe('C:\\temp\\x and \\d+');
    expect(snippetMarkdown('\\*')).toBe('\\\\\\*');
    expect(snippetMarkdown('a\\\\b')).toBe('a\\\\\\b');
    expect(snippetMarkdown(`dir\\${mark('cache')}`)).toBe('dir\\\\**cache**');
    expect(snippetMarkdown(`plain text, ${mark('one')} ${mark('two')} (x_y) #3`)).toBe('plain text, **one** **two** (x_y) #3');
  });
});

describe('snippetParts', () => {
  it('reads matches and literal text back', () => {
    expect(snippetParts('we run **postgres**, \\*\\*all of it\\*\\*')).toEqual([
      { text: 'we run ', match: false },
      { text: 'postgres', match: true },
      { text: ', **all of it**', match: false },
    ]);
    expect(snippetParts('**one** **two**')).toEqual([
      { text: 'one', match: true },
      { text: ' ', match: false },
      { text: 'two', match: true },
    ]);
  });

  it('keeps a lone asterisk, an unknown escape and a mark left open at the end as text', () => {
    expect(snippetParts('a * b \\d **open')).toEqual([{ text: 'a * b \\d **open', match: false }]);
    expect(snippetParts('')).toEqual([]);
  });

  it('gives back exactly the matches and the text of any marked snippet (generated)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', ' ', '*', '\\', '_', '#') });
    const segments = fc.array(
      fc.oneof(
        text.map((t) => ({ text: t, match: false })),
        text.filter((t) => t.length > 0).map((t) => ({ text: t, match: true })),
      ),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(segments, (segs) => {
        const marked = segs.map((s) => (s.match ? mark(s.text) : s.text)).join('');
        const expected: SnippetPart[] = [];
        for (const s of segs) {
          const last = expected[expected.length - 1];
          if (s.text === '') continue;
          if (!s.match && last && !last.match) last.text += s.text;
          else expected.push({ ...s });
        }
        expect(snippetParts(snippetMarkdown(marked))).toEqual(expected);
      }),
    );
  });
});
