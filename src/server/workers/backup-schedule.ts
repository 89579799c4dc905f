import { join } from 'node:path';
import { classifyError } from '../../domain/classify-error.js';
import {
  listScheduledBackups,
  removeAbandonedStaging,
  scheduledBackupName,
  writeScheduledBackup,
} from '../../domain/maintenance/scheduled-backups.js';
import type { Logger } from '../../logger.js';
import { logCheckpoint } from './audit-checkpoints.js';

/** What `serve --backup-dir` was asked to do. */
export interface BackupScheduleConfig {
  /** An absolute path. */
  backupDir: string;
  everyMs: number;
  keep: number;
}

/**
 * The schedule's state, as the server holds it for whoever asks (the coming `GET /health`):
 * times in UTC ISO 8601, null when there is none yet.
 */
export interface BackupScheduleStatus {
  backup_dir: string;
  every_seconds: number;
  keep: number;
  /** Whether a backup is being written now. */
  running: boolean;
  /** The newest archive of the schedule: at start the newest found in the folder. */
  last_success_at: string | null;
  last_success_file: string | null;
  last_failure_at: string | null;
  last_failure_message: string | null;
  /** Failures since the last success; 0 after a success. */
  consecutive_failures: number;
  next_due_at: string | null;
}

/** A running schedule. */
export interface BackupSchedule {
  status(): BackupScheduleStatus;
  /** Stops a backup being written (its staging folder is removed, nothing is named) and the timer; no backup starts afterwards. */
  stop(): Promise<void>;
}

/** The first retry after a failure; each further one waits twice as long, up to RETRY_MAX_MS, and never longer than the interval. */
const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 60 * 60_000;
/** setTimeout's longest delay (about 24.8 days); a longer wait is slept in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** How long to wait after the `failures`-th failure in a row. */
export function retryDelayMs(failures: number, everyMs: number): number {
  return Math.min(everyMs, RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(failures - 1, 20));
}

/**
 * Writes a verified backup every `everyMs` in the background of `clinic serve`, keeping the
 * newest `keep`. The first is due at start unless the folder already holds one of the
 * schedule's archives younger than the interval (a restart does not add a backup or shift the
 * schedule). Backups never overlap; one that fails is logged and tried again after a back-off,
 * and nothing here can stop the server. The backup folder may be missing or broken at start
 * (a USB disk not yet mounted): that is a failure like any other, retried.
 */
export async function startBackupSchedule(
  dataDir: string,
  config: BackupScheduleConfig,
  logger: Logger,
  /** Records each backup in the audit trail (data.export), through the server's connection. */
  record: () => Promise<void>,
): Promise<BackupSchedule> {
  const { backupDir, everyMs, keep } = config;
  const newest = (await listScheduledBackups(backupDir)).at(-1);
  const state: BackupScheduleStatus = {
    backup_dir: backupDir,
    every_seconds: everyMs / 1000,
    keep,
    running: false,
    last_success_at: newest?.takenAt.toISOString() ?? null,
    last_success_file: newest?.name ?? null,
    last_failure_at: null,
    last_failure_message: null,
    consecutive_failures: 0,
    next_due_at: null,
  };
  const aborter = new AbortController();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();

  // A clock set back must not postpone the next backup by more than one interval.
  const firstDue = newest === undefined ? Date.now() : Math.min(newest.takenAt.getTime() + everyMs, Date.now() + everyMs);

  const runBackup = async () => {
    const started = new Date();
    state.running = true;
    state.next_due_at = null;
    // Said as it starts: a backup of a few hundred MB takes a minute, and its end alone left the log silent meanwhile.
    logger.info({ event: 'backup_started', file: join(backupDir, scheduledBackupName(started)) });
    try {
      await removeAbandonedStaging(backupDir);
      const { summary, removed, rotationFailure } = await writeScheduledBackup(dataDir, backupDir, keep, {
        now: started,
        signal: aborter.signal,
        record,
        anchored: (outcome) => logCheckpoint(logger, outcome, dataDir),
      });
      state.last_success_at = summary.created_at;
      state.last_success_file = summary.file;
      state.consecutive_failures = 0;
      logger.info({
        event: 'backup_written',
        file: summary.file,
        bytes: summary.bytes,
        documents: summary.documents,
        duration_ms: Date.now() - started.getTime(),
        removed,
      });
      if (rotationFailure !== undefined) logger.error({ event: 'backup_rotation_failed', backup_dir: backupDir, error: rotationFailure });
      return Math.max(started.getTime() + everyMs, Date.now());
    } catch (error) {
      if (aborter.signal.aborted) return undefined;
      const refusal = classifyError(error);
      const message = refusal?.message ?? (error instanceof Error ? error.message : String(error));
      state.last_failure_at = new Date().toISOString();
      state.last_failure_message = message;
      state.consecutive_failures += 1;
      const retryAt = Date.now() + retryDelayMs(state.consecutive_failures, everyMs);
      logger.error({
        event: 'backup_failed',
        backup_dir: backupDir,
        code: refusal && 'code' in refusal ? refusal.code : 'INTERNAL',
        error: message,
        consecutive_failures: state.consecutive_failures,
        retry_at: new Date(retryAt).toISOString(),
      });
      return retryAt;
    } finally {
      state.running = false;
    }
  };

  const scheduleAt = (dueMs: number | undefined) => {
    if (stopped || dueMs === undefined) return;
    state.next_due_at = new Date(dueMs).toISOString();
    const wait = () => {
      const remaining = dueMs - Date.now();
      if (remaining > 0) {
        timer = setTimeout(wait, Math.min(remaining, LONGEST_TIMER_MS));
        return;
      }
      pass = runBackup().then(scheduleAt);
    };
    wait();
  };

  logger.info({
    event: 'backups',
    backup_dir: backupDir,
    every_seconds: everyMs / 1000,
    keep,
    next_due_at: new Date(firstDue).toISOString(),
  });
  scheduleAt(firstDue);
  return {
    status: () => ({ ...state }),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      aborter.abort();
      await pass;
      state.next_due_at = null;
    },
  };
}
