// Why a file or folder could not be used, in words a person can act on, with the system's code:
// "there is no such file (ENOENT)", never a bare errno or a stack trace. One table for every
// file the program names in a refusal (the data directory, a file the desk was given, a backup's
// folder, the TLS files, the audit anchor, the addon's cache), so that one code reads the same
// wherever it is met.

/** What was being attempted: it decides how "may not" and "not there" read. */
export type FileAttempt =
  /** reading a file */
  | 'read'
  /** writing a file into its folder */
  | 'write'
  /** opening a file or folder the program reads and writes (the data directory, clinic.db) */
  | 'read and write'
  /** making a folder, with any folder above it */
  | 'make folder'
  /** finding out what a path is (stat) */
  | 'look up';

/** The words for EACCES and EPERM, by what was attempted. */
const NOT_ALLOWED: Readonly<Record<FileAttempt, string>> = {
  read: 'the user running clinic may not read it',
  write: 'the user running clinic may not write in its folder',
  'read and write': 'this user may not read and write it',
  'make folder': 'the user running clinic may not write there',
  'look up': 'this user may not look into its folder',
};

/** The words for ENOENT, by what was attempted. */
const NOT_THERE: Readonly<Record<FileAttempt, string>> = {
  read: 'there is no such file',
  write: 'its folder is gone',
  'read and write': 'there is no such file or folder',
  'make folder': 'a folder above it does not exist and cannot be made',
  'look up': 'there is no such file',
};

/** The words for a code that reads the same whatever was attempted. */
const SAME_FOR_ALL: Readonly<Record<string, string>> = {
  ENOTDIR: 'a part of that path is a file, not a folder',
  ELOOP: 'it is a symbolic link that leads round in a loop',
  EISDIR: 'it is a folder, not a file',
  EEXIST: 'it is a file, not a folder',
  EROFS: 'the file system is read-only',
  ENOSPC: 'there is no room left on its disk',
  EDQUOT: 'there is no room left on its disk',
};

/**
 * Why `error` stopped `attempt`, ending in the system's code in brackets. `remedy`, when given,
 * follows a "may not" after a semicolon: what the person should do about the file's owner or mode.
 */
export function fileFailure(error: unknown, attempt: FileAttempt, remedy?: string): string {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  if (code === 'EACCES' || code === 'EPERM') return `${NOT_ALLOWED[attempt]} (${code})${remedy === undefined ? '' : `; ${remedy}`}`;
  if (code === 'ENOENT') return `${NOT_THERE[attempt]} (ENOENT)`;
  if (code === 'EIO') return `its disk failed to ${attempt === 'write' ? 'write' : 'read'} it (EIO)`;
  const words = code === undefined ? undefined : SAME_FOR_ALL[code];
  if (words !== undefined) return `${words} (${code})`;
  const text = message ?? String(error);
  return code === undefined ? text : `${text} (${code})`;
}

/** Whether `error` is the system's (an errno code), as opposed to a refusal or a bug. */
export const isSystemError = (error: unknown): boolean => /^E[A-Z]+$/.test(String((error as NodeJS.ErrnoException | null)?.code));
