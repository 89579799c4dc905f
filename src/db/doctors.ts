import { preparedFor, type Db } from './open-database.js';

export interface DoctorRow {
  id: string;
  name: string;
  color: string;
  created_at: string;
}

const statements = preparedFor((db) => ({
  insert: db.prepare<DoctorRow>('INSERT INTO doctors (id, name, color, created_at) VALUES (@id, @name, @color, @created_at)'),
  all: db.prepare<[], DoctorRow>('SELECT id, name, color, created_at FROM doctors ORDER BY seq'),
  byId: db.prepare<[string], DoctorRow>('SELECT id, name, color, created_at FROM doctors WHERE id = ?'),
}));

/** Stores a new doctor. */
export function insertDoctor(db: Db, row: DoctorRow): void {
  statements(db).insert.run(row);
}

/** Every doctor in the order they were added. */
export function listDoctorRows(db: Db): DoctorRow[] {
  return statements(db).all.all();
}

/** The doctor with this id, or undefined. */
export function findDoctor(db: Db, id: string): DoctorRow | undefined {
  return statements(db).byId.get(id);
}
