import { describe, expect, it } from 'vitest';
import { jsonErrorPlace } from './json-place.js';

/** JSON.parse's own message for `text`. */
function why(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parses`);
}

describe('jsonErrorPlace', () => {
  it('names the line and column of the fault, never a character of the text', () => {
    for (const [text, place] of [
      ['{"text": SECRETHASH}', 'at line 1, column 10'],
      ['{"a": 1,\n "SECRETHASH": }', 'at line 2, column 16'],
      ['{"a": 1}}', 'at line 1, column 9'],
      ['[1,2', 'it ends before the value is complete'],
      ['{"a": "SECRETHASH', 'it ends before the value is complete'],
      ['', 'it ends before the value is complete'],
    ] as const) {
      expect(jsonErrorPlace(text, why(text)), text).toBe(place);
    }
  });

  it('does not search a long text for a place its parser did not name', () => {
    const text = `{"a": "${'x'.repeat(100)}", "b": SECRETHASH}`;
    expect(jsonErrorPlace(text, why(text), 64)).toBe('somewhere in its first or only value');
    expect(jsonErrorPlace(text, why(text))).toBe('at line 1, column 116');
  });
});
