import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** A name a server certificate covers: a DNS name (`clinic-pc`, `clinic-pc.praxis.lan`) or an IP address. */
export interface TlsName {
  kind: 'dns' | 'ip';
  /** Lower case, IDNs in their ASCII (`xn--`) form, IPv6 compressed (`fe80::1`). */
  value: string;
}

/** The names every certificate of `tls init` covers besides those given: this PC as its own programs reach it. */
export const LOOPBACK_NAMES: readonly TlsName[] = [
  { kind: 'dns', value: 'localhost' },
  { kind: 'ip', value: '127.0.0.1' },
  { kind: 'ip', value: '::1' },
];

/** One label of a host name (RFC 1123): letters, digits and inner hyphens, 1 to 63 characters. */
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** An IP address in the form Node prints it (`::1`, `fe80::1`), taken apart and put together by the URL parser. */
function canonicalIp(text: string): string {
  return isIP(text) === 6 ? new URL(`http://[${text}]/`).hostname.slice(1, -1) : text;
}

/**
 * A `--name` of `tls init` as the certificate will carry it, or undefined with `reason` set: an
 * IP literal (IPv6 with or without brackets) or a host name of RFC 1123 labels (a trailing dot
 * dropped; an international name turned into its `xn--` form, which is what a certificate holds).
 * No wildcards: the clinic names its PCs, and a wildcard certificate would cover names it never meant.
 */
export function parseTlsName(text: string): { name?: TlsName; reason?: string } {
  const trimmed = text.trim();
  const unbracketed = /^\[.*\]$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
  if (isIP(unbracketed) !== 0) return { name: { kind: 'ip', value: canonicalIp(unbracketed) } };
  if (trimmed.includes('*')) return { reason: 'expected a host name or an IP address; wildcards are not issued' };
  const ascii = domainToASCII(trimmed.replace(/\.$/, ''));
  if (ascii === '' || ascii.length > 253 || !ascii.split('.').every((label) => LABEL.test(label))) {
    return { reason: 'expected a host name (letters, digits, hyphens and dots, e.g. clinic-pc.praxis.lan) or an IP address' };
  }
  // All digits and dots is an IPv4 address mistyped (`192.168.1`), not a name.
  if (/^[0-9.]+$/.test(ascii)) return { reason: 'expected an IP address of four numbers (e.g. 192.168.1.20) or a host name' };
  return { name: { kind: 'dns', value: ascii } };
}

/** The names given followed by LOOPBACK_NAMES, each once (an IP written two ways is one). */
export function certificateNames(given: readonly TlsName[]): TlsName[] {
  const seen = new Set<string>();
  return [...given, ...LOOPBACK_NAMES].filter((name) => {
    const key = `${name.kind}:${name.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
