import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { removeFile, syncDirectory } from '../../db/document-files.js';
import { openDatabase } from '../../db/open-database.js';
import { isProcessRunning } from '../documents/recover-uploads.js';
import { BACKUP_STAGING_PREFIX, createBackup, type BackupSummary } from './backup.js';
import { describeFailure } from './failure-text.js';
import type { CheckpointOutcome } from '../audit/anchor-trail.js';

/**
 * The backups `clinic serve --backup-dir` writes on its schedule: named for the moment they were
 * taken, in UTC, so that they sort by time and are known as the schedule's own
 * (`clinic-2026-11-26T030000Z.tar.gz`). Rotation counts and removes only files of exactly that
 * name, never anything else IT keeps in the folder. Every such file is complete: createBackup
 * gives an archive its name only after it was verified and fsynced.
 */

/** `clinic-YYYY-MM-DDTHHMMSSZ.tar.gz`: no `:`, which Windows forbids in a name. */
const SCHEDULED_NAME = /^clinic-(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})(\d{2})Z\.tar\.gz$/;

/** A staging folder of createBackup: `.clinic-backup-<pid>-XXXXXX`. */
const STAGING_NAME = new RegExp(`^${BACKUP_STAGING_PREFIX.replace(/\./g, '\\.')}(\\d+)-[A-Za-z0-9]{6}$`);

/** One archive of the schedule found in the backup folder. */
export interface ScheduledBackup {
  name: string;
  /** When it was taken (from its name). */
  takenAt: Date;
}

/** What one scheduled backup did. */
export interface ScheduledBackupResult {
  summary: BackupSummary;
  /** The names of the old archives removed, beyond `keep`. */
  removed: string[];
  /** Why old archives could not all be removed; the new backup stands regardless. */
  rotationFailure?: string;
}

/** The name of the scheduled backup taken at `at`. */
export function scheduledBackupName(at: Date): string {
  const [date, time] = at.toISOString().split('T') as [string, string];
  return `clinic-${date}T${time.slice(0, 8).replace(/:/g, '')}Z.tar.gz`;
}

/** The schedule's archives in `backupDir`, oldest first; none when the folder is missing or unreadable. */
export async function listScheduledBackups(backupDir: string): Promise<ScheduledBackup[]> {
  let names: string[];
  try {
    names = await readdir(backupDir);
  } catch {
    return [];
  }
  const found: ScheduledBackup[] = [];
  for (const name of names.sort()) {
    const parts = SCHEDULED_NAME.exec(name);
    if (parts === null) continue;
    const [, year, month, day, hour, minute, second] = parts;
    const takenAt = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
    if (Number.isNaN(takenAt.getTime())) continue;
    try {
      // A folder or a link of that name is not an archive the schedule wrote.
      if (!(await lstat(join(backupDir, name))).isFile()) continue;
    } catch {
      continue;
    }
    found.push({ name, takenAt });
  }
  return found;
}

/**
 * Removes the staging folders of backups that will never finish (their writer was killed, or
 * the power cut): those whose pid no longer runs, or is this process, which starts none before
 * calling this. A `clinic backup` running beside the server keeps its own.
 */
export async function removeAbandonedStaging(backupDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(backupDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = STAGING_NAME.exec(name)?.[1];
    if (pid === undefined || (Number(pid) !== process.pid && isProcessRunning(Number(pid)))) continue;
    await rm(join(backupDir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Writes one scheduled backup of `dataDir` into `backupDir` (createBackup: verified, fsynced,
 * then named), then removes the oldest of the schedule's archives so that `keep` remain, the new
 * one always among them. The database is copied through a connection of its own, so the copy
 * holds committed data only, never a commit group still open on the server's connection, and in
 * slices, so the server goes on answering while it is made.
 */
export async function writeScheduledBackup(
  dataDir: string,
  backupDir: string,
  keep: number,
  options: { now: Date; signal?: AbortSignal; record?: () => Promise<void>; anchored?: (outcome: CheckpointOutcome) => void },
): Promise<ScheduledBackupResult> {
  const name = scheduledBackupName(options.now);
  // Fails rather than waits on a lock: the server's event loop must not block.
  const db = openDatabase(dataDir, { busyWait: 'fail' });
  let summary: BackupSummary;
  try {
    summary = await createBackup(db, dataDir, join(backupDir, name), {
      signal: options.signal,
      inSteps: true,
      ...(options.record === undefined ? {} : { record: options.record }),
      ...(options.anchored === undefined ? {} : { anchored: options.anchored }),
    });
  } finally {
    db.close();
  }
  const others = (await listScheduledBackups(backupDir)).filter((backup) => backup.name !== name);
  // Newest first by the time in the name; the one just written is kept whatever the clock did.
  const surplus = others.reverse().slice(Math.max(keep - 1, 0));
  const removed: string[] = [];
  try {
    for (const old of surplus) {
      await removeFile(join(backupDir, old.name));
      removed.push(old.name);
    }
    if (removed.length > 0) await syncDirectory(backupDir);
  } catch (error) {
    // Not a failed backup: retrying it would only add archives to a folder that keeps them all.
    return { summary, removed, rotationFailure: describeFailure(error) };
  }
  return { summary, removed };
}
