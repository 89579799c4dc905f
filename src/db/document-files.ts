import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { errors } from '../errors.js';
import { HAS_MODES, makeSharedFolder, SHARED_FILE_MODE } from './file-modes.js';
import { NO_FOLLOW } from './data-directory.js';

/**
 * The second store beside SQLite: document bytes as files in the data directory. Uploads are
 * written to tmp/<document_id>.part and renamed into documents/<patient_id>/<document_id>; both
 * live in the data directory, so they share a file system and the rename is atomic. Names on disk
 * are ids only, never anything a client chose. Because the temporary name carries the document
 * id, an upload interrupted between committing its row and the rename can be finished later
 * (src/domain/documents/recover-uploads.ts); because it carries the process id of its writer,
 * a temporary file whose writer is gone is known to be abandoned, however young it is.
 */

const TEMP_DIR = 'tmp';
/** The folder of a data directory that holds the document files (decisions.md §6). */
export const DOCUMENTS_DIR = 'documents';
const TEMP_SUFFIX = '.part';

/** `<document id>.<writer pid>.part`; older programs wrote `<document id>.part`. */
const TEMP_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\.(\d+))?\.part$/;

/** An upload being written: its path and an open handle. */
export interface TempFile {
  path: string;
  handle: FileHandle;
}

/** The directory uploads are written to before they are committed. */
function tempDirectory(dataDir: string): string {
  return join(dataDir, TEMP_DIR);
}

/**
 * Refuses a folder of the data directory (tmp/, documents/, a patient's) that is a symbolic link
 * or no folder: followed, a link planted by whoever can write the data directory would have
 * uploads written, moved or (as abandoned) removed in a folder of its choosing. `refusal` is the
 * error to throw: the server answers 500 STORAGE_FAILED (logged); `serve` and `check` name it.
 */
