import { join, resolve } from 'node:path';
import { acquireInstanceLock, LOCK_FILE } from '../../db/instance-lock.js';
import { errors } from '../../errors.js';
import { requireExistingDatabase } from './data-dir.js';
import { migrate, SCHEMA_VERSION, schemaVersionOf } from '../../db/migrations.js';
import { openDatabase, type Db } from '../../db/open-database.js';
import { nowIso } from '../clock.js';
import { createBackup, type BackupSummary } from './backup.js';
import type { ProgressListener } from './progress.js';

/** The folder of a data directory that holds the backups made before its database was upgraded. */
export const UPGRADE_BACKUPS_DIR = 'upgrade-backups';

/** What `clinic upgrade` (or `serve` meeting an older schema) did. */
export interface UpgradeSummary {
  data_dir: string;
  /** The schema version the database had. */
  schema_version_before: number;
  /** The schema version it has now: this program's. */
  schema_version: number;
  /** False when the database was already up to date: then nothing was written. */
  upgraded: boolean;
  /** The verified backup written before the migration, or null when there was nothing to upgrade. */
  backup: BackupSummary | null;
}

/** What an upgrade is told besides the data directory. */
export interface UpgradeOptions {
  /** Where the backup goes; by default upgrade-backups/clinic-schema-<old>-<UTC time>.tar.gz in the data directory. */
  backupFile?: string;
  /** Told of the backup's steps (the desk's bar). */
  progress?: ProgressListener;
}

/** The default backup of an upgrade from `schemaVersion`: named for the old schema and the UTC moment, no `:` (Windows). */
export function upgradeBackupPath(dataDir: string, schemaVersion: number): string {
  const stamp = nowIso().slice(0, 19).replace(/:/g, '');
  return join(resolve(dataDir), UPGRADE_BACKUPS_DIR, `clinic-schema-${schemaVersion}-${stamp}Z.tar.gz`);
}

/**
 * Brings `db`, the database of `dataDir` opened with `olderSchema: 'keep'`, to this program's
 * schema, writing a verified backup of it as it was first (createBackup: read back against its
 * manifest, fsynced, named only then; the manifest records the old schema version), so that the
 * way back is `clinic restore` of that file. A database already up to date is left untouched.
 * The caller holds the instance lock: no server may run on the directory meanwhile.
 */
export async function upgradeOpenDatabase(db: Db, dataDir: string, options: UpgradeOptions = {}): Promise<UpgradeSummary> {
  const before = schemaVersionOf(db);
  const summary = { data_dir: resolve(dataDir), schema_version_before: before, schema_version: SCHEMA_VERSION };
  // 0 is no schema at all (a new file): nothing an older program made, so nothing to keep.
  if (before === 0 || before === SCHEMA_VERSION) return { ...summary, upgraded: false, backup: null };
  // No data.export event: the archive stays in the data directory's own closed folder (or where
  // the person named), and the old trail is written only by the program that made it.
  const backup = await createBackup(db, dataDir, options.backupFile ?? upgradeBackupPath(dataDir, before), {
    ...(options.progress === undefined ? {} : { progress: options.progress }),
  });
  migrate(db);
  return { ...summary, upgraded: true, backup };
}

/** upgradeOpenDatabase on a connection of its own; a database of a newer schema is refused (DATABASE_TOO_NEW). */
export async function upgradeDatabase(dataDir: string, options: UpgradeOptions = {}): Promise<UpgradeSummary> {
  const db = openDatabase(dataDir, { olderSchema: 'keep' });
  try {
    return await upgradeOpenDatabase(db, dataDir, options);
  } finally {
    db.close();
  }
}

/**
 * `clinic upgrade`: upgradeDatabase while holding the data directory's instance lock, so that no
 * server (of either program) opens the database midway (SERVER_ALREADY_RUNNING while one runs).
 */
export async function upgradeDataDirectory(dataDir: string, options: UpgradeOptions = {}): Promise<UpgradeSummary> {
  requireExistingDatabase(dataDir);
  const lock = acquireInstanceLock(dataDir);
  if (lock === undefined) throw errors.serverAlreadyRunning(resolve(dataDir), LOCK_FILE);
  try {
    return await upgradeDatabase(dataDir, options);
  } finally {
    lock.release();
  }
}
