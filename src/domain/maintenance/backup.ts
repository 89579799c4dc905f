import { existsSync, statfsSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  foreignOwnerOf,
  giveTo,
  HAS_MODES,
  mayChangeModeOf,
  OTHERS_BITS,
  SHARED_FOLDER_MODE,
  type FileOwner,
} from '../../db/file-modes.js';
import { DOCUMENTS_DIR, syncDirectory, syncPath, syncRenamed } from '../../db/document-files.js';
import { backupDatabase, backupDatabaseInSteps, integrityProblems } from '../../db/maintenance.js';
import { storageFault } from '../../db/storage-errors.js';
import { SCHEMA_VERSION, schemaVersionOf } from '../../db/migrations.js';
import { openDatabase, type Db } from '../../db/open-database.js';
import { DATABASE_FILE, ensureDataDirectory } from '../../db/data-directory.js';
import { PROGRAM_VERSION } from '../../version.js';
import { nowIso } from '../clock.js';
import { AppError, errors } from '../../errors.js';
import { fileFailure } from '../../file-failure.js';
import { openNamedFile, readFailure } from '../named-files.js';
import {
  buildManifest,
  CHUNK_BYTES,
  differencesFromManifest,
  digestForManifest,
  fewOf,
  MAX_MANIFEST_BYTES,
  MAX_MANIFEST_ENTRIES,
  extractArchive,
  isArchivablePath,
  MANIFEST_FILE,
  readArchive,
  tarBytes,
  writeArchive,
  type ManifestEntry,
  type TrailHead,
} from './backup-archive.js';
import type { Actor } from '../audit/audit-event.js';
import { appendAuditEvents, DATA_IMPORT } from '../audit/record-audit.js';
import { verifyAuditTrail } from '../audit/verify-audit-trail.js';
import { checkpointTrail, type CheckpointOutcome } from '../audit/anchor-trail.js';
import { auditEventHash, lastAuditEvent } from '../../db/audit-events.js';
import { ZERO_HASH } from '../../db/audit-codec.js';
import { sqliteDriver } from '../../db/drivers/sqlite-driver.js';
import { inTransaction } from '../use-case.js';
import { listFilesUnder } from './data-dir.js';
import { progressSteps, type ProgressListener } from './progress.js';
import { markFeedRestored, readReplacedFeed, type LostFeedPositions } from '../changes/feed-after-restore.js';
import { forgetAllSessions } from '../../db/sessions.js';

/** What `clinic backup` wrote. */
export interface BackupSummary {
  file: string;
  created_at: string;
  bytes: number;
  database_bytes: number;
  documents: number;
}

/** What `clinic restore` put in place. */
export interface RestoreSummary {
  data_dir: string;
  file: string;
  created_at: string;
  program_version: string;
  documents: number;
  /** The change feed's numbers the replaced database handed out, or may have, after the backup (feed-after-restore.ts); null when none. */
  change_feed_lost: LostFeedPositions | null;
}

/** What a restore is told besides the archive and the directory. */
export interface RestoreOptions {
  /** The data directory the restore replaces (moved aside): its change feed's last number is read, nothing in it changed. */
  replaces?: string;
  /** Told what anchoring the restored trail came to: a restore checkpoint written, or why not. */
  anchored?: (outcome: CheckpointOutcome) => void;
  /** Told of each step (RESTORE_STEPS) and of its bytes and files as they go (the desk's bar). */
  progress?: ProgressListener;
  /** Told, when root restored into a data directory of another user, that everything restored was given to that user (foreignOwnerOf). */
  gaveTo?: (owner: FileOwner) => void;
}

