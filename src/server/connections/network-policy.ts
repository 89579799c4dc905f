import { networkInterfaces } from 'node:os';
import { hostNameOf, isWildcardAddress, normalizeHostName, normalizeOrigin, OWN_PC_HOST_NAMES } from '../../network-names.js';

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
   * the origin as browsers write it for an `--allowed-origin` (CORS headers), `refused` for any other.
   */
  originOf(origin: string, ownScheme: string, hostHeader: string): 'same' | 'refused' | { allowed: string };
}

/** How many Host values' verdicts are kept at once, and the longest value kept (a name and a port). */
const MAX_REMEMBERED_HOSTS = 256;
const MAX_REMEMBERED_HOST_LENGTH = 300;

/** The addresses of this PC's network interfaces, as `Host` names them (IPv6 in brackets). */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .flatMap(({ address }) => normalizeHostName(address.split('%')[0]!) ?? []);
}

/**
 * The policy of a server listening on `listenHost` with the names and origins IT allowed (serve's
 * option parsers refuse values that are none). A wildcard `listenHost` admits the addresses this
 * PC's interfaces have at start-up, since those are what a LAN client types (an IP address cannot
 * be rebound by a web page).
 */
export function networkPolicy(
  listenHost: string,
  allowedHosts: readonly string[] = [],
  allowedOrigins: readonly string[] = [],
): NetworkPolicy {
  const ownNames = isWildcardAddress(listenHost) ? interfaceAddresses() : [normalizeHostName(listenHost) ?? listenHost];
  const hosts = new Set([...OWN_PC_HOST_NAMES, ...ownNames, ...allowedHosts.flatMap((name) => normalizeHostName(name) ?? [])]);
  const origins = new Set(allowedOrigins.flatMap((origin) => normalizeOrigin(origin) ?? []));
  // The verdict of each Host value seen: a server is named the same few ways all day, and
  // parsing a URL per request was the checks' largest cost (about 2 µs of a GET /doctors' 160).
  const verdicts = new Map<string, boolean>();
  return {
    allowsHost(hostHeader) {
      if (hostHeader === undefined) return false;
      const known = verdicts.get(hostHeader);
      if (known !== undefined) return known;
      const name = hostNameOf(hostHeader);
      const verdict = name !== undefined && hosts.has(name);
      // Bounded whatever clients send: a name is at most 253 characters, and the map is emptied when full.
      if (hostHeader.length <= MAX_REMEMBERED_HOST_LENGTH) {
        if (verdicts.size >= MAX_REMEMBERED_HOSTS) verdicts.clear();
        verdicts.set(hostHeader, verdict);
      }
      return verdict;
    },
    originOf(origin, ownScheme, hostHeader) {
      // As browsers send it (the page's URL, as typed into Host too), compared without parsing.
      if (origin === `${ownScheme}://${hostHeader}`) return 'same';
      const sent = normalizeOrigin(origin);
      if (sent === undefined) return 'refused';
      if (sent === normalizeOrigin(`${ownScheme}://${hostHeader}`)) return 'same';
      return origins.has(sent) ? { allowed: sent } : 'refused';
    },
  };
}
