import { openDatabase, type Db } from '../db/open-database.js';
import type { CommonOptions } from './output.js';

/** Runs `action` with the database of `--data`, closing it afterwards whatever happens. */
export async function withDatabase<T>(options: Pick<CommonOptions, 'data' | 'nativeBinding'>, action: (db: Db) => T | Promise<T>): Promise<T> {
  const db = openDatabase(options.data, { nativeBinding: options.nativeBinding });
  try {
    return await action(db);
  } finally {
    db.close();
  }
}
