import { isAbsolute, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { BackupScheduleConfig } from '../server/workers/backup-schedule.js';
import { DURATION_FORM, durationMsOf } from '../domain/durations.js';
import { optionOrEnv } from './env-options.js';

/** `serve`'s backup options as commander parsed them. */
export interface BackupOptions {
  backupDir?: string;
  backupEvery?: number;
  backupKeep?: number;
}

/** Once a day, the newest week kept: what a clinic asks of a nightly backup. */
export const DEFAULT_BACKUP_EVERY = '24h';
export const DEFAULT_BACKUP_KEEP = 7;

const DAY_MS = 86_400_000;
const LONGEST_INTERVAL_MS = 366 * DAY_MS;
const MOST_KEPT = 10_000;

/** A `--backup-every` value: a duration (durationMsOf: `24h`, `30m`, `1h30m`, `3s`) from 1s to 366d. */
export function parseInterval(text: string): number {
  const ms = durationMsOf(text);
  if (ms === undefined) throw new InvalidArgumentError(`expected ${DURATION_FORM}`);
  if (ms < 1000) throw new InvalidArgumentError('the interval must be at least 1s');
  if (ms > LONGEST_INTERVAL_MS) throw new InvalidArgumentError('the interval may be at most 366d');
  return ms;
}

/** A `--backup-dir` value: any folder, but not nothing (which would be the working directory). */
export function parseFolder(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('expected a folder');
  return text;
}

/** A `--backup-keep` value: how many of the schedule's archives to keep, 1 or more. */
export function parseKeep(text: string): number {
  const keep = Number(text);
  if (!/^\d+$/.test(text) || keep < 1 || keep > MOST_KEPT) throw new InvalidArgumentError(`expected a whole number from 1 to ${MOST_KEPT}`);
  return keep;
}

/**
 * The backup schedule `serve` was asked for: `--backup-dir` (CLINIC_BACKUP_DIR) switches it on;
 * `--backup-every` (CLINIC_BACKUP_EVERY) and `--backup-keep` (CLINIC_BACKUP_KEEP) without it are
 * a usage error, as is a folder inside the data directory, which a lost disk would take with it.
 */
export function resolveBackupSchedule(command: Command, options: BackupOptions, dataDir: string): BackupScheduleConfig | undefined {
  const dir = optionOrEnv<string | undefined>(command, options.backupDir, 'CLINIC_BACKUP_DIR', parseFolder, undefined);
  const everyMs = optionOrEnv<number | undefined>(command, options.backupEvery, 'CLINIC_BACKUP_EVERY', parseInterval, undefined);
  const keep = optionOrEnv<number | undefined>(command, options.backupKeep, 'CLINIC_BACKUP_KEEP', parseKeep, undefined);
  if (dir === undefined) {
    if (everyMs !== undefined || keep !== undefined) {
      const given = everyMs !== undefined ? '--backup-every (or CLINIC_BACKUP_EVERY)' : '--backup-keep (or CLINIC_BACKUP_KEEP)';
      command.error(`error: ${given} needs --backup-dir DIR (or CLINIC_BACKUP_DIR): the folder the backups are written to`, {
        exitCode: 2,
      });
    }
    return undefined;
  }
  const backupDir = resolve(dir);
  const inside = relative(dataDir, backupDir);
  if (inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside))) {
    command.error(
      `error: --backup-dir ${backupDir} is inside the data directory ${dataDir}: a backup must survive losing it; choose a folder outside, ideally on another disk`,
      { exitCode: 2 },
    );
  }
  return { backupDir, everyMs: everyMs ?? parseInterval(DEFAULT_BACKUP_EVERY), keep: keep ?? DEFAULT_BACKUP_KEEP };
}
