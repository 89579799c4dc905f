import { openDatabase, type Db } from '../db/open-database.js';
import { requireExistingDatabase } from '../domain/maintenance/data-dir.js';
import type { CommonOptions } from './output.js';

/**
 * Runs `action` with the database of `--data`, closing it afterwards whatever happens. The
 * database must exist (NO_DATABASE otherwise) unless `create` is set, as only `clinic init` does.
 */
export async function withDatabase<T>(
  options: Pick<CommonOptions, 'data' | 'nativeBinding'>,
  action: (db: Db) => T | Promise<T>,
  { create = false }: { create?: boolean } = {},
): Promise<T> {
  if (!create) requireExistingDatabase(options.data);
  const db = openDatabase(options.data, { nativeBinding: options.nativeBinding });
  try {
    return await action(db);
  } finally {
    db.close();
  }
}
