/**
 * Host names, addresses and web origins as the network checks compare them (clinic-api-1.2.md,
 * "Network"): read with the URL parser, as a browser reads them, so that case, a default port and
 * IPv6's spellings do not matter. No Node module is loaded here: serve's option parsers use these
 * while the command tree is built, which every desk command pays for.
 */

/** The names every server answers to: its own PC, whatever `--host` says. */
export const OWN_PC_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** `--host` values that listen on every interface: no one name is the one clients use. */
const WILDCARD_ADDRESSES: ReadonlySet<string> = new Set(['0.0.0.0', '::', '[::]']);

/** Whether the `--host` address listens on every interface (`0.0.0.0`, `::`, and IPv6's other spellings of it). */
export function isWildcardAddress(host: string): boolean {
  return WILDCARD_ADDRESSES.has(host) || normalizeHostName(host) === '[::]';
}

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

/** A `--host` or `--allowed-host` value as a host name (`::1` → `[::1]`), or undefined when it is none or has a port. */
export function normalizeHostName(name: string): string | undefined {
  // An IPv6 address is the only host with a colon and no brackets.
  const host = name.includes(':') && !name.startsWith('[') ? `[${name}]` : name;
  const normalized = hostNameOf(host);
  // A port is not part of the name: `--allowed-host clinic.local:8080` is a mistake, not a narrower rule.
  return normalized !== undefined && new URL(`http://${host}`).port === '' ? normalized : undefined;
}

/**
 * An origin as browsers send it in `Origin` (`https://portal.example:8443`: scheme, host, and a
 * port unless it is the scheme's default), or undefined when it is no http(s) origin (a path, a
 * query, user info or a wildcard is refused, not ignored).
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
