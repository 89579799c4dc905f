import type { Db } from './drivers/sqlite-driver.js';

/** One forward step of the schema; `version` is the PRAGMA user_version it leaves behind. */
export interface Migration {
  version: number;
  sql: string;
  /**
   * The step rebuilds a table others refer to (SQLite cannot change a CHECK in place): it runs
   * with foreign keys off, as SQLite's own procedure for such changes says, and the transaction
   * is refused unless `PRAGMA foreign_key_check` finds nothing afterwards.
   */
  rebuildsTables?: boolean;
  /** Fills what SQL alone cannot (folded search terms), after `sql`, in the same transaction. */
  fill?: (db: Db) => void;
}