/** What may stop a backup midway (a server stopping): its staging folder is removed and nothing is put in place. */
export interface BackupOptions {
  signal?: AbortSignal;
  /**
   * Copy the database in slices, leaving the event loop free in between (the server), through
   * `db`, a connection of its own (backupDatabaseInSteps); by default in one step.
   */
  inSteps?: boolean;
  /**
   * Records the export in the audit trail (data.export) once the archive is named; when it
   * cannot be recorded, the archive is removed again and the backup fails: no copy of the
   * patients' data leaves without its event.
   */
  record?: () => Promise<void>;
  /** Told of each step (BACKUP_STEPS) and of its bytes and files as they go (the desk's bar); the database is then copied in steps. */
  progress?: ProgressListener;
  /** Told what anchoring the backup's trail came to (a checkpoint written, or why not); the backup stands either way. */
  anchored?: (outcome: CheckpointOutcome) => void;
}

/** The steps of a backup, as its progress names them. */
export const BACKUP_STEPS = ['copying the database', 'reading the files', 'writing the archive', 'reading the archive back'] as const;

/** The steps of a restore, as its progress names them. */
export const RESTORE_STEPS = ['unpacking the archive', 'checking the database', 'verifying the audit trail'] as const;

/** The prefix of the staging folder a backup is written in, beside its target: `.clinic-backup-<pid>-XXXXXX`. */
export const BACKUP_STAGING_PREFIX = '.clinic-backup-';

/** A backup folder's failure in words a person can act on, with the system's code. */
const folderFailure = (error: unknown): string => fileFailure(error, 'make folder');

/**
 * Makes the folder a backup goes into, with any missing parent (0700: backups hold patient
 * data), and makes each new folder's name durable in its parent. Refusals name the folder.
 */
async function prepareBackupFolder(folder: string): Promise<void> {
  let firstCreated: string | undefined;
  try {
    firstCreated = await mkdir(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw errors.backupFolderUnusable(folder, folderFailure(error));
  }
  if (firstCreated === undefined) return;
  // Each folder made is an entry of its parent: without these a power cut could lose the folder, and the backup in it.
  for (let made = folder; ; made = dirname(made)) {
    await syncDirectory(dirname(made));
    if (made === firstCreated || dirname(made) === made) break;
  }
}

/**
 * What a failure while the backup was written means for the person who asked: a full disk, an
 * I/O error or a folder gone (any errno, or SQLite's storage faults while copying the database)
 * is BACKUP_FAILED naming the folder, never INTERNAL. Refusals, and a stop asked for, pass through.
 */
function backupFailure(error: unknown, folder: string, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted || error instanceof AppError) return error;
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  const fault = storageFault(error);
  if ((typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) || fault === 'full' || fault === 'failed') {
    return errors.backupFailed(`writing into ${folder} failed: ${folderFailure(error)}`);
  }
  return error;
}

/**
 * Writes a backup of the data directory to `file`: a consistent copy of the database (safe while
 * the server runs) and every document file, with a manifest of their SHA-256s. The folder of
 * `file` is made if it is missing. The archive is written in a staging folder beside `file`,
 * read back and checked against its manifest, fsynced, and only then renamed to its name (and
 * the folder fsynced): a file named `file` is always a complete, verified backup, also after a
 * power cut at any moment. Never overwrites.
 */
