import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Which `Host` and `Origin` values the server answers (clinic-api-1.2.md, "Network"), decided
 * once at start-up from `--host`, `--allowed-host` and `--allowed-origin`. A web page that
 * rebinds its own DNS name to 127.0.0.1 still sends that name as `Host`, and a page of another
 * site sends its own `Origin`: both are refused before anything else looks at the request.
 */
export interface NetworkPolicy {
  /** Whether `Host` (its port aside) names this server. */
  allowsHost(hostHeader: string | undefined): boolean;
  /**
   * What an `Origin` header means here: `same` for the request's own origin (no CORS headers),
   * `allowed` for an `--allowed-origin` (CORS headers), `refused` for any other.
   */
  originOf(origin: string, ownScheme: string, hostHeader: string): 'same' | 'allowed' | 'refused';
}

/** The names every server answers to: its own PC, whatever `--host` says. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Addresses that mean "every interface": the names a LAN client uses are then the PC's own addresses. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * `host[:port]` as a URL's host name (lower case, IPv6 in brackets and compressed, IDNA
 * applied), or undefined for anything that is not just a host and a port: user info, a path,
 * a query or a fragment would let `evil.example@localhost` pass for localhost.
 */
export function hostNameOf(hostAndPort: string): string | undefined {
  if (hostAndPort === '' || /[\s/\\?#@]/.test(hostAndPort)) return undefined;
  try {
    const url = new URL(`http://${hostAndPort}`);
    return url.hostname === '' ? undefined : url.hostname;
  } catch {
    return undefined;
  }
}

/** A `--host` or `--allowed-host` value as a host name (`::1` → `[::1]`), or undefined when it is none. */
export function normalizeHostName(name: string): string | undefined {
  const host = isIP(name) === 6 ? `[${name}]` : name;
  const normalized = hostNameOf(host);
  // A port is not part of the name: `--allowed-host clinic.local:8080` is a mistake, not a narrower rule.
  return normalized !== undefined && new URL(`http://${host}`).port === '' ? normalized : undefined;
}

/**
 * An `--allowed-origin` value as browsers send it in `Origin` (`https://portal.example:8443`:
 * scheme, host, and a port unless it is the scheme's default), or undefined when it is no
 * http(s) origin (a path, a query, user info or a wildcard is refused, not ignored).
 */
export function normalizeOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const bare = url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  if (!['http:', 'https:'].includes(url.protocol) || !bare || hostNameOf(url.host) === undefined) return undefined;
  return url.origin;
}

/** The addresses of this PC's network interfaces, as `Host` names them (IPv6 in brackets). */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .map(({ address, family }) => (family === 'IPv6' ? `[${address.split('%')[0]}]` : address))
    .flatMap((name) => hostNameOf(name) ?? []);
}

/**
 * The policy of a server listening on `listenHost` with the names and origins IT allowed. The
 * values are expected normalised (normalizeHostName, normalizeOrigin: serve's option parsers);
 * a wildcard `listenHost` admits the addresses this PC's interfaces have at start-up, since those
 * are what a LAN client types (an IP address cannot be rebound by a web page).
 */
export function networkPolicy(
  listenHost: string,
  allowedHosts: readonly string[] = [],
  allowedOrigins: readonly string[] = [],
): NetworkPolicy {
  const ownNames = WILDCARD_HOSTS.has(listenHost) ? interfaceAddresses() : [normalizeHostName(listenHost) ?? listenHost];
  const hosts = new Set([...LOOPBACK_NAMES, ...ownNames, ...allowedHosts.map((name) => normalizeHostName(name) ?? name)]);
  const origins = new Set(allowedOrigins.map((origin) => normalizeOrigin(origin) ?? origin));
  return {
    allowsHost(hostHeader) {
      const name = hostHeader === undefined ? undefined : hostNameOf(hostHeader);
      return name !== undefined && hosts.has(name);
    },
    originOf(origin, ownScheme, hostHeader) {
      const sent = normalizeOrigin(origin);
      if (sent === undefined) return 'refused';
      if (sent === normalizeOrigin(`${ownScheme}://${hostHeader}`)) return 'same';
      return origins.has(sent) ? 'allowed' : 'refused';
    },
  };
}
