import { open, type FileHandle } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { errors } from '../errors.js';

// Files the desk is given by name (`upload-document --file`, `create-patient --file`, `restore
// FILE`) or asked to write (`document save`, `audit export`): whatever stops one, it is refused
// with FILE_UNREADABLE or FILE_UNWRITABLE naming the file and, in words, why. A file this user
// may not read is said to be that, never "damaged", "not JSON" or a stack trace.

/** The system's words and code for a failure no case below names. */
function systemWords(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code === undefined ? String(message) : `${message} (${code})`;
}

/** Why a file could not be read, in words for the person who named it, with the system's code. */
export function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'there is no such file (ENOENT)';
    case 'EACCES':
    case 'EPERM':
      return `the user running clinic may not read it (${code}); give that user read access to it, or copy it where they may`;
    case 'EISDIR':
      return 'it is a folder, not a file (EISDIR)';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder (ENOTDIR)';
    case 'ELOOP':
      return 'it is a symbolic link that leads round in a loop (ELOOP)';
    case 'EIO':
      return 'its disk failed to read it (EIO)';
    default:
      return systemWords(error);
  }
}

/** Why a file could not be written in its folder, in words for the person who named it. */
export function writeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `the user running clinic may not write in its folder (${code})`;
    case 'EROFS':
      return 'its file system is read-only (EROFS)';
    case 'ENOSPC':
    case 'EDQUOT':
      return `there is no room left on its disk (${code})`;
    case 'ENOENT':
      return 'its folder is gone (ENOENT)';
    case 'EIO':
      return 'its disk failed to write it (EIO)';
    default:
      return systemWords(error);
  }
}

/** Whether `error` is the system's (an errno code), as opposed to a refusal or a bug. */
export const isSystemError = (error: unknown): boolean => /^E[A-Z]+$/.test(String((error as NodeJS.ErrnoException | null)?.code));

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
