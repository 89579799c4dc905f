import { foreignOwnerOf, giveTo, type FileOwner } from '../../db/file-modes.js';
import { lstatSync } from 'node:fs';
import { hostname } from 'node:os';
import { X509Certificate } from 'node:crypto';
import { requireExistingDatabase } from '../maintenance/data-dir.js';
import { errors } from '../../errors.js';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from './certificates.js';
import { certificateNames, type TlsName } from './tls-names.js';
import {
  CERTIFICATE_FILE_MODE,
  KEY_FILE_MODE,
  makeTlsFolder,
  readCertificate,
  readPrivateKey,
  requireCurrent,
  requireKeyOf,
  tlsPaths,
  validityOf,
  writeTlsFile,
  type TlsPaths,
} from './tls-files.js';

/** How long a new CA is valid: other PCs trust it once, so for the life of the PC. */
export const CA_VALIDITY_YEARS = 10;

/**
 * How long a server certificate is valid at most: 825 days, the most Apple's systems accept for a
 * TLS server certificate (since iOS 13 and macOS 10.15), which a private CA's certificates must
 * keep to as well (the 398 days of 2020 bind only publicly trusted CAs); browsers on Windows and
 * Linux accept it too. About two years and three months; `serve` warns in its last 30 days.
 */
export const SERVER_VALIDITY_DAYS = 825;

/** What `clinic tls init` did (`--json`: this object as it is). */
export interface TlsInitResult {
  /** The CA's certificate: the file other PCs install. */
  ca_file: string;
  /** Its SHA-256 fingerprint as colon hex, as browsers and `openssl x509 -fingerprint -sha256` show it. */
  ca_sha256: string;
  /** Whether this run made the CA (first run, or `--new-ca`); false: the existing one was kept. */
  ca_created: boolean;
  /** Whether the CA made replaced one that was there (`--new-ca`): other PCs must install the new one. */
  ca_replaced: boolean;
  /** When the CA expires (ISO 8601, UTC). */
  ca_not_after: string;
  server_certificate_file: string;
  server_key_file: string;
  /** Every name the server certificate covers, the given ones first. */
  names: string[];
  /** When the server certificate expires (ISO 8601, UTC). */
  not_after: string;
}

/** What to do about an existing CA that cannot be used. */
const CA_REMEDY =
  'Put the CA files back from where they were kept, or run `clinic tls init --new-ca` to make a new CA (every PC that trusted the old one must then install the new ca.pem).';

/** The existing CA of `paths`, checked: readable, a CA, current, its key its own. */
function loadAuthority(paths: TlsPaths, now: Date): PemPair {
  const { pem, certificate } = readCertificate(paths.ca, CA_REMEDY);
  if (!certificate.ca) throw errors.tlsFileUnreadable(paths.ca, 'it is not a CA certificate', CA_REMEDY);
  requireCurrent(paths.ca, certificate, now, CA_REMEDY);
  const key = readPrivateKey(paths.caKey, CA_REMEDY);
  requireKeyOf(paths.ca, certificate, paths.caKey, key.key, CA_REMEDY);
  return { certificatePem: pem.toString('utf8'), keyPem: key.pem.toString('utf8') };
}

/** Whether `path` surely does not exist (ENOENT), not merely out of this user's sight. */
function isMissing(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** `when` plus `years` calendar years (UTC). */
function yearsLater(when: Date, years: number): Date {
  const later = new Date(when);
  later.setUTCFullYear(later.getUTCFullYear() + years);
  return later;
}

/**
 * `clinic tls init`: makes the private CA in `<dataDir>/tls` unless one is there (`newCa`
 * replaces it: other PCs already trust the existing one, and a new one must be installed on each
 * of them again), then issues a new server certificate for `given` plus localhost, 127.0.0.1 and
 * ::1, valid SERVER_VALIDITY_DAYS (never past the CA). Keys are written before their
 * certificates, each file whole, keys 0600. A folder without a clinic database is refused
 * (NO_DATABASE), as every command but init and serve refuses it; so is an existing CA that cannot
 * be used (missing key, expired, another's key), naming the file, and nothing is written.
 */
export async function initTls(
  dataDir: string,
  given: readonly TlsName[],
  options: { newCa: boolean; now?: Date; gaveTo?: (owner: FileOwner) => void },
): Promise<TlsInitResult> {
  const now = options.now ?? new Date();
  // A mistyped --data must not get certificates that serve would never find: only a clinic's data directory.
  requireExistingDatabase(dataDir);
  const paths = tlsPaths(dataDir);
  await makeTlsFolder(paths);
  // Only a CA that is surely not there is made anew: one this user may not see (a tls/ folder
  // root's after a `sudo clinic tls init`) is read below, and refused naming the chown that mends it.
  const existing = !isMissing(paths.ca);
  const keep = !options.newCa && existing;
  let ca: PemPair;
  if (keep) ca = loadAuthority(paths, now);
  else {
    const day = now.toISOString().slice(0, 10);
    ca = await createCertificateAuthority(`clinic private CA ${hostname()} ${day}`, now, yearsLater(now, CA_VALIDITY_YEARS));
  }
  const caCertificate = new X509Certificate(ca.certificatePem);
  const caNotAfter = validityOf(caCertificate).notAfter;
  const notAfter = new Date(Math.min(now.getTime() + SERVER_VALIDITY_DAYS * 24 * 60 * 60 * 1000, caNotAfter.getTime()));
  const names = certificateNames(given);
  const server = await issueServerCertificate(ca, names, now, notAfter);
  if (!keep) {
    await writeTlsFile(paths.caKey, ca.keyPem, KEY_FILE_MODE);
    await writeTlsFile(paths.ca, ca.certificatePem, CERTIFICATE_FILE_MODE);
  }
  await writeTlsFile(paths.key, server.keyPem, KEY_FILE_MODE);
  await writeTlsFile(paths.certificate, server.certificatePem, CERTIFICATE_FILE_MODE);
  // Root run on the server's directory: the folder and its files go to the directory's owner, or serve could not read them.
  const owner = foreignOwnerOf(dataDir);
  if (owner !== undefined) {
    giveTo(paths.folder, owner);
    options.gaveTo?.(owner);
  }
  return {
    ca_file: paths.ca,
    ca_sha256: caCertificate.fingerprint256,
    ca_created: !keep,
    ca_replaced: !keep && existing,
    ca_not_after: caNotAfter.toISOString(),
    server_certificate_file: paths.certificate,
    server_key_file: paths.key,
    names: names.map((name) => name.value),
    not_after: validityOf(new X509Certificate(server.certificatePem)).notAfter.toISOString(),
  };
}
