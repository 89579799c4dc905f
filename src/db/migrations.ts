import type { Db } from './open-database.js';
import { loadSchemaSql } from './schema-sql.js';
import { patientPhoneDigits, patientSearchTerms } from '../fields/search-terms.js';

/** One forward step of the schema; `version` is the PRAGMA user_version it leaves behind. */
export interface Migration {
  version: number;
  sql: string;
  /** Fills what SQL alone cannot (folded search terms), after `sql`, in the same transaction. */
  fill?: (db: Db) => void;
}

/** The six scopes of interface 1.0.0: a key holding all of them was issued without --scopes. */
const SCOPES_1_0_0 = ['patients:write', 'appointments:write', 'documents:write', 'lookups:read', 'invoices:read', 'payments:write'];

/** Version 2, interface 1.1.0: the read side's indexes, patient search and unscoped keys. */
const READ_SIDE: Migration = {
  version: 2,
  sql: `
    CREATE TABLE patient_search_terms (
      term        TEXT NOT NULL,
      last_name   TEXT NOT NULL,
      first_name  TEXT NOT NULL,
      patient_seq INTEGER NOT NULL REFERENCES patients (seq),
      PRIMARY KEY (term, last_name, first_name, patient_seq)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX patient_search_terms_by_patient ON patient_search_terms (patient_seq, term);
    CREATE TABLE patient_phone_digits (
      patient_seq INTEGER PRIMARY KEY REFERENCES patients (seq),
      digits      TEXT NOT NULL
    ) STRICT;
    CREATE INDEX patients_by_name ON patients (last_name, first_name);
    CREATE INDEX appointments_by_start ON appointments (start_at);
    CREATE INDEX appointments_by_doctor ON appointments (resource_id, start_at);
    CREATE INDEX payments_by_created_at ON payments (created_at);
    CREATE TABLE appointment_extent (
      id         INTEGER PRIMARY KEY CHECK (id = 1),
      longest_ms INTEGER NOT NULL CHECK (longest_ms >= 0)
    ) STRICT;
    INSERT INTO appointment_extent (id, longest_ms) VALUES (1, 0);
    -- 1.0.0 did not record whether --scopes was used (clinic-api-1.1.md, "Scopes").
    UPDATE api_keys SET scopes = '*'
     WHERE ${SCOPES_1_0_0.map((scope) => `instr(' ' || scopes || ' ', ' ${scope} ') > 0`).join(' AND ')};
  `,
  fill(db) {
    // Its own statements, not src/db's: this step must keep doing what it did when it shipped.
    const insertTerm = db.prepare<[string, string, string, number]>(
      'INSERT OR IGNORE INTO patient_search_terms (term, last_name, first_name, patient_seq) VALUES (?, ?, ?, ?)',
    );
    const patients = db.prepare<[], { seq: number; first_name: string; last_name: string }>(
      'SELECT seq, first_name, last_name, date_of_birth, email, phone, mobile FROM patients',
    );
    const insertDigits = db.prepare<[number, string]>('INSERT INTO patient_phone_digits (patient_seq, digits) VALUES (?, ?)');
    for (const patient of patients.all()) {
      for (const term of patientSearchTerms(patient)) insertTerm.run(term, patient.last_name, patient.first_name, patient.seq);
      const digits = patientPhoneDigits(patient);
      if (digits !== null) insertDigits.run(patient.seq, digits);
    }
    // Measured as booking does (Date.parse), so that every stored year counts alike.
    let longest = 0;
    for (const { start_at, end_at } of db
      .prepare<[], { start_at: string; end_at: string }>('SELECT start_at, end_at FROM appointments')
      .all()) {
      longest = Math.max(longest, Date.parse(end_at) - Date.parse(start_at));
    }
    db.prepare<[number]>('UPDATE appointment_extent SET longest_ms = ? WHERE id = 1').run(longest);
  },
};

/**
 * Numbered migrations for databases created by an older program. schema.sql always describes
 * the newest version, so a new database skips these. Versions start at 2: version 1 is the first
 * schema.sql that shipped. Append only; never edit a migration that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [READ_SIDE];

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
        if (migration.version <= current) continue;
        db.exec(migration.sql);
        migration.fill?.(db);
      }
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
