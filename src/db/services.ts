import { preparedFor, type Db } from './open-database.js';

export interface ServiceRow {
  id: string;
  name: string;
  duration_min: number;
  price_cents: number;
  color: string;
  created_at: string;
  /** When the service was retired (1.3.0); null while it can be booked. */
  retired_at: string | null;
}

/** What `service edit` writes: the service's fields as they now stand. */
export type ServiceEdit = Omit<ServiceRow, 'created_at' | 'retired_at'>;

const COLUMNS = 'id, name, duration_min, price_cents, color, created_at, retired_at';

// As doctors: tens of rows, listed in their rowid (seq) order.
const statements = preparedFor((db) => ({
  insert: db.prepare<ServiceRow>(
    `INSERT INTO services (${COLUMNS}) VALUES (@id, @name, @duration_min, @price_cents, @color, @created_at, @retired_at)`,
  ),
  all: db.prepare<[], ServiceRow>(`SELECT ${COLUMNS} FROM services ORDER BY seq`),
  active: db.prepare<[], ServiceRow>(`SELECT ${COLUMNS} FROM services WHERE retired_at IS NULL ORDER BY seq`),
  byId: db.prepare<[string], ServiceRow>(`SELECT ${COLUMNS} FROM services WHERE id = ?`),
  edit: db.prepare<ServiceEdit>(
    'UPDATE services SET name = @name, duration_min = @duration_min, price_cents = @price_cents, color = @color WHERE id = @id',
  ),
  retire: db.prepare<{ id: string; retired_at: string | null }>('UPDATE services SET retired_at = @retired_at WHERE id = @id'),
}));

/** Stores a new service. */
export function insertService(db: Db, row: ServiceRow): void {
  statements(db).insert.run(row);
}

/** Every service in the order they were added, the retired too. */
export function listServiceRows(db: Db): ServiceRow[] {
  return statements(db).all.all();
}

/** The services that can be booked, in the order they were added. */
export function listActiveServiceRows(db: Db): ServiceRow[] {
  return statements(db).active.all();
}

/** The service with this id, or undefined. */
export function findService(db: Db, id: string): ServiceRow | undefined {
  return statements(db).byId.get(id);
}

/** Writes a service's name, length, price and colour. */
export function updateService(db: Db, edit: ServiceEdit): void {
  statements(db).edit.run(edit);
}

/** Retires a service (`retiredAt`), or reinstates one (null). */
export function setServiceRetired(db: Db, id: string, retiredAt: string | null): void {
  statements(db).retire.run({ id, retired_at: retiredAt });
}
