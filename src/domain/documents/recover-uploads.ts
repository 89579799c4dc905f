import { listTempFiles, moveIntoPlace, removeFile, type TempEntry } from '../../db/document-files.js';
import { findDocument } from '../../db/documents.js';
import type { Db } from '../../db/open-database.js';

/**
 * How old a temporary file must be before it counts as abandoned when its name does not say who
 * writes it (the names of older programs). No upload takes this long.
 */
export const ABANDONED_UPLOAD_AGE_MS = 60 * 60 * 1000;

/** What a recovery did. */
export interface UploadRecovery {
  /** Committed uploads whose file was moved into documents/ now. */
  completed: number;
  /** Abandoned temporary files removed. */
  removed: number;
  /** Their bytes. */
  removedBytes: number;
}

/** Whether process `pid` is running (signal 0 tests without sending; EPERM: it runs as another user). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a temporary file without a committed row is left over from an upload that will never
 * finish: its writer is no longer running (or is this very process, which at start-up writes
 * none), or, for a name without a writer, it is older than ABANDONED_UPLOAD_AGE_MS. A file whose
 * writer still runs (a `clinic upload-document` beside the server) is left alone.
 */
export function isAbandonedUpload(entry: TempEntry, nowMs = Date.now()): boolean {
  if (entry.writerPid === undefined) return nowMs - entry.modifiedMs > ABANDONED_UPLOAD_AGE_MS;
  return entry.writerPid === process.pid || !isProcessRunning(entry.writerPid);
}

/**
 * Finishes what a crash (kill -9, power cut) left of document uploads. An upload commits its row
 * before it renames tmp/<document_id>.<pid>.part into place (decisions.md §6), so a crash between
 * the two leaves a row whose file is still in tmp/: that file is moved into place now, as the
 * upload would have. A temporary file without a row is an upload that never committed; it is
 * removed once abandoned (isAbandonedUpload). Run by `clinic serve` before it listens.
 */
export async function recoverInterruptedUploads(db: Db, dataDir: string, nowMs = Date.now()): Promise<UploadRecovery> {
  const recovery: UploadRecovery = { completed: 0, removed: 0, removedBytes: 0 };
  for (const entry of await listTempFiles(dataDir)) {
    const row = entry.documentId === undefined ? undefined : findDocument(db, entry.documentId);
    if (row !== undefined) {
      await moveIntoPlace(dataDir, entry.path, row.patient_id, row.id);
      recovery.completed++;
    } else if (isAbandonedUpload(entry, nowMs)) {
      await removeFile(entry.path);
      recovery.removed++;
      recovery.removedBytes += entry.size;
    }
  }
  return recovery;
}
