import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { join } from 'node:path';
import { acquireInstanceLock } from '../../db/instance-lock.js';

/**
 * Where a running `clinic serve` can be reached, kept beside its database (`serve.json`) while it
 * runs, so that `clinic desk pair` on the same PC can print the URL and the CA's fingerprint a new
 * desk PC joins with (interface 1.3.0, "Pairing"). Whether the server still runs is its instance
 * lock's to say, not this file's.
 */
export interface ServedEndpoint {
  host: string;
  port: number;
  tls: boolean;
  /** The DNS names and IP addresses the certificate covers, in its order. */
  names: string[];
  /** SHA-256 of the CA the server presents (the last certificate of its chain), colon hex; null without TLS. */
  ca_sha256: string | null;
}

export const SERVED_ENDPOINT_FILE = 'serve.json';

/** The certificates of a PEM chain, in order. */
export function certificatesOf(pem: Buffer | string): X509Certificate[] {
  const text = pem.toString();
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]));
}

/** This PC's own addresses: 127.0.0.0/8 and ::1, however written (::ffff:127.0.0.1 too). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether `host` names this computer only: localhost, ::1, or an address of 127.0.0.0/8. */
export function isLoopbackName(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  // An address in any of its spellings: Node writes a certificate's IPv6 addresses whole (0:0:…:1).
  if (isIPv4(host)) return LOOPBACK.check(host, 'ipv4');
  return isIPv6(host) && LOOPBACK.check(host, 'ipv6');
}

/**
 * The CA of a served chain, as a desk PC checks it: the certificate marked CA that signed the
 * server's (the first of the chain); undefined when the chain has none (a certificate alone).
 */
export function caOfChain(pem: Buffer | string): X509Certificate | undefined {
  const [leaf, ...rest] = certificatesOf(pem);
  return leaf === undefined ? undefined : rest.find((certificate) => certificate.ca && leaf.verify(certificate.publicKey));
}

/** Records where the server of `dataDir` listens (replaced whole: a reader never sees half of it). */
export function recordServedEndpoint(dataDir: string, endpoint: ServedEndpoint): void {
  const path = join(dataDir, SERVED_ENDPOINT_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(endpoint, null, 2)}\n`, { mode: 0o644 });
  renameSync(`${path}.tmp`, path);
}

/** Forgets it, as the server stops. */
export function forgetServedEndpoint(dataDir: string): void {
  rmSync(join(dataDir, SERVED_ENDPOINT_FILE), { force: true });
}

/** What the last server of `dataDir` recorded, if anything. */
export function readServedEndpoint(dataDir: string): ServedEndpoint | undefined {
  const path = join(dataDir, SERVED_ENDPOINT_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ServedEndpoint;
  } catch {
    return undefined;
  }
}

/**
 * The URL a desk PC reaches the server by: its certificate's first DNS name but `localhost`, else
 * its first address that is not loopback, and its port; undefined when it serves no such name.
 */
export function deskUrlOf(endpoint: ServedEndpoint): string | undefined {
  const name =
    endpoint.names.find((entry) => !/^[\d.]+$|:/.test(entry) && entry.toLowerCase() !== 'localhost') ??
    endpoint.names.find((entry) => !isLoopbackName(entry));
  if (name === undefined) return undefined;
  return `https://${name.includes(':') ? `[${name}]` : name}:${endpoint.port}`;
}

/** Where the server of `dataDir` listens, while one runs (it holds the data directory's instance lock); else undefined. */
export function runningServerEndpoint(dataDir: string): ServedEndpoint | undefined {
  const lock = acquireInstanceLock(dataDir);
  if (lock !== undefined) {
    lock.release();
    return undefined;
  }
  return readServedEndpoint(dataDir);
}
