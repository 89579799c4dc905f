import { open, rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { removeFile, syncDirectory, syncRenamed, writeChunk } from '../db/document-files.js';
import { AppError, errors } from '../errors.js';
import { isSystemError } from '../file-failure.js';
import { writeFailure } from './named-files.js';

/** How a file the desk asked for may be written. */
export interface WriteOptions {
  /** Replace a file already at the target (else 409 FILE_EXISTS, and nothing is written). */
  replace: boolean;
}

/** The temporary file `fill` writes: its handle, and `write`, whose failures are the target's (FILE_UNWRITABLE). */
export interface FileBeingWritten {
  handle: FileHandle;
  /** Writes all of `chunk`. */
  write(chunk: Uint8Array): Promise<void>;
}

/** A failure of the target's own file operations as FILE_UNWRITABLE naming it; refusals and bugs as they are. */
function targetFailure(target: string, error: unknown): unknown {
  if (error instanceof AppError || !isSystemError(error)) return error;
  return errors.fileUnwritable(target, writeFailure(error));
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
 * A failure of the target's disk or folder (no room, no permission, read-only) is FILE_UNWRITABLE
 * naming `target`; what `fill` reads from elsewhere fails as that source fails.
 */
export async function writeFileWhole<T>(
  target: string,
  { replace }: WriteOptions,
  fill: (file: FileBeingWritten) => Promise<T>,
): Promise<T> {
  const onTarget = async <R>(step: () => Promise<R>): Promise<R> => {
    try {
      return await step();
    } catch (error) {
      throw targetFailure(target, error);
    }
  };
  const reserved = replace ? undefined : await onTarget(() => createNew(target));
  await reserved?.close();
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.part`);
  let tempMade = false;
  let written = false;
  try {
    const handle = await onTarget(() => createNew(temp));
    tempMade = true;
    let result: T;
    try {
      result = await fill({ handle, write: (chunk) => onTarget(() => writeChunk(handle, chunk)) });
      await onTarget(() => handle.sync());
    } finally {
      await handle.close();
    }
    await onTarget(() => rename(temp, target));
    written = true;
    await onTarget(() => syncDirectory(dirname(target)));
    await onTarget(() => syncRenamed(target));
    return result;
  } catch (error) {
    if (!written) {
      if (tempMade) await removeFile(temp);
      if (reserved !== undefined) await removeFile(target);
    }
    throw error;
  }
}
