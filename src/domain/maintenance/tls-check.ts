import { X509Certificate } from 'node:crypto';
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { HAS_MODES, octal } from '../../db/file-modes.js';
import { EXPIRY_WARNING_DAYS } from '../tls/server-tls.js';
import { KEY_FILE_MODE, tlsPaths } from '../tls/tls-files.js';
import { nowIso } from '../clock.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A date as the finding gives it: its day, as the certificate's tools show it (UTC). */
const day = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * What `serve` needs of the data directory's `tls/` folder and would otherwise only say at its
 * next start (issue 42, finding 5): every file there belongs to the data directory's owner, the
 * user the server runs as (a `tls init` run as root by mistake left files the server could not
 * read, and `check` said all was well); the keys are their owner's alone (0600); the server's
 * certificate is neither expired nor in its last EXPIRY_WARNING_DAYS. Each finding's hint is the
 * command that mends it: `chown -R` to the owner the data directory has (never `--new-ca`, which
 * would have every PC install a new CA), `chmod 600`, or `tls init` again (which keeps the CA).
 * No `tls/` folder: nothing to check. Windows has no owners or modes here: only the expiry.
 */
export function tlsFindings(dataDir: string): string[] {
  const paths = tlsPaths(dataDir);
  let folder: Stats;
  try {
    folder = lstatSync(paths.folder);
  } catch {
    return [];
  }
  const findings: string[] = [];
  const owner = lstatSync(dataDir);
  const chown = `run chown -R ${owner.uid}:${owner.gid} ${paths.folder}`;
  const ownedByServer = (path: string, info: Stats) => {
    if (HAS_MODES && info.uid !== owner.uid)
      findings.push(
        `${path} belongs to uid ${info.uid}, not to the data directory's owner (uid ${owner.uid}), the user serve runs as, which then cannot ${info.isDirectory() ? 'use it' : 'read it'} (a tls init or restore run as root?); ${chown}`,
      );
  };
  if (folder.isSymbolicLink() || !folder.isDirectory())
    return [`${paths.folder} is not a folder; clinic never follows a link in its data directory: remove it`];
  ownedByServer(paths.folder, folder);
  for (const path of [paths.ca, paths.caKey, paths.certificate, paths.key]) {
    let info: Stats;
    try {
      info = lstatSync(path);
    } catch {
      continue; // serve says at its start which of the pair is missing.
    }
    if (info.isSymbolicLink()) {
      findings.push(`${path} is a symbolic link; clinic never follows one in its data directory: remove it`);
      continue;
    }
    ownedByServer(path, info);
    const isKey = path === paths.caKey || path === paths.key;
    if (HAS_MODES && isKey && (info.mode & 0o777 & ~KEY_FILE_MODE) !== 0)
      findings.push(`${path} has mode ${octal(info.mode)}: a private key must be its owner's alone; run chmod 600 on it`);
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(readFileSync(paths.certificate));
  } catch {
    return findings; // Missing or unreadable: serve names it at its start, and the owner finding above says why.
  }
  const notAfter = new Date(certificate.validTo);
  const left = notAfter.getTime() - new Date(nowIso()).getTime();
  const again = `run clinic tls init with the same --name options --data ${dataDir} (it keeps the CA), then restart serve`;
  if (left <= 0) findings.push(`${paths.certificate} expired on ${day(notAfter)}: serve refuses to start with it; ${again}`);
  else if (left < EXPIRY_WARNING_DAYS * DAY_MS)
    findings.push(`${paths.certificate} expires on ${day(notAfter)}, in ${Math.ceil(left / DAY_MS)} days; ${again}`);
  return findings;
}
