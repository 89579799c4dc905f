import { openDatabase, type Db } from '../db/open-database.js';
import { requireExistingDatabase } from '../domain/maintenance/data-dir.js';
import { requireModuleEnabled, type ModuleName } from '../domain/settings.js';
import type { CommonOptions } from './output.js';

/**
 * Runs `action` with the database of `--data`, closing it afterwards whatever happens. The
 * database must exist (NO_DATABASE otherwise) and not be a 0-byte file (DATABASE_EMPTY) unless
 * `create` is set, as only `clinic init` does: it creates one, or gives an empty file its schema;
 * a command of an optional module refuses as the API does when the module is off (MODULE_DISABLED).
 */
export async function withDatabase<T>(
  options: Pick<CommonOptions, 'data'>,
  action: (db: Db) => T | Promise<T>,
  { create = false, module }: { create?: boolean; module?: ModuleName } = {},
): Promise<T> {
  if (!create) requireExistingDatabase(options.data);
  const db = openDatabase(options.data, { initialiseEmpty: create });
  try {
    if (module !== undefined) requireModuleEnabled(db, module);
    return await action(db);
  } finally {
    db.close();
  }
}
