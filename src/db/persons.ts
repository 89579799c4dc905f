import { preparedFor, type Db } from './open-database.js';

/** A person as stored (schema.sql, `persons`). */
export interface PersonRow {
  id: string;
  name: string;
  name_key: string;
  /** Space-separated, in ROLES order. */
  roles: string;
  enabled: 0 | 1;
  pin_hash: string | null;
  setup_code_hash: string | null;
  setup_code_expires_at: string | null;
  failed_pins: number;
  locked_until: string | null;
  last_login_at: string | null;
  created_at: string;
}

const statements = preparedFor((db) => ({
  insert: db.prepare<PersonRow>(
    `INSERT INTO persons (id, name, name_key, roles, enabled, pin_hash, setup_code_hash, setup_code_expires_at, failed_pins, locked_until, last_login_at, created_at)
     VALUES (@id, @name, @name_key, @roles, @enabled, @pin_hash, @setup_code_hash, @setup_code_expires_at, @failed_pins, @locked_until, @last_login_at, @created_at)`,
  ),
  any: db.prepare<[], { found: 1 }>('SELECT 1 AS found FROM persons LIMIT 1'),
  all: db.prepare<[], PersonRow>('SELECT * FROM persons ORDER BY seq'),
  byId: db.prepare<[string], PersonRow>('SELECT * FROM persons WHERE id = ?'),
  byNameKey: db.prepare<[string], PersonRow>('SELECT * FROM persons WHERE name_key = ?'),
  update: db.prepare<PersonRow>(
    `UPDATE persons SET roles = @roles, enabled = @enabled, pin_hash = @pin_hash, setup_code_hash = @setup_code_hash,
       setup_code_expires_at = @setup_code_expires_at, failed_pins = @failed_pins, locked_until = @locked_until,
       last_login_at = @last_login_at
     WHERE id = @id`,
  ),
  enabledAdmins: db.prepare<[], { n: number }>(
    `SELECT count(*) AS n FROM persons WHERE enabled = 1 AND (' ' || roles || ' ') LIKE '% admin %'`,
  ),
}));

/** Whether any person exists: from the first one on, the desk needs a login (interface 1.3.0). */
export function anyPersonExists(db: Db): boolean {
  return statements(db).any.get() !== undefined;
}

/** Stores a new person. */
export function insertPerson(db: Db, row: PersonRow): void {
  statements(db).insert.run(row);
}

/** Every person, in the order they were added. */
export function listPersonRows(db: Db): PersonRow[] {
  return statements(db).all.all();
}

/** The person of this id. */
export function findPersonById(db: Db, id: string): PersonRow | undefined {
  return statements(db).byId.get(id);
}

/** The person of this name, compared lower-cased (names are unique in any case). */
export function findPersonByNameKey(db: Db, nameKey: string): PersonRow | undefined {
  return statements(db).byNameKey.get(nameKey);
}

/** Stores a person's changed roles, state, PIN, code, failures and last login. */
export function updatePersonRow(db: Db, row: PersonRow): void {
  statements(db).update.run(row);
}

/** How many enabled persons hold `admin`. */
export function countEnabledAdmins(db: Db): number {
  return statements(db).enabledAdmins.get()?.n ?? 0;
}
