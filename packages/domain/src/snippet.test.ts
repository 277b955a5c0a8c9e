import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MATCH_START, MATCH_STOP, markSnippet, SNIPPET_SOURCE_CHARS, type SnippetPart, snippetMarkdown, snippetParts } from './snippet.js';

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

describe('markSnippet', () => {
  const words = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `w${from + i}`);
  const marked = (snippet: string) => [...snippet.matchAll(new RegExp(`${MATCH_START}(.*?)${MATCH_STOP}`, 'g'))].map((m) => m[1]);

  it('marks every word whose lexeme the query holds, stemmed as the index stems it', () => {
    const out = markSnippet('Keep **Redis** for sessions; the sessions expire', new Set(['session', 'redi']));
    expect(out).toBe(`Keep **${mark('Redis')}** for ${mark('sessions')}; the ${mark('sessions')} expire`);
  });

  it('finds a word by its first two letters, and the same words in a body whose lowercasing changes its length', () => {
    // Only words holding a lexeme's first two letters are read; Snowball's dying → die changes the second.
    expect(marked(markSnippet('Dying services, a dead service, SERVICE-level', new Set(['die', 'servic'])))).toEqual(['Dying', 'services', 'service', 'SERVICE']);
    // İ lowercases to two code units: the body's offsets no longer match its lowercased text, and each word is read alone.
    expect(marked(markSnippet('İstanbul services: dying İstanbul', new Set(['die', 'servic', 'i̇stanbul'])))).toEqual(['İstanbul', 'services', 'dying', 'İstanbul']);
    expect(marked(markSnippet(`${'İ'.repeat(12)} a services`, new Set(['servic'])))).toEqual(['services']);
    // Σ lowercases by its neighbours, which the whole text's lowercasing reads across a word's edge (U+FEFF is a space to \S+).
    expect(marked(markSnippet('Α\uFEFFΣ1 services', new Set(['σ1', 'servic'])))).toEqual(['Σ1', 'services']);
  });

  it('splits words exactly where \\s does: at every white space and line terminator, and nowhere else', () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      // A lone surrogate, a mark or a letter would change the words themselves; only separators are tried.
      if (/[\p{L}\p{N}\p{Cs}]/u.test(ch) || ch === MATCH_START || ch === MATCH_STOP) continue;
      // Nothing matches: the snippet is the first twelve words, or, the separator not a space, the one word whole.
      const body = words(0, 20).join(ch);
      expect(markSnippet(body, new Set(['zebra'])), `U+${c.toString(16)}`).toBe(/\s/.test(ch) ? words(0, 12).join(ch) : body);
    }
  });

  it('gives the first words when nothing matches, and the body up to its end when it is short', () => {
    expect(markSnippet(words(0, 50).join(' '), new Set(['zebra']))).toBe(words(0, 12).join(' '));
    expect(markSnippet('a short  body\nof words', new Set(['nothing']))).toBe('a short  body\nof words');
    expect(markSnippet('', new Set(['x']))).toBe('');
  });

  it('centres thirty words on the matches, and prefers the window holding the most distinct terms', () => {
    const body = [...words(0, 40), 'zebra', ...words(41, 100)].join(' ');
    const out = markSnippet(body, new Set(['zebra']));
    expect(out.split(' ')).toHaveLength(30);
    expect(out.startsWith('w26 ')).toBe(true);
    expect(marked(out)).toEqual(['zebra']);
    // Two zebras early, a zebra and a lion together later: the later window holds two distinct terms.
    const both = ['zebra', 'zebra', ...words(2, 60), 'zebra', 'lion', ...words(62, 120)].join(' ');
    expect(marked(markSnippet(both, new Set(['zebra', 'lion'])))).toEqual(['zebra', 'lion']);
    // At the end of the body, the window takes the words before.
    const end = [...words(0, 60), 'zebra'].join(' ');
    expect(markSnippet(end, new Set(['zebra'])).split(' ')).toHaveLength(30);
  });

  it("strips the body's own marks and reads only its first characters", () => {
    expect(markSnippet(`a ${MATCH_START}fake${MATCH_STOP} zebra`, new Set(['zebra']))).toBe(`a fake ${mark('zebra')}`);
    const long = `${'word '.repeat(SNIPPET_SOURCE_CHARS / 5)}zebra`;
    expect(marked(markSnippet(long, new Set(['zebra'])))).toEqual([]);
  });

  it('marks an identifier whole when the query holds it whole, else the parts asked for', () => {
    const body = 'we call svc_item_search via pg.Pool at https://example.com/v1/orders (see /v1/orders).';
    expect(marked(markSnippet(body, new Set(['svc_item_search', 'pg.pool'])))).toEqual(['svc_item_search', 'pg.Pool']);
    expect(marked(markSnippet(body, new Set(['item', 'order'])))).toEqual(['item', 'orders', 'orders']);
    // The URL's host and path are runs of its parts (migration 0016): touching marks merge.
    expect(marked(markSnippet(body, new Set(['example.com', '/v1/orders'])))).toEqual(['example.com/v1/orders', '/v1/orders']);
    expect(marked(markSnippet(body, new Set(['/v1/orders'])))).toEqual(['/v1/orders', '/v1/orders']);
  });
});

