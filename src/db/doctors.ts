import { preparedFor, type Db } from './open-database.js';

export interface DoctorRow {
  id: string;
  name: string;
  color: string;
  created_at: string;
  /** When the doctor was retired (1.3.0); null while they can be booked. */
  retired_at: string | null;
}

/** What `doctor edit` writes: the name and colour as they now stand. */
export interface DoctorEdit {
  id: string;
  name: string;
  color: string;
}

const COLUMNS = 'id, name, color, created_at, retired_at';

// A clinic has tens of doctors: the lists read the table in its rowid (seq) order, the order they
// were added and are listed in, and the retired are the few a filter passes over.
const statements = preparedFor((db) => ({
  insert: db.prepare<DoctorRow>(`INSERT INTO doctors (${COLUMNS}) VALUES (@id, @name, @color, @created_at, @retired_at)`),
  all: db.prepare<[], DoctorRow>(`SELECT ${COLUMNS} FROM doctors ORDER BY seq`),
  active: db.prepare<[], DoctorRow>(`SELECT ${COLUMNS} FROM doctors WHERE retired_at IS NULL ORDER BY seq`),
  byId: db.prepare<[string], DoctorRow>(`SELECT ${COLUMNS} FROM doctors WHERE id = ?`),
  edit: db.prepare<DoctorEdit>('UPDATE doctors SET name = @name, color = @color WHERE id = @id'),
  retire: db.prepare<{ id: string; retired_at: string | null }>('UPDATE doctors SET retired_at = @retired_at WHERE id = @id'),
}));

/** Stores a new doctor. */
export function insertDoctor(db: Db, row: DoctorRow): void {
  statements(db).insert.run(row);
}

/** Every doctor in the order they were added, the retired too. */
export function listDoctorRows(db: Db): DoctorRow[] {
  return statements(db).all.all();
}

/** The doctors who can be booked, in the order they were added. */
export function listActiveDoctorRows(db: Db): DoctorRow[] {
  return statements(db).active.all();
}

/** The doctor with this id, or undefined. */
export function findDoctor(db: Db, id: string): DoctorRow | undefined {
  return statements(db).byId.get(id);
}

/** Writes a doctor's name and colour. */
export function updateDoctor(db: Db, edit: DoctorEdit): void {
  statements(db).edit.run(edit);
}

/** Retires a doctor (`retiredAt`), or reinstates one (null). */
export function setDoctorRetired(db: Db, id: string, retiredAt: string | null): void {
  statements(db).retire.run({ id, retired_at: retiredAt });
}
