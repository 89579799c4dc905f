import { preparedFor, type Db } from './open-database.js';

export interface ServiceRow {
  id: string;
  name: string;
  duration_min: number;
  price_cents: number;
  color: string;
  created_at: string;
}

const COLUMNS = 'id, name, duration_min, price_cents, color, created_at';

const statements = preparedFor((db) => ({
  insert: db.prepare<ServiceRow>(`INSERT INTO services (${COLUMNS}) VALUES (@id, @name, @duration_min, @price_cents, @color, @created_at)`),
  all: db.prepare<[], ServiceRow>(`SELECT ${COLUMNS} FROM services ORDER BY seq`),
  byId: db.prepare<[string], ServiceRow>(`SELECT ${COLUMNS} FROM services WHERE id = ?`),
}));

/** Stores a new service. */
export function insertService(db: Db, row: ServiceRow): void {
  statements(db).insert.run(row);
}

/** Every service in the order they were added. */
export function listServiceRows(db: Db): ServiceRow[] {
  return statements(db).all.all();
}

/** The service with this id, or undefined. */
export function findService(db: Db, id: string): ServiceRow | undefined {
  return statements(db).byId.get(id);
}
