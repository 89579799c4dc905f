/**
 * SQLite's result codes by name (SQLITE_BUSY, SQLITE_IOERR_WRITE, ...), whichever driver threw:
 * better-sqlite3 names them itself (SqliteError.code); node:sqlite gives the number
 * (`errcode`, the extended result code) under the code ERR_SQLITE_ERROR. Names from sqlite3.h.
 */

const PRIMARY: Record<number, string> = {
  1: 'ERROR',
  2: 'INTERNAL',
  3: 'PERM',
  4: 'ABORT',
  5: 'BUSY',
  6: 'LOCKED',
  7: 'NOMEM',
  8: 'READONLY',
  9: 'INTERRUPT',
  10: 'IOERR',
  11: 'CORRUPT',
  12: 'NOTFOUND',
  13: 'FULL',
  14: 'CANTOPEN',
  15: 'PROTOCOL',
  16: 'EMPTY',
  17: 'SCHEMA',
  18: 'TOOBIG',
  19: 'CONSTRAINT',
  20: 'MISMATCH',
  21: 'MISUSE',
  22: 'NOLFS',
  23: 'AUTH',
  24: 'FORMAT',
  25: 'RANGE',
  26: 'NOTADB',
  27: 'NOTICE',
  28: 'WARNING',
};

/** Extended codes: `primary | (n << 8)`, the n-th name (from 1) of the primary code's list. */
const EXTENDED: Record<number, string[]> = {
  1: ['MISSING_COLLSEQ', 'RETRY', 'SNAPSHOT'],
  4: ['ROLLBACK'],
  5: ['RECOVERY', 'SNAPSHOT', 'TIMEOUT'],
  6: ['SHAREDCACHE', 'VTAB'],
  8: ['RECOVERY', 'CANTLOCK', 'ROLLBACK', 'DBMOVED', 'CANTINIT', 'DIRECTORY'],
  10: [
    'READ',
    'SHORT_READ',
    'WRITE',
    'FSYNC',
    'DIR_FSYNC',
    'TRUNCATE',
    'FSTAT',
    'UNLOCK',
    'RDLOCK',
    'DELETE',
    'BLOCKED',
    'NOMEM',
    'ACCESS',
    'CHECKRESERVEDLOCK',
    'LOCK',
    'CLOSE',
    'DIR_CLOSE',
    'SHMOPEN',
    'SHMSIZE',
    'SHMLOCK',
    'SHMMAP',
    'SEEK',
    'DELETE_NOENT',
    'MMAP',
    'GETTEMPPATH',
    'CONVPATH',
    'VNODE',
    'AUTH',
    'BEGIN_ATOMIC',
    'COMMIT_ATOMIC',
    'ROLLBACK_ATOMIC',
    'DATA',
    'CORRUPTFS',
    'IN_PAGE',
  ],
  11: ['VTAB', 'SEQUENCE', 'INDEX'],
  14: ['NOTEMPDIR', 'ISDIR', 'FULLPATH', 'CONVPATH', 'DIRTYWAL', 'SYMLINK'],
  19: [
    'CHECK',
    'COMMITHOOK',
    'FOREIGNKEY',
    'FUNCTION',
    'NOTNULL',
    'PRIMARYKEY',
    'TRIGGER',
    'UNIQUE',
    'VTAB',
    'ROWID',
    'PINNED',
    'DATATYPE',
  ],
  23: ['USER'],
};

/** The name of an (extended) result code: 2067 is SQLITE_CONSTRAINT_UNIQUE. */
export function resultCodeName(code: number): string {
  const primary = PRIMARY[code & 0xff];
  if (primary === undefined) return `SQLITE_UNKNOWN_${code}`;
  const extended = EXTENDED[code & 0xff]?.[(code >> 8) - 1];
  return code > 0xff && extended !== undefined ? `SQLITE_${primary}_${extended}` : `SQLITE_${primary}`;
}

/** The SQLite result code `error` carries, by name, or undefined when it is not SQLite's error. */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, errcode } = error as Error & { code?: unknown; errcode?: unknown };
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') return resultCodeName(errcode);
  if (error.name === 'SqliteError' && typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  return undefined;
}
