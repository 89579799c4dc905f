import { open, type FileHandle } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { errors } from '../errors.js';
import { fileFailure } from '../file-failure.js';

// Files the desk is given by name (`upload-document --file`, `create-patient --file`, `restore
// FILE`) or asked to write (`document save`, `audit export`): whatever stops one, it is refused
// with FILE_UNREADABLE or FILE_UNWRITABLE naming the file and, in words, why. A file this user
// may not read is said to be that, never "damaged", "not JSON" or a stack trace.

/** Why a named file could not be read, for the person who named it. */
export const readFailure = (error: unknown): string =>
  fileFailure(error, 'read', 'give that user read access to it, or copy it where they may');

/** Why a named file could not be written in its folder, for the person who named it. */
export const writeFailure = (error: unknown): string => fileFailure(error, 'write');

/** Opens a file the desk was given for reading, or FILE_UNREADABLE naming it and why. */
export async function openNamedFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    throw errors.fileUnreadable(path, readFailure(error));
  }
}

/** The bytes of a file the desk was given, or FILE_UNREADABLE naming it and why. */
export function readNamedFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw errors.fileUnreadable(path, readFailure(error));
  }
}

/**
 * The bytes of an opened file the desk was given, as a stream that closes it at its end; a read
 * that fails midway (a disk error, a file on a share that went away) is FILE_UNREADABLE naming it.
 */
export async function* chunksOfNamedFile(file: FileHandle, path: string): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of file.createReadStream() as AsyncIterable<Uint8Array>) yield chunk;
  } catch (error) {
    throw errors.fileUnreadable(path, readFailure(error));
  }
}
