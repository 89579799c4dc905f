import { preparedFor, type Db } from './open-database.js';

const statements = preparedFor((db) => ({
  get: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?'),
  set: db.prepare<[string, string]>(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ),
}));

/** The stored value of a setting, or undefined when it was never set. */
export function readSetting(db: Db, key: string): string | undefined {
  return statements(db).get.get(key)?.value;
}

/** Stores a setting, replacing any earlier value. */
export function writeSetting(db: Db, key: string, value: string): void {
  statements(db).set.run(key, value);
}

/** Forgets a setting: it reads as never set. */
export function removeSetting(db: Db, key: string): void {
  db.prepare<[string]>('DELETE FROM settings WHERE key = ?').run(key);
}
