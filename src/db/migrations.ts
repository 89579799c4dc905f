import type { Db } from './open-database.js';
import { loadSchemaSql } from './schema-sql.js';

/** One forward step of the schema; `version` is the PRAGMA user_version it leaves behind. */
export interface Migration {
  version: number;
  sql: string;
}

/**
 * Numbered migrations for databases created by an older program. schema.sql always describes
 * the newest version, so a new database skips these. Versions start at 2: version 1 is the first
 * schema.sql that shipped. Append only; never edit a migration that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [];

/** The user_version of a database that is fully up to date. */
export const SCHEMA_VERSION = MIGRATIONS.reduce((latest, m) => Math.max(latest, m.version), 1);

/** A database written by a newer program (src/domain/errors.ts makes it DATABASE_TOO_NEW). */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`the database has schema version ${found}, newer than this program understands (${supported})`);
    this.name = 'SchemaTooNewError';
  }
}

/**
 * Creates the schema on an empty database or applies the pending migrations, all in one
 * transaction so that a crash leaves either the old or the new schema, never half of one.
 * Refuses a database written by a newer program rather than guess at its meaning.
 */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current, SCHEMA_VERSION);
  if (current === SCHEMA_VERSION) return;
  db.transaction(() => {
    if (current === 0) {
      db.exec(loadSchemaSql());
    } else {
      for (const migration of MIGRATIONS) {
        if (migration.version > current) db.exec(migration.sql);
      }
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
