import { lstatSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { listDocumentFiles, listInvoicePaymentMismatches } from '../../db/check-queries.js';
import { DOCUMENTS_DIR, documentFilePath, listTempFiles, type TempEntry } from '../../db/document-files.js';
import { LOCK_FILE } from '../../db/instance-lock.js';
import { foreignKeyViolations, integrityProblems } from '../../db/maintenance.js';
import { DATABASE_FILE, openDatabase, type Db } from '../../db/open-database.js';
import { findDocument } from '../../db/documents.js';
import { isAbandonedUpload } from '../documents/recover-uploads.js';
import { sqliteErrorCode } from '../../db/sqlite-result-codes.js';
import { digestFile } from './data-dir.js';

/** The outcome of one named check: what it found. */
export interface CheckOutcome {
  name: string;
  description: string;
  status: 'ok' | 'failed';
  /** One sentence per problem found. */
  findings: string[];
}

interface NamedCheck {
  name: string;
  description: string;
  /** Whether it reads the database (and so cannot run when the database cannot be opened). */
  needsDatabase: boolean;
  run(db: Db | undefined, dataDir: string): Promise<string[]> | string[];
}

/** Ids are UUIDs; anything else in a path-forming column is reported, never used as a path. */
const SAFE_ID = /^[0-9A-Za-z-]{1,64}$/;

/** Files of the data directory that hold patient data or guard it, and must be private. */
const PRIVATE_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, LOCK_FILE];

/** A failure as a finding: its code (SQLITE_CORRUPT, EACCES, ...) and SQLite's or the system's words. */
export function describeFailure(error: unknown): string {
  const code = sqliteErrorCode(error) ?? (error as NodeJS.ErrnoException | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined ? message : `${message} (${code})`;
}

/** The uid of the user running this process, or undefined where there are none (Windows). */
const currentUid = (): number | undefined => process.getuid?.();

/**
 * The modes and owners of the data directory and its files. The directory is made 0700 and the
 * files 0600; one that a group or everyone may read or enter exposes patient data to other
 * users of the computer (`chmod 700 DIR`, `chmod 600 FILE` closes it). Every file should belong
 * to the directory's owner, and that should be the user running clinic: a file of another user
 * (one restored as root from an archive that named another owner, or written by a command run
 * as root) is one the server may not be able to write, or that this user may not protect. A
 * link in place of one of the files is reported, never followed. Document files and folders are
 * included with `documents`.
 */
export function permissionFindings(dataDir: string, { documents: walkDocuments = false }: { documents?: boolean } = {}): string[] {
  const findings: string[] = [];
  if (process.platform === 'win32') return findings;
  const dir = statSync(dataDir);
  const mode = dir.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    findings.push(
      `the data directory ${dataDir} has mode ${mode.toString(8).padStart(4, '0')}: other users of this computer can reach patient data; run chmod 700 on it`,
    );
  }
  const uid = currentUid();
  if (uid !== undefined && dir.uid !== uid) {
    findings.push(
      `the data directory ${dataDir} belongs to uid ${dir.uid}, not to the user running clinic (uid ${uid}); run clinic as its owner (sudo -u), or chown -R it to the user that runs the server`,
    );
  }
  const foreign = (path: string, owner: number) =>
    findings.push(`${path} belongs to uid ${owner}, the data directory to uid ${dir.uid}; run chown ${dir.uid} on it`);
  for (const name of PRIVATE_FILES) {
    const path = join(dataDir, name);
    let info;
    try {
      info = lstatSync(path);
    } catch {
      continue;
    }
    if (info.isSymbolicLink()) {
      findings.push(`${path} is a symbolic link; clinic never follows one in its data directory: remove it`);
      continue;
    }
    const fileMode = info.mode & 0o777;
    if ((fileMode & 0o077) !== 0) findings.push(`${path} has mode ${fileMode.toString(8).padStart(4, '0')}; run chmod 600 on it`);
    if (info.uid !== dir.uid) foreign(path, info.uid);
  }
  // Every document's owner only where asked (check): serve starts without reading each file's inode.
  let documents: Dirent[] = [];
  try {
    if (walkDocuments) documents = readdirSync(join(dataDir, DOCUMENTS_DIR), { recursive: true, withFileTypes: true });
  } catch {
    // No documents yet (or none readable: the document_files check names those).
  }
  for (const entry of documents) {
    const path = join(entry.parentPath, entry.name);
    try {
      const owner = lstatSync(path).uid;
      if (owner !== dir.uid) foreign(path, owner);
    } catch {
      // Removed meanwhile.
    }
  }
  return findings;
}

