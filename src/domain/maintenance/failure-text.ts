import { sqliteErrorCode } from '../../db/sqlite-result-codes.js';

/** A failure as a finding: its code (SQLITE_CORRUPT, EACCES, ...) and SQLite's or the system's words. */
export function describeFailure(error: unknown): string {
  const code = sqliteErrorCode(error) ?? (error as NodeJS.ErrnoException | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined ? message : `${message} (${code})`;
}
