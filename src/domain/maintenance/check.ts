import { listPurgedDocumentFiles } from '../../db/erasure.js';
import { existsSync, lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import { progressSteps, type ProgressListener, type StepProgress } from './progress.js';
import { join } from 'node:path';
import { listDocumentFiles, listInvoicePaymentMismatches } from '../../db/check-queries.js';
import { HAS_MODES, octal, OTHERS_BITS, SETGID, SHARED_FILE_MODE, SHARED_FOLDER_MODE } from '../../db/file-modes.js';
import { DOCUMENTS_DIR, documentFilePath, listTempFiles, type TempEntry } from '../../db/document-files.js';
import { LOCK_FILE } from '../../db/instance-lock.js';
import { foreignKeyViolations, integrityProblems } from '../../db/maintenance.js';
import { openDatabase, type Db } from '../../db/open-database.js';
import { DATABASE_FILE } from '../../db/data-directory.js';
import { findDocument } from '../../db/documents.js';
import { isAbandonedUpload } from '../documents/recover-uploads.js';
import { digestFile } from './data-dir.js';
import { FIRST_KEY_FILE } from './first-key-file.js';
import { tlsFindings } from './tls-check.js';
import { AppError } from '../../errors.js';
import { verifyAuditTrail } from '../audit/verify-audit-trail.js';
import { lowDiskFindings } from '../audit/audit-reserve.js';
import { anchorFindings } from '../audit/anchor-trail.js';
import { missingAuditTriggers } from '../../db/audit-events.js';
import { changeFeedFindings } from '../../db/change-events.js';
import { owedText, patientsOwingInSeveralCurrencies } from '../invoices/outstanding-balance.js';
import { describeFailure } from './failure-text.js';

/**
 * The outcome of one named check: what it found. A check that notes (`notes`) names states the
 * program allows but staff should look at: its findings make its status `note`, never `failed`.
 */
export interface CheckOutcome {
  name: string;
  description: string;
  status: 'ok' | 'failed' | 'note';
  /** One sentence per problem (or, for a note, per state) found. */
  findings: string[];
}

interface NamedCheck {
  name: string;
  description: string;
  /** Whether it reads the database (and so cannot run when the database cannot be opened). */
  needsDatabase: boolean;
  /** Its findings are states to look at, not faults: they do not fail `clinic check`. */
  notes?: boolean;
  /** `progress` is told what the check counts as it goes (the documents' bytes), for a bar. */
  run(db: Db | undefined, dataDir: string, progress: StepProgress): Promise<string[]> | string[];
}

/** Ids are UUIDs; anything else in a path-forming column is reported, never used as a path. */
const SAFE_ID = /^[0-9A-Za-z-]{1,64}$/;

/** Files of the data directory that hold patient data or guard it. */
const DATA_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, LOCK_FILE];

/** The uid of the user running this process, or undefined where there are none (Windows). */
const currentUid = (): number | undefined => process.getuid?.();

/** The data directory as its permissions are judged: its owner, its group, and whether that group is let in. */
interface DirectoryAccess {
  uid: number;
  gid: number;
  /** The directory lets its group in (2770: desk staff): then every file and folder in it must let the group use it too. */
  shared: boolean;
}

/**
 * What is wrong with the mode of one file or folder of the data directory (the directory itself
 * included), one sentence with the chmod that mends it, or undefined. Others may never read or
 * enter anything. In a directory its group may enter, the group must read and write every file
 * and enter and write every folder, and on Linux a folder needs the setgid bit, without which
 * what a member makes in it would take the member's own group (file-modes.ts).
 */