/** Every document row's file, checked for presence, size and SHA-256. */
async function checkDocumentFiles(db: Db, dataDir: string, temps: readonly TempEntry[]): Promise<string[]> {
  const waiting = new Set(temps.map((entry) => entry.documentId));
  const findings: string[] = [];
  for (const row of listDocumentFiles(db)) {
    const label = `document ${row.id} of patient ${row.patient_id}`;
    if (!SAFE_ID.test(row.id) || !SAFE_ID.test(row.patient_id)) {
      findings.push(`${label}: its ids cannot name a file under documents/`);
      continue;
    }
    const path = documentFilePath(dataDir, row.patient_id, row.id);
    let digest;
    try {
      digest = await digestFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && waiting.has(row.id)) {
        findings.push(
          `${label}: file is missing: its upload was cut off and waits in tmp/; the next \`clinic serve\` puts it in place: ${path}`,
        );
      } else {
        const reason =
          code === 'ENOENT'
            ? 'file is missing'
            : code === 'ELOOP'
              ? 'file is a symbolic link, which clinic never follows nor serves'
              : `file cannot be read (${code ?? String(error)})`;
        findings.push(`${label}: ${reason}: ${path}`);
      }
      continue;
    }
    if (digest.size !== row.size) findings.push(`${label}: file has ${digest.size} bytes, the database records ${row.size}: ${path}`);
    else if (digest.sha256 !== row.sha256.toLowerCase())
      findings.push(`${label}: file's SHA-256 is ${digest.sha256}, the database records ${row.sha256}: ${path}`);
  }
  return findings;
}

/** Temporary files in tmp/ that no upload will finish: left by crashes; the next `clinic serve` removes them. */
function staleUploadFindings(db: Db, temps: readonly TempEntry[]): string[] {
  return temps
    .filter((entry) => (entry.documentId === undefined || findDocument(db, entry.documentId) === undefined) && isAbandonedUpload(entry))
    .map(
      (entry) =>
        `abandoned upload, ${entry.size} bytes, left by an interrupted upload; the next \`clinic serve\` removes it: ${entry.path}`,
    );
}

/** The checks `clinic check` runs, in order. */
export const CHECKS: readonly NamedCheck[] = [
  {
    name: 'permissions',
    description: 'the data directory and its files are private to their owner, who runs clinic',
    needsDatabase: false,
    run: (_db, dataDir) => permissionFindings(dataDir, { documents: true }),
  },
  {
    name: 'integrity',
    description: 'SQLite integrity_check: the database file is sound',
    needsDatabase: true,
    run: (db) => integrityProblems(db!),
  },
  {
    name: 'foreign_keys',
    description: 'SQLite foreign_key_check: no row refers to a missing row',
    needsDatabase: true,
    run: (db) =>
      foreignKeyViolations(db!).map((v) => `${v.table} row ${v.rowid ?? '(without rowid)'} refers to a missing row of ${v.parent}`),
  },
  {
    name: 'document_files',
    description: 'every document row has its file, with the recorded size and SHA-256',
    needsDatabase: true,
    run: async (db, dataDir) => checkDocumentFiles(db!, dataDir, await listTempFiles(dataDir)),
  },
  {
    name: 'upload_temp_files',
    description: 'no abandoned upload is left in tmp/',
    needsDatabase: true,
    run: async (db, dataDir) => staleUploadFindings(db!, await listTempFiles(dataDir)),
  },
  {
    name: 'invoice_payments',
    description: "every invoice's amount paid equals its payments less its refunds",
    needsDatabase: true,
    run: (db) =>
      listInvoicePaymentMismatches(db!).map(
        (m) =>
          `invoice ${m.invoice_id}: amount paid is ${m.amount_paid_cents} cents, its payments ${m.refunds_cents > 0 ? 'less its refunds ' : ''}add up to ${m.payments_cents} cents`,
      ),
  },
];

/**
 * Runs every check over a data directory's database and files; nothing is changed. `database` is
 * an open connection or a function that opens one, called only once a check needs it (after the
 * permissions were read: opening narrows the files' modes). A check that fails to run (a damaged
 * database, an unreadable file) reports that as its finding, so the others still run and every
 * problem is named.
 */
export async function runChecks(database: Db | (() => Db), dataDir: string): Promise<CheckOutcome[]> {
  let db = typeof database === 'function' ? undefined : database;
  let openError: unknown;
  const outcomes: CheckOutcome[] = [];
  for (const check of CHECKS) {
    const { name, description } = check;
    let findings: string[];
    try {
      if (check.needsDatabase && db === undefined && openError === undefined) db = (database as () => Db)();
    } catch (error) {
      openError = error;
    }
    if (check.needsDatabase && db === undefined) {
      findings = [`not run: the database cannot be opened: ${describeFailure(openError)}`];
    } else {
      try {
        findings = await check.run(db, dataDir);
      } catch (error) {
        findings = [`the check could not finish: ${describeFailure(error)}`];
      }
    }
    outcomes.push({ name, description, status: findings.length === 0 ? 'ok' : 'failed', findings });
  }
  return outcomes;
}

/** Opens the database of `dataDir` when a check first needs it and runs every check; a database that cannot be opened is a finding too. */
export async function checkDataDirectory(dataDir: string): Promise<CheckOutcome[]> {
  let db: Db | undefined;
  try {
    return await runChecks(() => (db = openDatabase(dataDir)), dataDir);
  } finally {
    db?.close();
  }
}