async function requireRealFolder(path: string, refusal: (target: string) => Error): Promise<void> {
  let info;
  try {
    info = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (info.isDirectory()) return;
  throw refusal(info.isSymbolicLink() ? await readlink(path) : 'no folder');
}

/** Where a committed document's bytes live. Both ids are validated UUIDs, so this stays inside the data directory. */
export function documentFilePath(dataDir: string, patientId: string, documentId: string): string {
  return join(dataDir, DOCUMENTS_DIR, patientId, documentId);
}

/** What opening a stored document's file meets when it is missing, or something else stands in its place. */
const MISSING_OR_REPLACED = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

/**
 * Opens a committed document's file for reading without following a link: documents/, the
 * patient's folder and the file must be what this program made (a folder, a folder, a regular
 * file). A link planted there by whoever can write the data directory would otherwise serve any
 * file this user can read (/etc/shadow when run as root) to a client. Such a file, like a
 * missing one, is 500 STORAGE_FAILED (logged), and `clinic check` names it.
 */
export async function openDocumentFile(dataDir: string, patientId: string, documentId: string): Promise<FileHandle> {
  let file: FileHandle;
  try {
    for (const folder of [join(dataDir, DOCUMENTS_DIR), join(dataDir, DOCUMENTS_DIR, patientId)]) {
      if (!(await lstat(folder)).isDirectory()) throw errors.storageFailed();
    }
    file = await open(documentFilePath(dataDir, patientId, documentId), constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    // A stored document's file gone, or a link in its place: the storage failed it, not the program.
    if (MISSING_OR_REPLACED.has((error as NodeJS.ErrnoException).code ?? '')) throw errors.storageFailed();
    throw error;
  }
  try {
    if (!(await file.stat()).isFile()) throw errors.storageFailed();
  } catch (error) {
    await file.close();
    throw error;
  }
  return file;
}

/** Where this process writes the upload of document `documentId` before it is put in place. */
export function tempFilePath(dataDir: string, documentId: string): string {
  return join(tempDirectory(dataDir), `${documentId}.${process.pid}${TEMP_SUFFIX}`);
}

/**
 * Creates the new, empty temporary file of document `documentId`, 0660 whatever the umask
 * (file-modes.ts): it becomes the document file by a rename, and the server and desk staff both
 * serve documents, whoever uploaded them.
 */
export async function createTempFile(dataDir: string, documentId: string): Promise<TempFile> {
  await requireRealFolder(tempDirectory(dataDir), () => errors.storageFailed());
  await makeSharedFolder(tempDirectory(dataDir));
  const path = tempFilePath(dataDir, documentId);
  const handle = await open(path, 'wx', SHARED_FILE_MODE);
  try {
    if (HAS_MODES) await handle.chmod(SHARED_FILE_MODE);
  } catch (error) {
    await handle.close();
    await removeFile(path);
    throw error;
  }
  return { path, handle };
}

/**
 * Makes a written temporary file durable and closes it: its bytes, and its name in tmp/, so that
 * after a power cut a committed row never names a temporary file that is gone.
 */
export async function persistTempFile(dataDir: string, temp: TempFile): Promise<void> {
  await temp.handle.sync();
  await temp.handle.close();
  await syncDirectory(tempDirectory(dataDir));
}

/** A file left in tmp/: the document id and writer its name carries (undefined if none), its size and when it was last written. */
export interface TempEntry {
  path: string;
  documentId: string | undefined;
  writerPid: number | undefined;
  size: number;
  modifiedMs: number;
}

/** Every file in tmp/, e.g. uploads that a crash interrupted; none when there is no tmp/. */
export async function listTempFiles(dataDir: string): Promise<TempEntry[]> {
  const directory = tempDirectory(dataDir);
  await requireRealFolder(directory, (target) => errors.dataDirectoryUnsafe(directory, target));
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: TempEntry[] = [];
  for (const name of names.sort()) {
    const path = join(directory, name);
    let info;
    try {
      // lstat: a link planted in tmp/ is no upload, and is neither moved nor removed.
      info = await lstat(path);
      if (!info.isFile()) continue;
    } catch (error) {
      // Finished or removed by its upload meanwhile.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const [, documentId, pid] = TEMP_NAME.exec(name) ?? [];
    entries.push({ path, documentId, writerPid: pid === undefined ? undefined : Number(pid), size: info.size, modifiedMs: info.mtimeMs });
  }
  return entries;
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

/** fsyncs a file: makes its content survive a power cut. */
export async function syncPath(path: string): Promise<void> {
  // Windows flushes (FlushFileBuffers) only a handle open for writing; nothing is written.
  const handle = await open(path, process.platform === 'win32' ? 'r+' : 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * fsyncs a directory: makes an entry just created or renamed in it survive a power cut. Windows
 * cannot open a directory to flush it (EISDIR) and needs no such step: NTFS journals a rename,
 * and flushing the renamed file (syncRenamed) flushes that journal up to it, as SQLite relies on.
 */
export async function syncDirectory(path: string): Promise<void> {
  if (process.platform !== 'win32') await syncPath(path);
}

/** After renaming `path` into place: on Windows its flush is what makes the rename durable (syncDirectory). */
export async function syncRenamed(path: string): Promise<void> {
  if (process.platform === 'win32') await syncPath(path);
}

/** Whether a file exists at `path`. */
async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
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
  await requireRealFolder(documentsDir, () => errors.storageFailed());
  await requireRealFolder(patientDir, () => errors.storageFailed());
  // mkdir returns the first directory it had to create; each new directory is an entry of its parent.
  const firstCreated = await makeSharedFolder(patientDir);
  try {
    await rename(tempPath, target);
  } catch (error) {
    // A server starting meanwhile may have finished this committed upload already (recover-uploads.ts).
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && (await exists(target))) return;
    throw error;
  }
  try {
    await syncRenamed(target);
    await syncDirectory(patientDir);
    if (firstCreated !== undefined) await syncDirectory(documentsDir);
    if (firstCreated === documentsDir) await syncDirectory(dataDir);
  } catch (error) {
    await removeFile(target);
    throw error;
  }
}
