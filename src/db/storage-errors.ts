import { sqliteErrorCode } from './sqlite-result-codes.js';

/**
 * What a failure of the disk or of SQLite's locks means for a request, classified by typed codes
 * (SQLite's result codes, errno codes), never by message text. src/errors.ts turns each kind
 * into the coded refusal a client sees.
 */
export type StorageFault = 'busy' | 'full' | 'failed';

/**
 * SQLite result codes meaning another connection held the lock past the wait, with their extended
 * codes (SQLITE_BUSY_RECOVERY: another process recovering the WAL after a crash).
 */
const BUSY_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_TIMEOUT',
  'SQLITE_LOCKED',
  'SQLITE_LOCKED_SHAREDCACHE',
  'SQLITE_LOCKED_VTAB',
]);

/** No room left: SQLite's own code, and the errno codes of a file write (documents, backups). */
const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/**
 * The disk or the file cannot be written or read: I/O errors, a read-only or unreadable data
 * directory, a damaged database. SQLite's extended codes share their primary code's prefix
 * (SQLITE_IOERR_WRITE, SQLITE_READONLY_DIRECTORY, SQLITE_CORRUPT_INDEX, ...).
 */
const FAILED_PREFIXES = ['SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_PERM'];
const FAILED_ERRNOS = new Set(['EIO', 'EROFS', 'EACCES', 'EPERM', 'EFBIG']);

function codeOf(error: unknown): string | undefined {
  const sqliteCode = sqliteErrorCode(error);
  if (sqliteCode !== undefined) return sqliteCode;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `error` is SQLite giving up on a lock another process holds. */
export function isDatabaseBusy(error: unknown): boolean {
  const code = sqliteErrorCode(error);
  return code !== undefined && BUSY_CODES.has(code);
}

/** The storage fault `error` stands for, or undefined when it is not one (a bug, a refusal). */
export function storageFault(error: unknown): StorageFault | undefined {
  if (isDatabaseBusy(error)) return 'busy';
  const code = codeOf(error);
  if (code === undefined) return undefined;
  if (FULL_CODES.has(code)) return 'full';
  if (FAILED_ERRNOS.has(code)) return 'failed';
  if (sqliteErrorCode(error) !== undefined && FAILED_PREFIXES.some((prefix) => code.startsWith(prefix))) return 'failed';
  return undefined;
}
