import { invalidInput } from './errors.js';

/** The longest source_url svc stores (the tools' schemas say the same). */
export const MAX_SOURCE_URL = 2048;

/** Whitespace, control characters and a backslash: a URL parser drops or reinterprets them, so what reads as one address goes to another. */
const MISREAD = /[\s\p{Cc}\\]/u;

/**
 * A source is a page to go back to: an absolute http or https URL, scheme and `//` written out, with a host,
 * and nothing a URL parser would drop or reinterpret, so the stored text is the address it reads as.
 * `javascript:`, `data:`, `file:` and `mailto:` are not sources (docs/decisions/0041).
 */
export function isSourceUrl(value: string): boolean {
  if (value.length > MAX_SOURCE_URL || !/^https?:\/\//i.test(value) || MISREAD.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/** Refuse a source_url that is not an absolute http(s) URL, naming `field`; `why` says where the value came from. */
export function checkSourceUrl(value: string, field: string, why = ''): void {
  if (isSourceUrl(value)) return;
  const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
  throw invalidInput(
    field,
    `'${shown}' is not an absolute http(s) URL; a source is a page such as https://example.com/page (javascript:, data:, file:, mailto: and relative URLs are not accepted)${why}`,
  );
}
