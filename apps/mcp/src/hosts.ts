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

/** An http(s) origin serialized as a browser sends it (lowercase host, default port dropped), or undefined. */
function serializedOrigin(value: string): string | undefined {
  if (value.trim() === 'null') return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** What a refusal needs to know of a request: its Host and Origin headers, its URL, and X-Forwarded-Proto. */
export interface AddressedRequest {
  host: string | null | undefined;
  origin: string | null | undefined;
  /** The URL the server read the request at: its scheme is the connection's (http for `svc serve http`). */
  url: string;
  /** X-Forwarded-Proto: the scheme a TLS-terminating proxy in front was addressed with. */
  forwardedProto: string | null | undefined;
}

/**
 * The origin the browser addressed: the Host as it sent it, with the scheme a proxy in front reports
 * (X-Forwarded-Proto, its first value) or else the connection's. A page cannot set X-Forwarded-Proto on a
 * request to another site without a CORS preflight, which svc never grants, so trusting it lends a page nothing.
 */
function addressedOrigin(request: Pick<AddressedRequest, 'host' | 'url' | 'forwardedProto'>): string | undefined {
  if (!request.host) return undefined;
  const proto = request.forwardedProto?.split(',', 1)[0]?.trim().toLowerCase();
  let scheme = proto === 'http' || proto === 'https' ? proto : undefined;
  if (!scheme) {
    try {
      scheme = new URL(request.url).protocol.slice(0, -1);
    } catch {
      return undefined;
    }
  }
  return serializedOrigin(`${scheme}://${request.host}`);
}

/** Whether `origin` (an Origin header) is the very origin the request was addressed to. */
export function isAddressedOrigin(origin: string, request: Pick<AddressedRequest, 'host' | 'url' | 'forwardedProto'>): boolean {
  const own = addressedOrigin(request);
  return own !== undefined && serializedOrigin(origin) === own;
}

/**
 * Why a request must be refused before any route runs, or undefined: the Host must be one of ours (DNS
 * rebinding points a stranger's name at 127.0.0.1), and an Origin, when a browser sends one, must be the very
 * origin the request was addressed to (docs/decisions/0043): scheme, host and port. Another port of an allowed
 * name is another site (any other local app, http://localhost:3000), and so is another allowed name or scheme.
 * An `Origin: null` (sandboxed frames, file: pages) is refused too.
 */
export function hostRefusal(request: AddressedRequest, allowed: readonly string[]): { field: 'host' | 'origin'; message: string } | undefined {
  const hosts = allowed.length > 0 ? allowed : LOCAL_HOSTS;
  const { host, origin } = request;
  if (!host || !hostAllowed(host, hosts)) {
    return { field: 'host', message: `Host ${host || '(none)'} is not allowed; set SVC_ALLOWED_HOSTS to serve under another name` };
  }
  if (origin !== null && origin !== undefined) {
    if (!isAddressedOrigin(origin, request)) {
      const own = addressedOrigin(request);
      return {
        field: 'origin',
        message:
          `Origin ${origin} is not this server's own origin (${own ?? 'unknown'}): a page of another site, or another port ` +
          'of this machine, may not call svc (behind a TLS proxy, have it send X-Forwarded-Proto)',
      };
    }
  }
  return undefined;
}