export async function createBackup(db: Db, dataDir: string, file: string, options: BackupOptions = {}): Promise<BackupSummary> {
  const { signal } = options;
  signal?.throwIfAborted();
  const target = resolve(file);
  const folder = dirname(target);
  if (existsSync(target)) throw errors.backupFileExists(target);
  await prepareBackupFolder(folder);
  // Beside the target, not in /tmp: the database copy may be large, and a rename must not cross
  // file systems. The pid says whose it is, so that one a crash left behind is known (removeAbandonedStaging).
  let staging: string;
  try {
    staging = await mkdtemp(join(folder, `${BACKUP_STAGING_PREFIX}${process.pid}-`));
  } catch (error) {
    throw errors.backupFolderUnusable(folder, folderFailure(error));
  }
  try {
    const createdAt = nowIso();
    const databaseCopy = join(staging, DATABASE_FILE);
    // The database first, then the documents: a document's file is renamed into place right
    // after its row commits, so the folder read after the snapshot holds the file of every row
    // in it (an upload committed meanwhile only adds a file without a row, which is harmless).
    const steps = progressSteps(options.progress, BACKUP_STEPS);
    const copying = steps.start(BACKUP_STEPS[0]);
    let copied = 0;
    const onStep = (bytes: number, totalBytes: number) => {
      copying.expect({ totalBytes });
      copying.advance(bytes - copied);
      copied = bytes;
    };
    // In steps also where a person watches the copy: one step would show nothing until it is done.
    if (options.inSteps || options.progress !== undefined) await backupDatabaseInSteps(db, databaseCopy, onStep);
    else await backupDatabase(db, databaseCopy);
    signal?.throwIfAborted();
    // Read from the copy itself, before its digest: the trail's end in this very archive, and its
    // schema (older than this program's in the backup `clinic upgrade` makes before it migrates).
    const { schemaVersion, auditHead } = copyFacts(databaseCopy);
    const documentsDir = join(resolve(dataDir), DOCUMENTS_DIR);
    const sources = new Map<string, string>([[DATABASE_FILE, databaseCopy]]);
    // Only what restore takes back: documents/<patient_id>/<document_id>, never a stray deeper file.
    for (const path of await listFilesUnder(documentsDir)) {
      if (isArchivablePath(`${DOCUMENTS_DIR}/${path}`)) sources.set(`${DOCUMENTS_DIR}/${path}`, join(documentsDir, path));
    }
    // What restore would refuse to read is refused here, before anything is written.
    if (sources.size > MAX_MANIFEST_ENTRIES) {
      throw errors.backupFailed(
        `the data directory holds ${sources.size - 1} documents; a backup holds at most ${MAX_MANIFEST_ENTRIES - 1}, as restore reads its list in memory`,
      );
    }
    const sizes =
      options.progress === undefined ? [] : await Promise.all([...sources.values()].map(async (source) => (await stat(source)).size));
    const reading = steps.start(BACKUP_STEPS[1], { totalBytes: sizes.reduce((sum, size) => sum + size, 0), totalFiles: sources.size });
    const entries: ManifestEntry[] = [];
    for (const [path, source] of sources) {
      signal?.throwIfAborted();
      entries.push({ path, ...(await digestForManifest(source, (bytes) => reading.advance(bytes))) });
      reading.advance(0, 1);
    }
    const manifest = buildManifest({
      created_at: createdAt,
      program_version: PROGRAM_VERSION,
      schema_version: schemaVersion,
      entries,
      ...(auditHead === undefined ? {} : { audit_head: auditHead }),
      chunk_size: CHUNK_BYTES,
    });
    const manifestFile = join(staging, MANIFEST_FILE);
    const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
    if (Buffer.byteLength(manifestText) > MAX_MANIFEST_BYTES) {
      throw errors.backupFailed(
        `its ${MANIFEST_FILE} would be ${Buffer.byteLength(manifestText)} bytes, more than the ${MAX_MANIFEST_BYTES} restore reads`,
      );
    }
    await writeFile(manifestFile, manifestText, { mode: 0o600 });

    const archive = join(staging, 'backup.tar.gz');
    const manifestBytes = (await stat(manifestFile)).size;
    const writing = steps.start(BACKUP_STEPS[2], {
      totalBytes: tarBytes([manifestBytes, ...entries.map((entry) => entry.size)]),
      totalFiles: entries.length + 1,
    });
    await writeArchive(archive, manifestFile, sources, signal, writing);
    // A backup that cannot be restored is worse than none: prove it reads back as written.
    const readingBack = steps.start(BACKUP_STEPS[3], { totalBytes: (await stat(archive)).size, totalFiles: entries.length + 1 });
    const written = await readArchive(archive, signal, readingBack);
    const problems = !written.hasManifest ? [`${MANIFEST_FILE} is missing`] : differencesFromManifest(manifest, written.files);
    if (problems.length > 0) throw errors.backupFailed(`the archive did not read back as written: ${fewOf(problems)}`);
    // Its bytes on disk before its name: a power cut after the rename must find the whole file.
    await syncPath(archive);
    signal?.throwIfAborted();
    if (existsSync(target)) throw errors.backupFailed(`${target} appeared while the backup was written; it was left alone`);
    await rename(archive, target);
    await syncRenamed(target);
    await syncDirectory(folder);
    try {
      await options.record?.();
    } catch (error) {
      await rm(target, { force: true });
      throw error;
    }
    if (auditHead !== null && auditHead !== undefined) {
      // The archive's trail anchored (audit-anchor.ts): its end can no longer be cut or rewritten unnoticed.
      const read = <T>(work: () => T) => Promise.resolve().then(work);
      options.anchored?.(await checkpointTrail(read, db, dataDir, { kind: 'backup', head: auditHead, backup_created_at: createdAt }));
    }
    return {
      file: target,
      created_at: createdAt,
      bytes: (await stat(target)).size,
      database_bytes: entries.find((entry) => entry.path === DATABASE_FILE)?.size ?? 0,
      documents: entries.length - 1,
    };
  } catch (error) {
    throw backupFailure(error, folder, signal);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * The schema version of the database file `path` (a backup's copy) and its audit trail's last
 * event (null for an empty trail). A copy of an older schema (the backup `clinic upgrade` makes)
 * has no head: its trail is read by this program only once migrated, which restore does before
 * it verifies the trail, as for a backup an older program made.
 */
function copyFacts(path: string): { schemaVersion: number; auditHead: TrailHead | null | undefined } {
  const copy = sqliteDriver().open(path);
  try {
    const schemaVersion = schemaVersionOf(copy);
    if (schemaVersion < SCHEMA_VERSION) return { schemaVersion, auditHead: undefined };
    const head = lastAuditEvent(copy);
    return { schemaVersion, auditHead: head === undefined ? null : { seq: head.seq, hash: head.hash } };
  } finally {
    copy.close();
  }
}

/**
 * Refuses a restored trail that does not end where the backup's manifest says its trail ended
 * (a clinic.db swapped or cut inside the archive, its SHA-256s computed anew), before the
 * restore's own event is appended. Backups of programs before the head was recorded have none.
 */
function requireTrailHead(db: Db, head: TrailHead | null | undefined): void {
  if (head === undefined) return;
  const last = lastAuditEvent(db);
  const matches = head === null ? last === undefined : last?.seq === head.seq && auditEventHash(db, head.seq) === head.hash;
  if (!matches) {
    throw errors.backupDamaged(
      `it was altered: the audit trail of its ${DATABASE_FILE} ends at event ${last?.seq ?? 0}, not at the event ${MANIFEST_FILE} records (${head === null ? 'none' : `#${head.seq}`})`,
    );
  }
}

/** The free bytes of the file system holding `dir`, or undefined where that cannot be asked. */
function freeBytes(dir: string): number | undefined {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return undefined;
  }
}

/**
 * Restores a backup into `dataDir`, which must be empty or not exist: the archive is extracted
 * without trusting it (extractArchive: only the files its manifest lists, of the sizes and
 * SHA-256s it gives, 0660 and 2770 as in any data directory, owned by the user restoring), and the database must pass
 * integrity_check (and is brought to this program's schema). On any failure the directory is
 * left empty again.
 */
export async function restoreBackup(file: string, dataDir: string, actor: Actor, options: RestoreOptions = {}): Promise<RestoreSummary> {
  const steps = progressSteps(options.progress, RESTORE_STEPS);
  const source = resolve(file);
  const target = resolve(dataDir);
  // Read first, before anything is written: the replaced database as it was left.
  const replaced = options.replaces === undefined ? undefined : readReplacedFeed(resolve(options.replaces));
  let archive;
  try {
    archive = statSync(source);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw errors.backupNotFound(source);
    throw errors.fileUnreadable(source, readFailure(error));
  }
  if (!archive.isFile()) throw errors.backupDamaged(`${source} is not a file`);
  // Opened once before anything is made: an archive this user may not read is refused by name.
  await (await openNamedFile(source)).close();
  // A hostile --data (a file, a link loop, no permission) is refused with its reason.
  ensureDataDirectory(target);
  if ((await readdir(target)).length > 0) throw errors.dataDirectoryNotEmpty(target);
  // Root restoring into the server's directory: what it makes is given to the directory's owner at the end.
  const owner = foreignOwnerOf(target);
  // Patient data goes in: the folder gets the mode of the one `serve` makes, closed to other users.
  if (HAS_MODES) {
    const folder = statSync(target);
    if (mayChangeModeOf(folder.uid)) await chmod(target, SHARED_FOLDER_MODE);
    else if ((folder.mode & OTHERS_BITS) !== 0)
      throw errors.dataDirectoryUnusable(target, 'other users of this computer may enter it, and only its owner may change that');
  }
  try {
    // Extracted inside the data directory (closed to other users) so that no other user can read or swap a file.
    const staging = await mkdtemp(join(target, '.restore-'));
    const unpacking = steps.start(RESTORE_STEPS[0], { totalBytes: archive.size });
    const manifest = await extractArchive(
      source,
      staging,
      (declaredBytes) => {
        const free = freeBytes(staging);
        if (free !== undefined && declaredBytes > free) throw errors.storageFull();
      },
      unpacking,
    );
    await rename(join(staging, DATABASE_FILE), join(target, DATABASE_FILE));
    if (existsSync(join(staging, DOCUMENTS_DIR))) await rename(join(staging, DOCUMENTS_DIR), join(target, DOCUMENTS_DIR));
    await rm(staging, { recursive: true, force: true });
    const db = openDatabase(target);
    let lost: LostFeedPositions | null;
    try {
      steps.start(RESTORE_STEPS[1]);
      const damage = integrityProblems(db);
      if (damage.length > 0) throw errors.backupDamaged(`the restored database fails integrity_check: ${damage.join('; ')}`);
      // A trail that does not verify is refused like a damaged file: restoring it would make the
      // altered history the clinic's own (AUDIT_CHAIN_BROKEN names the first event that fails).
      steps.start(RESTORE_STEPS[2]);
      verifyAuditTrail(db);
      requireTrailHead(db, manifest.audit_head);
      const restoredHead = lastAuditEvent(db);
      inTransaction(db, 'read-then-write', () => {
        appendAuditEvents(db, actor, [DATA_IMPORT]);
        // A restore ends every session (interface 1.3.0): the tokens of the PCs of the clinic the
        // backup was made of are not this one's.
        forgetAllSessions(db);
      });
      // The new data directory's anchor begins with the restore, naming the backup it came from,
      // so that `audit verify` says the trail was restored, not that it was cut.
      const read = <T>(work: () => T) => Promise.resolve().then(work);
      options.anchored?.(
        await checkpointTrail(read, db, target, {
          kind: 'restore',
          restored_from: { created_at: manifest.created_at, seq: restoredHead?.seq ?? 0, hash: restoredHead?.hash ?? ZERO_HASH },
        }),
      );
      // No number of the change feed is handed out twice: those the replaced database may have given are marked lost.
      lost = inTransaction(db, 'read-then-write', () => markFeedRestored(db, replaced, manifest.created_at, nowIso()));
    } finally {
      db.close();
    }
    if (owner !== undefined) {
      // The directory was empty: everything in it now is this restore's.
      for (const entry of await readdir(target)) giveTo(join(target, entry), owner);
      options.gaveTo?.(owner);
    }
    return {
      data_dir: target,
      file: source,
      created_at: manifest.created_at,
      program_version: manifest.program_version,
      documents: manifest.entries.length - 1,
      change_feed_lost: lost,
    };
  } catch (error) {
    // The directory was empty: leave it empty rather than half restored.
    for (const entry of await readdir(target)) await rm(join(target, entry), { recursive: true, force: true });
    throw error;
  }
}