describe('markSnippet on hostile and unusual bodies (outsiders, 2026-11-26)', () => {
  const marked = (snippet: string) => [...snippet.matchAll(new RegExp(`${MATCH_START}(.*?)${MATCH_STOP}`, 'g'))].map((m) => m[1]);

  it('reads a long run of punctuation or emoji in one pass (its edges were trimmed by a quadratic expression)', () => {
    // 200 such bodies took 20 s of one thread before (75 ms each for the emoji run); the work is now linear.
    const bodies = [`a${'😀'.repeat(1998)}a`, `a${'!'.repeat(3997)}a`];
    const started = process.hrtime.bigint();
    for (let i = 0; i < 60; i++) for (const body of bodies) markSnippet(body, new Set(['quux', 'a']));
    // A bound far above linear time (about 0.1 s here) and far below the quadratic (about 5 s): a guard, not a target.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2_000);
    expect(marked(markSnippet(`quux ${'!'.repeat(3990)}`, new Set(['quux'])))).toEqual(['quux']);
  });

  it('keeps a snippet short when the body has long runs without spaces (JSON, CSV, paths)', () => {
    const json = JSON.stringify(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [i === 150 ? 'timeout' : `key${i}`, i])));
    const out = markSnippet(json, new Set(['timeout']));
    expect(out.length).toBeLessThanOrEqual(320 + 2);
    expect(marked(out)).toEqual(['timeout']);
    const csv = Array.from({ length: 600 }, (_, i) => `word${i}`).join(',');
    expect(markSnippet(csv, new Set(['nothing'])).length).toBeLessThanOrEqual(320);
  });

  it('never ends or starts a snippet with half of a pair of surrogates', () => {
    const body = `${'b '.repeat(1995)}plugh ccc😀 tail`;
    const out = markSnippet(body, new Set(['plugh']));
    expect(out).toContain(`${MATCH_START}plugh${MATCH_STOP}`);
    expect(/[\uD800-\uDBFF]$/.test(out)).toBe(false);
    const emoji = `${'😀'.repeat(400)} zebra ${'😀'.repeat(400)}`;
    const around = markSnippet(emoji.replaceAll(' ', ''), new Set(['zebra']));
    expect(/^[\uDC00-\uDFFF]/.test(around) || /[\uD800-\uDBFF]$/.test(around)).toBe(false);
  });

  it('marks a version by its other spelling, as the index holds it (migration 0018)', () => {
    const body = 'Pinned v0.8.1 (was 0.7.9), node@v20.1.0, dev0.8.1 and 1.2 seconds.';
    expect(marked(markSnippet(body, new Set(['0.8.1'])))).toEqual(['v0.8.1']);
    expect(marked(markSnippet(body, new Set(['v0.7.9', '20.1.0'])))).toEqual(['0.7.9', 'v20.1.0']);
    expect(markSnippet(body, new Set(['v1.2']))).toBe(body);
    // Either spelling in a run the parser reads otherwise; none where the index holds none (an attacker, 2026-11-27).
    // `²` is no decimal digit, for PostgreSQL's [[:alnum:]] as here: #v0.1²2 holds 0.1.
    const tags = 'Tags v4.4.4-beta and release-v0.8.2, not .v1.2.3, but #v0.1²2.';
    expect(marked(markSnippet(tags, new Set(['v4.4.4', '0.8.2'])))).toEqual(['v4.4.4', 'v0.8.2']);
    expect(marked(markSnippet(tags, new Set(['1.2.3', '0.1'])))).toEqual(['v0.1']);
    // A version that is also a run of a path's parts is marked once, its text kept (a reviewer: it was printed twice).
    expect(markSnippet('see /v1.2.3/x and src/v2.0.1/lib', new Set(['v1.2.3', 'v2.0.1']))).toBe(
      `see /${MATCH_START}v1.2.3${MATCH_STOP}/x and src/${MATCH_START}v2.0.1${MATCH_STOP}/lib`,
    );
  });

  it('marks an underscore identifier inside a dotted name or a path, as the index holds it whole', () => {
    expect(marked(markSnippet('we set config.max_pool_size to 20', new Set(['max_pool_size'])))).toEqual(['max_pool_size']);
    expect(marked(markSnippet('see packages/store/src/search_items.ts', new Set(['search_items'])))).toEqual(['search_items']);
    expect(marked(markSnippet('self.is_head is true', new Set(['is_head'])))).toEqual(['is_head']);
  });

  it('marks no stop word, even where its stem is the query lexeme', () => {
    expect(marked(markSnippet('we owned it; our own data', new Set(['own'])))).toEqual(['owned']);
    expect(marked(markSnippet('we check in on the check-ins in the morning', new Set(['check', 'check-in', 'in'])))).toEqual(['check', 'check-ins']);
  });

  it('marks a lexeme held only inside compound words asked for only in a word holding one of them', () => {
    const within = new Map([
      ['db', [['db', '-01']]],
      ['-01', [['db', '-01']]],
    ]);
    expect(marked(markSnippet('db-01 and db-02 and db alone', new Set(['db', '-01']), within))).toEqual(['db-01']);
    expect(marked(markSnippet('(DB-01) is up', new Set(['db', '-01']), within))).toEqual(['DB-01']);
    expect(marked(markSnippet('db-01 and db-02 and db alone', new Set(['db', '-01'])))).toEqual(['db-01', 'db', 'db']);
    // Held by its joined lexeme, whatever the stem (`self-hosting` for `self-hosted`).
    const hosted = ['self-host', 'self', 'host'];
    const selfHosted = new Map(hosted.map((l) => [l, [hosted]]));
    expect(marked(markSnippet('self-hosting runners, not hosted ones', new Set(hosted), selfHosted))).toEqual(['self-hosting']);
  });
});
