import { open, rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { removeFile, syncDirectory, syncRenamed } from '../db/document-files.js';
import { errors } from './errors.js';

/** How a file the desk asked for may be written. */
export interface WriteOptions {
  /** Replace a file already at the target (else 409 FILE_EXISTS, and nothing is written). */
  replace: boolean;
}

/** Creates `path` anew, or says it is there: the reservation of a name that must not be taken twice. */
async function createNew(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw errors.fileExists(path);
    throw error;
  }
}

/**
 * Writes a file of patient data at `target` (an absolute path in a folder that exists) whole or
 * not at all: `fill` writes a temporary file beside it, which is fsynced and only then renamed
 * to `target`. A file replaced with `replace` is kept until its replacement is whole. Without
 * `replace` the target's name is taken first, exclusively (409 FILE_EXISTS if it is there), so
 * a file made meanwhile is never overwritten. Readable by this user only, as the data directory is.
 */
export async function writeFileWhole<T>(target: string, { replace }: WriteOptions, fill: (file: FileHandle) => Promise<T>): Promise<T> {
  const reserved = replace ? undefined : await createNew(target);
  await reserved?.close();
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.part`);
  let tempMade = false;
  let written = false;
  try {
    const file = await createNew(temp);
    tempMade = true;
    let result: T;
    try {
      result = await fill(file);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
    written = true;
    await syncDirectory(dirname(target));
    await syncRenamed(target);
    return result;
  } catch (error) {
    if (!written) {
      if (tempMade) await removeFile(temp);
      if (reserved !== undefined) await removeFile(target);
    }
    throw error;
  }
}
