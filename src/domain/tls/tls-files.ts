import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { HAS_MODES, makeSharedFolder, SHARED_FILE_MODE } from '../../db/file-modes.js';
import { errors } from '../../errors.js';
import { fileFailure } from '../../file-failure.js';
import { writeFileWhole } from '../written-file.js';

/** The folder of the data directory that `tls init` writes and `serve` reads by default. */
export const TLS_DIR = 'tls';

/** The files of TLS_DIR (clinic-api-1.2.md, Network, "TLS"). */
export interface TlsPaths {
  folder: string;
  /** The private CA's certificate: the file other PCs install. */
  ca: string;
  /** The CA's private key: never leaves this PC. */
  caKey: string;
  /** The server's certificate, and its key. */
  certificate: string;
  key: string;
}

/** The TLS files of a data directory. */
export function tlsPaths(dataDir: string): TlsPaths {
  const folder = join(dataDir, TLS_DIR);
  return {
    folder,
    ca: join(folder, 'ca.pem'),
    caKey: join(folder, 'ca-key.pem'),
    certificate: join(folder, 'server.pem'),
    key: join(folder, 'server-key.pem'),
  };
}

/** A private key's mode: its owner (the user the server runs as) only, not the desk staff's group. */
export const KEY_FILE_MODE = 0o600;

/**
 * What mends a file this user may not read: its owner, not a new CA (issue 42: the hint said
 * `--new-ca` where a `tls init` run as root had left root's files, and a new CA must be installed
 * on every PC again).
 */
function ownerRemedy(path: string): string {
  let owner = '';
  try {
    owner = ` It belongs to uid ${lstatSync(path).uid}.`;
  } catch {
    // Its folder may not be entered either: the chown below mends that too.
  }
  return `${owner} Give the folder to the user the server runs as (as root: chown -R clinic: ${dirname(path)}), or run clinic as its owner.`.trim();
}

/** The bytes of `path`, or TLS_FILE_UNREADABLE naming it, with `remedy` (or, when this user may not read it, ownerRemedy). */
function readTlsFile(path: string, remedy: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw errors.tlsFileUnreadable(
      path,
      fileFailure(error, 'read', 'run clinic as the user the server runs as'),
      code === 'EACCES' || code === 'EPERM' ? ownerRemedy(path) : remedy,
    );
  }
}

/** A certificate file, parsed: its first certificate (a chain's leaf), or TLS_FILE_UNREADABLE. */
export function readCertificate(path: string, remedy: string): { pem: Buffer; certificate: X509Certificate } {
  const pem = readTlsFile(path, remedy);
  try {
    return { pem, certificate: new X509Certificate(pem) };
  } catch {
    throw errors.tlsFileUnreadable(path, 'it holds no certificate (PEM, "BEGIN CERTIFICATE")', remedy);
  }
}

/** A private key file, parsed, or TLS_FILE_UNREADABLE (an encrypted key too: serve has no one to ask for its passphrase). */
export function readPrivateKey(path: string, remedy: string): { pem: Buffer; key: KeyObject } {
  const pem = readTlsFile(path, remedy);
  try {
    return { pem, key: createPrivateKey(pem) };
  } catch {
    throw errors.tlsFileUnreadable(path, 'it holds no unencrypted private key (PEM, "BEGIN PRIVATE KEY")', remedy);
  }
}

/** When a certificate begins and ends (Node 20's X509Certificate has only the text of each). */
export function validityOf(certificate: X509Certificate): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(certificate.validFrom), notAfter: new Date(certificate.validTo) };
}

/** Refuses a certificate that is not valid at `now`: TLS_CERTIFICATE_EXPIRED or TLS_CERTIFICATE_NOT_YET_VALID. */
export function requireCurrent(path: string, certificate: X509Certificate, now: Date, remedy: string): void {
  const { notBefore, notAfter } = validityOf(certificate);
  if (now > notAfter) throw errors.tlsCertificateExpired(path, notAfter.toISOString(), remedy);
  if (now < notBefore) throw errors.tlsCertificateNotYetValid(path, notBefore.toISOString(), remedy);
}

/** Refuses a key that is not the certificate's: TLS_KEY_MISMATCH. */
export function requireKeyOf(certificatePath: string, certificate: X509Certificate, keyPath: string, key: KeyObject, remedy: string): void {
  if (!certificate.checkPrivateKey(key)) throw errors.tlsKeyMismatch(keyPath, certificatePath, remedy);
}

/**
 * Makes the data directory's TLS folder (2770, as every folder of it) unless it is there. A
 * link in its place is refused, never followed: whoever can write the data directory could
 * otherwise aim the keys' files elsewhere.
 */
export async function makeTlsFolder(paths: TlsPaths): Promise<void> {
  let info: Stats | undefined;
  try {
    info = lstatSync(paths.folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (info?.isSymbolicLink()) throw errors.dataDirectoryUnsafe(paths.folder, readlinkSync(paths.folder));
  if (info !== undefined && !info.isDirectory()) throw errors.dataDirectoryUnusable(paths.folder, 'it is a file, not a folder');
  if (info === undefined) await makeSharedFolder(paths.folder);
}

/**
 * Writes one TLS file whole or not at all (a temporary file beside it, fsynced, renamed over the
 * old one: a power cut leaves the old file or the new, and a link put in its place is replaced,
 * not followed). The temporary file is created 0600, so a key is never readable by others, not
 * even for a moment; then it gets `mode` exactly (a certificate 0660 like every file of the data
 * directory, a key KEY_FILE_MODE). Windows has no modes: there the data directory's access list
 * decides who reads the files (docs/install.md).
 */
export async function writeTlsFile(path: string, text: string, mode: number): Promise<void> {
  await writeFileWhole(path, { replace: true }, async (file) => {
    if (HAS_MODES) await file.handle.chmod(mode);
    await file.write(Buffer.from(text, 'utf8'));
  });
}

/** A certificate's mode: for the server's user and the desk staff's group, as every file of the data directory. */
export const CERTIFICATE_FILE_MODE = SHARED_FILE_MODE;

/** The SHA-256 fingerprint (colon hex) of the data directory's CA, or undefined without a readable `tls/ca.pem`. */
export function readCaFingerprint(dataDir: string): string | undefined {
  try {
    return new X509Certificate(readFileSync(tlsPaths(dataDir).ca)).fingerprint256;
  } catch {
    return undefined;
  }
}
