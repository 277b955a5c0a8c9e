import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isAddressedOrigin } from '@svc/mcp';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

/** Where the web pages' forms post: under /p/ (a project's pages) and /inbox/ (the shared inbox's captures). */
export const WEB_FORM_PREFIXES = ['/p/', '/inbox/'] as const;

/**
 * The one exception to "a write needs Content-Type: application/json" (the HTTP trust layer): a browser form
 * POST to a web page's action. Those routes refuse anything without the same-origin check and the form token,
 * so the exception buys a cross-site page nothing. REST and MCP paths never match.
 */
export function isWebFormPost(method: string, path: string, contentType: string | undefined): boolean {
  return (
    method === 'POST' &&
    WEB_FORM_PREFIXES.some((prefix) => path.startsWith(prefix)) &&
    contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded'
  );
}

/** No inline script or style, nothing from elsewhere, forms only back here, never framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function pageHeaders(c: Context): void {
  c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'same-origin');
  c.header('X-Frame-Options', 'DENY');
  c.header('Cache-Control', 'no-store');
}

const COOKIE = 'svc_csrf';
export const TOKEN_FIELD = '_csrf';

/** The form token (double submit): a random value in a SameSite=Strict, HttpOnly cookie, repeated in each form. */
export function formToken(c: Context): string {
  const existing = getCookie(c, COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(c, COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
  return token;
}

/** Whether a posted form carries the token of this browser's cookie. */
export function tokenMatches(c: Context, given: unknown): boolean {
  const cookie = getCookie(c, COOKIE);
  if (!cookie || typeof given !== 'string' || given.length !== cookie.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(given));
}

/**
 * Same origin for hono's csrf middleware: the Origin is the very origin the request was addressed to, scheme,
 * host and port (the Host, with the scheme X-Forwarded-Proto reports behind a TLS proxy, else the connection's).
 * Cookies are not kept apart by port, so a page of another local app (http://localhost:3000) can hold the form
 * token: its origin is what tells it apart (docs/decisions/0043).
 */
export function sameOrigin(origin: string, c: Context): boolean {
  const host = c.req.header('host') ?? new URL(c.req.url).host;
  return isAddressedOrigin(origin, { host, url: c.req.url, forwardedProto: c.req.header('x-forwarded-proto') });
}