function modeFinding(label: string, info: Stats, access: DirectoryAccess): string | undefined {
  const folder = info.isDirectory();
  const reasons: string[] = [];
  if ((info.mode & OTHERS_BITS) !== 0) reasons.push(`other users of this computer can ${folder ? 'reach patient data' : 'read it'}`);
  if (access.shared) {
    const groupNeeds = folder ? 0o070 : 0o060;
    if ((info.mode & groupNeeds) !== groupNeeds) reasons.push(`its group cannot ${folder ? 'enter and write in it' : 'read and write it'}`);
    if (folder && process.platform === 'linux' && (info.mode & SETGID) === 0) {
      reasons.push('it lacks the setgid bit (what a member makes in it would not take its group)');
    }
  }
  if (reasons.length === 0) return undefined;
  const fix = !access.shared ? 'o-rwx' : octal(folder ? SHARED_FOLDER_MODE : SHARED_FILE_MODE).replace(/^0/, '');
  const why = reasons.length === 1 ? reasons[0]! : `${reasons.slice(0, -1).join(', ')} and ${reasons.at(-1)!}`;
  return `${label} has mode ${octal(info.mode)}: ${why}; run chmod ${fix} on it`;
}

/**
 * Whether the owner of the data directory (the server) and, where it is let in, its group can
 * use a file or folder in it: in a directory its group may enter, its group must be the
 * directory's, whoever made it (a desk user's upload is theirs); otherwise it must belong to the
 * directory's owner (a restore run as root of an archive naming another owner left files the
 * server could not write).
 */
function ownerFinding(path: string, info: Stats, access: DirectoryAccess): string | undefined {
  if (access.shared) {
    if (info.gid === access.gid) return undefined;
    return `${path} has group ${info.gid}, not the data directory's group ${access.gid}, whose members therefore cannot use it; run chgrp ${access.gid} on it`;
  }
  if (info.uid === access.uid) return undefined;
  return `${path} belongs to uid ${info.uid}, the data directory to uid ${access.uid}; run chown ${access.uid} on it`;
}

/**
 * The modes, owners and groups of the data directory and its files (file-modes.ts). Nothing in
 * it may let other users of the computer in: the directory is made 2770 (0770 outside Linux) and
 * its files 0660 for its owner, the user the server runs as, and its group, the desk staff. A
 * directory its group may enter asks the same of every file and folder in it, with the
 * directory's group; one its group may not enter (0700: one user's) asks that each belong to its
 * owner. The user running clinic must be the owner or, where the group is let in, root or a
 * member of the group. A link in place of one of the files is reported, never followed. Document
 * files and folders are included with `documents`. Windows has no modes (file-modes.ts): none.
 */
export function permissionFindings(dataDir: string, { documents: walkDocuments = false }: { documents?: boolean } = {}): string[] {
  const findings: string[] = [];
  if (!HAS_MODES) return findings;
  const dir = statSync(dataDir);
  const access: DirectoryAccess = { uid: dir.uid, gid: dir.gid, shared: (dir.mode & 0o070) !== 0 };
  const add = (finding: string | undefined) => finding !== undefined && findings.push(finding);
  add(modeFinding(`the data directory ${dataDir}`, dir, access));
  const uid = currentUid();
  const member = access.shared && (uid === 0 || process.getgroups?.().includes(dir.gid) === true);
  if (uid !== undefined && dir.uid !== uid && !member) {
    findings.push(
      access.shared
        ? `the data directory ${dataDir} belongs to uid ${dir.uid} and group ${dir.gid}, and the user running clinic (uid ${uid}) is not in that group; run clinic as its owner (sudo -u), or add this user to the group (usermod -aG) and sign in again`
        : `the data directory ${dataDir} belongs to uid ${dir.uid}, not to the user running clinic (uid ${uid}), and does not let its group in; run clinic as its owner (sudo -u), or chown -R it to the user that runs the server`,
    );
  }
  const judge = (path: string, info: Stats) => {
    add(modeFinding(path, info, access));
    add(ownerFinding(path, info, access));
  };
  for (const name of DATA_FILES) {
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
    judge(path, info);
  }
  // Every document's only where asked (check): serve starts without reading each file's inode.
  let documents: Dirent[] = [];
  try {
    if (walkDocuments) {
      const folder = join(dataDir, DOCUMENTS_DIR);
      const info = lstatSync(folder);
      if (info.isDirectory()) judge(folder, info);
      documents = readdirSync(folder, { recursive: true, withFileTypes: true });
    }
  } catch {
    // No documents yet (or none readable: the document_files check names those).
  }
  for (const entry of documents) {
    const path = join(entry.parentPath, entry.name);
    try {
      // lstat: a link is no document of ours (document_files names one that stands for a document).
      const info = lstatSync(path);
      if (!info.isSymbolicLink()) judge(path, info);
    } catch {
      // Removed meanwhile.
    }
  }
  return findings;
}

