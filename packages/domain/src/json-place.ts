/**
 * Where JSON.parse gave up, as line and column, without a character of the text: the text may be anyone's (a file
 * named by --schema, a request's body), and a message or a log must not repeat it. V8 names a position for some
 * errors and quotes the text for others, so where it names none the place is found by parsing prefixes: a prefix
 * ending before the fault is merely incomplete, one reaching past it is wrong (about 20 parses). Texts longer than
 * `searchUpTo` are not searched (each parse costs as much as the text is long): the answer then says no place.
 */
export function jsonErrorPlace(text: string, message: string, searchUpTo = Number.POSITIVE_INFINITY): string {
  const incomplete = (why: string, length: number): boolean => {
    if (/Unexpected end of JSON input|Unterminated string/.test(why)) return true;
    const at = /at position (\d+)/.exec(why);
    return at !== null && Number(at[1]) >= length;
  };
  if (incomplete(message, text.length)) return 'it ends before the value is complete';
  const named = /at position (\d+)/.exec(message);
  let low: number;
  if (named) low = Number(named[1]) + 1;
  else if (text.length > searchUpTo) return 'somewhere in its first or only value';
  else {
    const wrong = (length: number): boolean => {
      try {
        JSON.parse(text.slice(0, length));
        return false;
      } catch (error) {
        return !incomplete((error as Error).message, length);
      }
    };
    low = 1;
    let high = text.length;
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      if (wrong(mid)) high = mid;
      else low = mid + 1;
    }
  }
  const before = text.slice(0, low - 1);
  return `at line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
}
