import { listTempFiles, moveIntoPlace, removeFile } from '../../db/document-files.js';
import { findDocument } from '../../db/documents.js';
import type { Db } from '../../db/open-database.js';

/**
 * How old an uncommitted temporary file must be before it counts as abandoned. A running
 * `clinic upload-document` may be writing one while the server starts; no upload takes this long.
 */
export const ABANDONED_UPLOAD_AGE_MS = 60 * 60 * 1000;

/** What a recovery did. */
export interface UploadRecovery {
  /** Committed uploads whose file was moved into documents/ now. */
  completed: number;
  /** Abandoned temporary files removed. */
  removed: number;
}

/**
 * Finishes what a crash (kill -9, power cut) left of document uploads. An upload commits its row
 * before it renames tmp/<document_id>.part into place (decisions.md §6), so a crash between the
 * two leaves a row whose file is still in tmp/: that file is moved into place now, as the upload
 * would have. A temporary file without a row is an upload that never committed; it is removed
 * once it is older than ABANDONED_UPLOAD_AGE_MS. Run by `clinic serve` before it listens.
 */
export async function recoverInterruptedUploads(db: Db, dataDir: string, nowMs = Date.now()): Promise<UploadRecovery> {
  const recovery: UploadRecovery = { completed: 0, removed: 0 };
  for (const entry of await listTempFiles(dataDir)) {
    const row = entry.documentId === undefined ? undefined : findDocument(db, entry.documentId);
    if (row !== undefined) {
      await moveIntoPlace(dataDir, entry.path, row.patient_id, row.id);
      recovery.completed++;
    } else if (nowMs - entry.modifiedMs > ABANDONED_UPLOAD_AGE_MS) {
      await removeFile(entry.path);
      recovery.removed++;
    }
  }
  return recovery;
}
