import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { extract, type ReadEntry } from 'tar';
import { DOCUMENTS_DIR, syncDirectory, syncPath, syncRenamed } from '../../db/document-files.js';
import { backupDatabase, integrityProblems } from '../../db/maintenance.js';
import { SCHEMA_VERSION } from '../../db/migrations.js';
import { DATABASE_FILE, openDatabase, type Db } from '../../db/open-database.js';
import { PROGRAM_VERSION } from '../../version.js';
import { nowIso } from '../clock.js';
import { errors } from '../errors.js';
import {
  buildManifest,
  differencesFromManifest,
  MANIFEST_FILE,
  parseManifest,
  readArchive,
  writeArchive,
  type ManifestEntry,
} from './backup-archive.js';
import { digestFile, listFilesUnder, type FileDigest } from './data-dir.js';

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
}

/**
 * Writes a backup of the data directory to `file`: a consistent copy of the database (safe while
 * the server runs) and every document file, with a manifest of their SHA-256s. The archive is
 * read back and checked against its manifest before it is moved into place under its name, so
 * a file named `file` is always a complete, verified backup. Never overwrites.
 */
export async function createBackup(db: Db, dataDir: string, file: string): Promise<BackupSummary> {
  const target = resolve(file);
  if (existsSync(target)) throw errors.backupFileExists(target);
  // Beside the target, not in /tmp: the database copy may be large, and a rename must not cross file systems.
  const staging = await mkdtemp(join(dirname(target), '.clinic-backup-'));
  try {
    const createdAt = nowIso();
    const databaseCopy = join(staging, DATABASE_FILE);
    // The database first, then the documents: a document's file is renamed into place right
    // after its row commits, so the folder read after the snapshot holds the file of every row
    // in it (an upload committed meanwhile only adds a file without a row, which is harmless).
    await backupDatabase(db, databaseCopy);
    const documentsDir = join(resolve(dataDir), DOCUMENTS_DIR);
    const sources = new Map<string, string>([[DATABASE_FILE, databaseCopy]]);
    for (const path of await listFilesUnder(documentsDir)) sources.set(`${DOCUMENTS_DIR}/${path}`, join(documentsDir, path));
    const entries: ManifestEntry[] = [];
    for (const [path, source] of sources) entries.push({ path, ...(await digestFile(source)) });
    const manifest = buildManifest({ created_at: createdAt, program_version: PROGRAM_VERSION, schema_version: SCHEMA_VERSION, entries });
    const manifestFile = join(staging, MANIFEST_FILE);
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });

    const archive = join(staging, 'backup.tar.gz');
    await writeArchive(archive, manifestFile, sources);
    // A backup that cannot be restored is worse than none: prove it reads back as written.
    const written = await readArchive(archive);
    const problems = !written.hasManifest ? [`${MANIFEST_FILE} is missing`] : differencesFromManifest(manifest, written.files);
    if (problems.length > 0) throw errors.backupFailed(`the archive did not read back as written: ${problems.join('; ')}`);
    await syncPath(archive);
    if (existsSync(target)) throw errors.backupFailed(`${target} appeared while the backup was written; it was left alone`);
    await rename(archive, target);
    await syncRenamed(target);
    await syncDirectory(dirname(target));
    return {
      file: target,
      created_at: createdAt,
      bytes: (await stat(target)).size,
      database_bytes: entries.find((entry) => entry.path === DATABASE_FILE)?.size ?? 0,
      documents: entries.length - 1,
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Restores a backup into `dataDir`, which must be empty or not exist: every file is extracted,
 * checked against the manifest's SHA-256, and the database must pass integrity_check (and is
 * brought to this program's schema). On any failure the directory is left empty again.
 */
export async function restoreBackup(file: string, dataDir: string): Promise<RestoreSummary> {
  const source = resolve(file);
  const target = resolve(dataDir);
  if (!existsSync(source)) throw errors.backupNotFound(source);
  if (existsSync(target) && (await readdir(target)).length > 0) {
    throw errors.dataDirectoryNotEmpty(target);
  }
  await mkdir(target, { recursive: true, mode: 0o700 });
  try {
    // Extracted inside the data directory (mode 0700) so that no other user can read or swap a file.
    const staging = await mkdtemp(join(target, '.restore-'));
    await extract({
      file: source,
      cwd: staging,
      // Warnings (a path with `..`, an absolute path, a damaged header) are errors here.
      strict: true,
      // Only regular files: a symlink or device in a backup is never restored.
      filter: (_path, entry) => (entry as ReadEntry).type === 'File',
      // The folders of documents/ are made on the way (no folder entries are taken): 0700 like the
      // ones `serve` makes, not tar's 0755, so no other user lists a patient's documents.
      dmode: 0o700,
    });
    const manifest = parseManifest(
      existsSync(join(staging, MANIFEST_FILE)) ? await readFile(join(staging, MANIFEST_FILE), 'utf8') : undefined,
    );
    const found = new Map<string, FileDigest>();
    for (const path of await listFilesUnder(staging)) {
      if (path !== MANIFEST_FILE) found.set(path, await digestFile(join(staging, path)));
    }
    const problems = differencesFromManifest(manifest, found);
    if (problems.length > 0) throw errors.backupDamaged(`it is damaged or was altered: ${problems.join('; ')}`);

    await rename(join(staging, DATABASE_FILE), join(target, DATABASE_FILE));
    if (existsSync(join(staging, DOCUMENTS_DIR))) await rename(join(staging, DOCUMENTS_DIR), join(target, DOCUMENTS_DIR));
    await rm(staging, { recursive: true, force: true });
    const db = openDatabase(target);
    try {
      const damage = integrityProblems(db);
      if (damage.length > 0) throw errors.backupDamaged(`the restored database fails integrity_check: ${damage.join('; ')}`);
    } finally {
      db.close();
    }
    return {
      data_dir: target,
      file: source,
      created_at: manifest.created_at,
      program_version: manifest.program_version,
      documents: manifest.entries.length - 1,
    };
  } catch (error) {
    // The directory was empty: leave it empty rather than half restored.
    for (const entry of await readdir(target)) await rm(join(target, entry), { recursive: true, force: true });
    throw error;
  }
}
