import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The second store beside SQLite: document bytes as files in the data directory. Uploads are
 * written under tmp/ and renamed into documents/<patient_id>/<document_id>; both live in the data
 * directory, so they share a file system and the rename is atomic. Names on disk are ids only,
 * never anything a client chose.
 */

const TEMP_DIR = 'tmp';
const DOCUMENTS_DIR = 'documents';

/** An upload being written: its path and an open handle. */
export interface TempFile {
  path: string;
  handle: FileHandle;
}

/** The directory uploads are written to before they are committed. */
export function tempDirectory(dataDir: string): string {
  return join(dataDir, TEMP_DIR);
}

/** Where a committed document's bytes live. Both ids are validated UUIDs, so this stays inside the data directory. */
export function documentFilePath(dataDir: string, patientId: string, documentId: string): string {
  return join(dataDir, DOCUMENTS_DIR, patientId, documentId);
}

/** Creates a new, empty temporary file readable by this user only. */
export async function createTempFile(dataDir: string): Promise<TempFile> {
  const directory = tempDirectory(dataDir);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, `upload-${randomUUID()}.part`);
  return { path, handle: await open(path, 'wx', 0o600) };
}

/** Writes all of `chunk`; a regular file may take fewer bytes per call than offered. */
export async function writeChunk(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/** Removes a file if it is there; a file already gone is not an error. */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** fsyncs a file or a directory: makes its content, or an entry just created or renamed in it, survive a power cut. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Renames a fsynced temporary file to its final place and fsyncs the directories whose entries
 * changed. If any step after the rename fails, the file is removed again, so the caller can
 * treat a failure as "nothing was put in place".
 */
export async function moveIntoPlace(dataDir: string, tempPath: string, patientId: string, documentId: string): Promise<void> {
  const target = documentFilePath(dataDir, patientId, documentId);
  const documentsDir = join(dataDir, DOCUMENTS_DIR);
  const patientDir = join(documentsDir, patientId);
  // mkdir returns the first directory it had to create; each new directory is an entry of its parent.
  const firstCreated = await mkdir(patientDir, { recursive: true, mode: 0o700 });
  await rename(tempPath, target);
  try {
    await syncPath(patientDir);
    if (firstCreated !== undefined) await syncPath(documentsDir);
    if (firstCreated === documentsDir) await syncPath(dataDir);
  } catch (error) {
    await removeFile(target);
    throw error;
  }
}
