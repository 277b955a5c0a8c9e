import { parseHost } from '@svc/service';

/** Host names the HTTP server accepts when SVC_ALLOWED_HOSTS is not set: this machine only. */
const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** An entry without a port allows the host on any port; with one, only that port. */
function hostAllowed(value: string, allowed: readonly string[]): boolean {
  const given = parseHost(value);
  if (!given) return false;
  return allowed.some((entry) => {
    const e = parseHost(entry);
    return e !== undefined && e.host === given.host && (e.port === undefined || e.port === given.port);
  });
}

/** The origin's `host[:port]` as a browser sends it (default ports dropped), or undefined for `null` and junk. */
function originHost(origin: string): string | undefined {
  if (origin.trim() === 'null') return undefined;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.host;
  } catch {
    return undefined;
  }
}

/**
 * Why a request must be refused before any route runs, or undefined: the Host must be one of ours (DNS
 * rebinding points a stranger's name at 127.0.0.1) and so must the Origin when a browser sends one (another
 * site's page). An `Origin: null` (sandboxed frames, file: pages) is refused too.
 */
export function hostRefusal(
  host: string | null | undefined,
  origin: string | null | undefined,
  allowed: readonly string[],
): { field: 'host' | 'origin'; message: string } | undefined {
  const hosts = allowed.length > 0 ? allowed : LOCAL_HOSTS;
  if (!host || !hostAllowed(host, hosts)) {
    return { field: 'host', message: `Host ${host || '(none)'} is not allowed; set SVC_ALLOWED_HOSTS to serve under another name` };
  }
  if (origin !== null && origin !== undefined) {
    const from = originHost(origin);
    if (from === undefined || !hostAllowed(from, hosts)) return { field: 'origin', message: `Origin ${origin} is not allowed` };
  }
  return undefined;
}
