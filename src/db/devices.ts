import { preparedFor, type Db } from './open-database.js';

/** A desk PC as stored (schema.sql, `devices`). */
export interface DeviceRow {
  id: string;
  name: string;
  name_key: string;
  code_hash: string | null;
  code_expires_at: string | null;
  token_hash: string | null;
  created_at: string;
  joined_at: string | null;
  revoked_at: string | null;
  host_name: string | null;
  last_seen_at: string | null;
  last_address: string | null;
  desk_version: string | null;
}

const statements = preparedFor((db) => ({
  insert: db.prepare<DeviceRow>(
    `INSERT INTO devices (id, name, name_key, code_hash, code_expires_at, token_hash, created_at, joined_at, revoked_at,
       host_name, last_seen_at, last_address, desk_version)
     VALUES (@id, @name, @name_key, @code_hash, @code_expires_at, @token_hash, @created_at, @joined_at, @revoked_at,
       @host_name, @last_seen_at, @last_address, @desk_version)`,
  ),
  all: db.prepare<[], DeviceRow>('SELECT * FROM devices ORDER BY seq'),
  names: db.prepare<[], { name_key: string }>('SELECT name_key FROM devices'),
  byId: db.prepare<[string], DeviceRow>('SELECT * FROM devices WHERE id = ?'),
  byNameKey: db.prepare<[string], DeviceRow>('SELECT * FROM devices WHERE name_key = ?'),
  byCodeHash: db.prepare<[string], DeviceRow>('SELECT * FROM devices WHERE code_hash = ?'),
  byTokenHash: db.prepare<[string], DeviceRow>('SELECT * FROM devices WHERE token_hash = ?'),
  update: db.prepare<DeviceRow>(
    `UPDATE devices SET code_hash = @code_hash, code_expires_at = @code_expires_at, token_hash = @token_hash,
       joined_at = @joined_at, revoked_at = @revoked_at, host_name = @host_name, last_seen_at = @last_seen_at,
       last_address = @last_address, desk_version = @desk_version
     WHERE id = @id`,
  ),
  seen: db.prepare<{ id: string; at: string; address: string; version: string | null }>(
    'UPDATE devices SET last_seen_at = @at, last_address = @address, desk_version = coalesce(@version, desk_version) WHERE id = @id',
  ),
}));

/** Stores a new device. */
export function insertDevice(db: Db, row: DeviceRow): void {
  statements(db).insert.run(row);
}

/** Every device, in the order paired. */
export function listDeviceRows(db: Db): DeviceRow[] {
  return statements(db).all.all();
}

/** The lower-cased names of every device (a default name is the smallest free `Desk N`). */
export function deviceNameKeys(db: Db): Set<string> {
  return new Set(
    statements(db)
      .names.all()
      .map((row) => row.name_key),
  );
}

export function findDeviceById(db: Db, id: string): DeviceRow | undefined {
  return statements(db).byId.get(id);
}

export function findDeviceByNameKey(db: Db, nameKey: string): DeviceRow | undefined {
  return statements(db).byNameKey.get(nameKey);
}

/** The device whose pairing code has this SHA-256 (hex). */
export function findDeviceByCodeHash(db: Db, codeHash: string): DeviceRow | undefined {
  return statements(db).byCodeHash.get(codeHash);
}

/** The device whose token has this SHA-256 (hex). */
export function findDeviceByTokenHash(db: Db, tokenHash: string): DeviceRow | undefined {
  return statements(db).byTokenHash.get(tokenHash);
}

/** Stores a device's code, token, state and what was last seen of it. */
export function updateDeviceRow(db: Db, row: DeviceRow): void {
  statements(db).update.run(row);
}

/** Notes when and from where a device was last seen, and the desk's version it sent. */
export function markDeviceSeen(db: Db, id: string, at: string, address: string, version: string | null): void {
  statements(db).seen.run({ id, at, address, version });
}