/**
 * The first API key's file (first-key-file.ts), while it is there: a secret at rest beside the
 * data, which should be stored where the clinic keeps its secrets and the file deleted.
 */
export function firstKeyFileFindings(dataDir: string): string[] {
  const path = join(dataDir, FIRST_KEY_FILE);
  if (!existsSync(path)) return [];
  return [`${path} still holds the first API key, written there by the server's first start: store the key and delete the file`];
}

/** Every document row's file, checked for presence, size and SHA-256. */
async function checkDocumentFiles(db: Db, dataDir: string, temps: readonly TempEntry[], progress: StepProgress): Promise<string[]> {
  const waiting = new Set(temps.map((entry) => entry.documentId));
  const findings: string[] = [];
  const rows = listDocumentFiles(db);
  progress.expect({ totalBytes: rows.reduce((sum, row) => sum + row.size, 0), totalFiles: rows.length });
  for (const row of rows) {
    // Counted as done whatever its outcome, so that a missing file does not hold the bar back.
    progress.advance(0, 1);
    const label = `document ${row.id} of patient ${row.patient_id}`;
    if (!SAFE_ID.test(row.id) || !SAFE_ID.test(row.patient_id)) {
      findings.push(`${label}: its ids cannot name a file under documents/`);
      continue;
    }
    const path = documentFilePath(dataDir, row.patient_id, row.id);
    let digest;
    try {
      digest = await digestFile(path, (bytes) => progress.advance(bytes));
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

/**
 * The audit trail's chain, recomputed whole (verifyAuditTrail), its checkpoints (anchor-trail.ts),
 * and the triggers that keep it append-only: a trail someone could edit or shorten proves
 * nothing, even if it verifies today.
 */
function auditTrailFindings(db: Db, dataDir: string): string[] {
  const findings = missingAuditTriggers(db).map(
    (trigger) => `the audit trail's trigger ${trigger} is missing: its events could be changed or deleted unnoticed by SQLite`,
  );
  try {
    const { last_seq } = verifyAuditTrail(db);
    // A chain that verifies may still have been rewritten whole: its checkpoints say (where this user may read them).
    findings.unshift(...anchorFindings(db, dataDir, last_seq));
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'AUDIT_CHAIN_BROKEN') throw error;
    findings.unshift(`AUDIT_CHAIN_BROKEN at event ${String(error.details.seq)}: ${error.message}`);
  }
  return findings;
}

/** The checks `clinic check` runs, in order. */
export const CHECKS: readonly NamedCheck[] = [
  {
    name: 'permissions',
    description: 'the data directory and its files are closed to other users, and usable by its owner and group',
    needsDatabase: false,
    run: (_db, dataDir) => permissionFindings(dataDir, { documents: true }),
  },
  {
    name: 'tls_files',
    description: "serve's TLS files (tls/) belong to the data directory's owner, keys 0600, and the certificate is not near its expiry",
    needsDatabase: false,
    run: (_db, dataDir) => tlsFindings(dataDir),
  },
  {
    name: 'first_api_key_file',
    description: "the first API key's file was deleted once the key was stored",
    needsDatabase: false,
    run: (_db, dataDir) => firstKeyFileFindings(dataDir),
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
    run: async (db, dataDir, progress) => checkDocumentFiles(db!, dataDir, await listTempFiles(dataDir), progress),
  },
  {
    name: 'purged_document_files',
    description: 'the files of documents purged after an erasure are deleted (clinic serve tries a stubborn one again)',
    needsDatabase: true,
    run: (db, dataDir) =>
      listPurgedDocumentFiles(db!)
        .filter((file) => existsSync(documentFilePath(dataDir, file.patient_id, file.document_id)))
        .map(
          (file) =>
            `${documentFilePath(dataDir, file.patient_id, file.document_id)}: document ${file.document_id} was purged on ${file.purged_at}; its file is still there`,
        ),
  },
  {
    name: 'upload_temp_files',
    description: 'no abandoned upload is left in tmp/',
    needsDatabase: true,
    run: async (db, dataDir) => staleUploadFindings(db!, await listTempFiles(dataDir)),
  },
  {
    name: 'audit_trail',
    description:
      "the audit trail verifies from its first event to its last and against its checkpoints (as the server's user), stays append-only, and has room to grow on its disk",
    needsDatabase: true,
    run: (db, dataDir) => [...auditTrailFindings(db!, dataDir), ...lowDiskFindings(dataDir)],
  },
  {
    name: 'change_feed',
    description: 'the change feed has every event from seq 1 to its last, and stays append-only',
    needsDatabase: true,
    run: (db) => changeFeedFindings(db!),
  },
  {
    name: 'invoice_payments',
    description: "every invoice's amount paid equals its payments less its refunds, and its amount credited its credit notes",
    needsDatabase: true,
    run: (db) =>
      listInvoicePaymentMismatches(db!).flatMap((m) => [
        ...(m.amount_paid_cents === m.payments_cents
          ? []
          : [
              `invoice ${m.invoice_id}: amount paid is ${m.amount_paid_cents} cents, its payments ${m.refunds_cents > 0 ? 'less its refunds ' : ''}add up to ${m.payments_cents} cents`,
            ]),
        ...(m.amount_credited_cents === m.credit_notes_cents
          ? []
          : [
              `invoice ${m.invoice_id}: amount credited is ${m.amount_credited_cents} cents, its credit notes add up to ${m.credit_notes_cents} cents`,
            ]),
      ]),
  },
  {
    name: 'balances_in_several_currencies',
    description: 'patients who owe in more than one currency (a refund reopened an invoice): a note for the front desk, not a fault',
    needsDatabase: true,
    notes: true,
    run: (db) => patientsOwingInSeveralCurrencies(db!).map((patient) => `${patient.patient_number} owes ${owedText(patient.owed)}`),
  },
];

/**
 * Runs every check over a data directory's database and files; nothing is changed. `database` is
 * an open connection or a function that opens one, called only once a check needs it (after the
 * permissions were read: opening changes the files' modes). A check that fails to run (a damaged
 * database, an unreadable file) reports that as its finding, so the others still run and every
 * problem is named.
 */
export async function runChecks(database: Db | (() => Db), dataDir: string, progress?: ProgressListener): Promise<CheckOutcome[]> {
  let db = typeof database === 'function' ? undefined : database;
  let openError: unknown;
  const outcomes: CheckOutcome[] = [];
  const steps = progressSteps(
    progress,
    CHECKS.map((check) => check.name),
  );
  for (const check of CHECKS) {
    const { name, description } = check;
    const step = steps.start(name);
    let findings: string[];
    // A check that could not run fails, one that notes too: nothing was looked at.
    let ran = false;
    try {
      if (check.needsDatabase && db === undefined && openError === undefined) db = (database as () => Db)();
    } catch (error) {
      // Not one finding per check: the checks read this program's schema, and the way on is `clinic upgrade`.
      if (error instanceof AppError && error.code === 'SCHEMA_UPGRADE_REQUIRED') throw error;
      openError = error;
    }
    if (check.needsDatabase && db === undefined) {
      findings = [`not run: the database cannot be opened: ${describeFailure(openError)}`];
    } else {
      try {
        findings = await check.run(db, dataDir, step);
        ran = true;
      } catch (error) {
        findings = [`the check could not finish: ${describeFailure(error)}`];
      }
    }
    const status = findings.length === 0 ? 'ok' : ran && check.notes === true ? 'note' : 'failed';
    outcomes.push({ name, description, status, findings });
  }
  return outcomes;
}

/** Opens the database of `dataDir` when a check first needs it and runs every check; a database that cannot be opened is a finding too. */
export async function checkDataDirectory(dataDir: string, progress?: ProgressListener): Promise<CheckOutcome[]> {
  let db: Db | undefined;
  try {
    return await runChecks(() => (db = openDatabase(dataDir, { olderSchema: 'refuse' })), dataDir, progress);
  } finally {
    db?.close();
  }
}
