import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import type { X509Certificate } from 'node:crypto';
import { errors } from '../../errors.js';
import { isWildcardAddress } from '../../network-names.js';
import { readCertificate, readPrivateKey, requireCurrent, requireKeyOf, tlsPaths, validityOf } from './tls-files.js';

/** The certificate and key files `serve` is to use, as absolute paths. */
export interface TlsFiles {
  certificate: string;
  key: string;
  /** `given`: --tls-cert and --tls-key (or their environment variables); `data`: the data directory's, made by `tls init`. */
  source: 'given' | 'data';
}

/** What `serve` serves HTTPS with, checked at start-up. */
export interface ServerTls {
  files: TlsFiles;
  /** The PEM text of each, for node:https. */
  certificatePem: Buffer;
  keyPem: Buffer;
  notAfter: Date;
  /** The names the certificate covers, as its subjectAltName lists them (`DNS:clinic-pc, IP Address:127.0.0.1`). */
  names: string;
  /** Its DNS names and IP addresses one by one, wildcards left out: clients may name the server by them (the Host check). */
  hostNames: string[];
}

/** The DNS names (not wildcards) and IP addresses of a subjectAltName as Node prints it. */
function hostNamesOf(subjectAltName: string): string[] {
  return subjectAltName.split(', ').flatMap((entry) => /^(?:DNS|IP Address):([^"*,\s]+)$/.exec(entry)?.[1] ?? []);
}

/** A certificate this close to its end still serves, with a warning at every start. */
export const EXPIRY_WARNING_DAYS = 30;

/**
 * The files serve uses: those given, else the data directory's `tls/server.pem` and
 * `tls/server-key.pem` when both are there, else none (plain HTTP). Only one of the two there is
 * refused, naming the missing one: someone ran `tls init` and expects HTTPS.
 */
export function findTlsFiles(dataDir: string, given: Omit<TlsFiles, 'source'> | undefined): TlsFiles | undefined {
  if (given !== undefined) return { ...given, source: 'given' };
  const paths = tlsPaths(dataDir);
  const [certificate, key] = [existsSync(paths.certificate), existsSync(paths.key)];
  if (!certificate && !key) return undefined;
  if (!certificate || !key) {
    throw errors.tlsFileUnreadable(certificate ? paths.key : paths.certificate, 'there is no such file', remedyFor('data'));
  }
  return { certificate: paths.certificate, key: paths.key, source: 'data' };
}

/** What to do about files that cannot be served, by where they came from. */
function remedyFor(source: TlsFiles['source']): string {
  return source === 'data'
    ? 'The server did not start. Run `clinic tls init` again (with a --name for each name clients use) for a new server certificate.'
    : 'The server did not start. Give --tls-cert and --tls-key files that are current, match each other and cover the --host address.';
}

/**
 * Whether `certificate` covers `host`, the address serve listens on: an IP address must be one of
 * its IP addresses, a name one of its DNS names (a wildcard of one label matching, as clients
 * match). A wildcard address (0.0.0.0, ::) names no host, so nothing is checked for it.
 */
function covers(certificate: X509Certificate, host: string): boolean {
  if (isWildcardAddress(host)) return true;
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  return isIP(bare) === 0 ? certificate.checkHost(bare) !== undefined : certificate.checkIP(bare) !== undefined;
}

/**
 * Reads and checks the files before serve listens, refusing with a coded error that names the
 * file: one that cannot be read or holds no certificate or key (TLS_FILE_UNREADABLE), a key of
 * another certificate (TLS_KEY_MISMATCH), a certificate not valid `now`
 * (TLS_CERTIFICATE_EXPIRED, TLS_CERTIFICATE_NOT_YET_VALID), or one that covers neither `host`
 * nor any of `allowedHosts` (TLS_CERTIFICATE_NAME_MISMATCH): a certificate for the name clients
 * use (`--allowed-host clinic.praxis.lan`) serves a `--host 192.168.1.20` it does not name.
 * Clients would refuse any of these; better the server says so once, at its start, than each
 * client in its own words.
 */
export function loadServerTls(files: TlsFiles, host: string, now: Date, allowedHosts: readonly string[] = []): ServerTls {
  const remedy = remedyFor(files.source);
  const { pem: certificatePem, certificate } = readCertificate(files.certificate, remedy);
  const { pem: keyPem, key } = readPrivateKey(files.key, remedy);
  requireKeyOf(files.certificate, certificate, files.key, key, remedy);
  requireCurrent(files.certificate, certificate, now, remedy);
  const names = certificate.subjectAltName ?? '';
  if (![host, ...allowedHosts].some((name) => covers(certificate, name)))
    throw errors.tlsCertificateNameMismatch(files.certificate, host, names, remedy);
  return { files, certificatePem, keyPem, notAfter: validityOf(certificate).notAfter, names, hostNames: hostNamesOf(names) };
}

/** Whether `tls` expires within EXPIRY_WARNING_DAYS of `now`. */
export function expiresSoon(tls: ServerTls, now: Date): boolean {
  return tls.notAfter.getTime() - now.getTime() < EXPIRY_WARNING_DAYS * 24 * 60 * 60 * 1000;
}
