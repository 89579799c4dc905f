import { openDatabase, type Db } from '../db/open-database.js';
import { requireExistingDatabase } from '../domain/maintenance/data-dir.js';
import type { CommonOptions } from './output.js';
import { deskPcRun, resolveDeskCaller } from './desk-identity.js';

/**
 * Runs `action` with the database of `--data`, closing it afterwards whatever happens. The
 * database must exist (NO_DATABASE otherwise) and not be a 0-byte file (DATABASE_EMPTY) unless
 * `create` is set, as only `clinic init` does: it creates one, or gives an empty file its schema.
 * A database of an older schema is refused (SCHEMA_UPGRADE_REQUIRED) unless `create`: `clinic upgrade` migrates it.
 * (A command of an optional module refuses through its use case: use-case-command.ts.)
 */
export async function withDatabase<T>(
  options: Pick<CommonOptions, 'data'>,
  action: (db: Db) => T | Promise<T>,
  { create = false }: { create?: boolean } = {},
): Promise<T> {
  // On the server for a desk PC: the server's database, open already, and its person.
  const deskPc = deskPcRun();
  if (deskPc !== undefined) {
    resolveDeskCaller(deskPc.db, options.data);
    return await action(deskPc.db);
  }
  if (!create) requireExistingDatabase(options.data);
  // Only `init` migrates an older schema; every other command refuses it (SCHEMA_UPGRADE_REQUIRED) and changes nothing.
  const db = openDatabase(options.data, { initialiseEmpty: create, olderSchema: create ? 'migrate' : 'refuse' });
  try {
    // Who the command acts as, and whether they may: before it reads or changes anything.
    resolveDeskCaller(db, options.data);
    return await action(db);
  } finally {
    db.close();
  }
}
