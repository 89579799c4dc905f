// Data directories for the backup tests: one holding something of every kind, and what a
// restored one must hold again (every table's rows, every file).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { addDoctor, addService } from '../../src/domain/catalog.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { setClinicTimeZone, setModuleEnabled } from '../../src/domain/settings.js';
import { buildPatient } from './builders.js';
import { addDocument, addInvoice } from './module-tables.js';

/** Every row of every table (sqlite_sequence included: patient numbers are never reused). */
export function dumpTables(db: Db): Record<string, string[]> {
  const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all();
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      db
        .prepare(`SELECT * FROM "${name}"`)
        .all()
        .map((row) => JSON.stringify(row))
        .sort(),
    ]),
  );
}

/** Every file under `dir` (relative path → content), the database's own files left out. */
export function filesUnder(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files.set(join(entry.parentPath, entry.name).slice(dir.length + 1), readFileSync(join(entry.parentPath, entry.name)));
  }
  for (const name of [...files.keys()]) if (name.startsWith('clinic.')) files.delete(name);
  return files;
}

/** A data directory with something of every kind: patients, keys, catalog, settings, documents, invoices. */
export function populatedDataDir(dataDir: string): { dataDir: string; key: string } {
  const db = openDatabase(dataDir);
  try {
    const ada = createPatient(db, buildPatient());
    createPatient(db, buildPatient({ first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.org' }));
    const key = createApiKey(db, { name: 'integration' }).key;
    revokeApiKey(db, createApiKey(db, { name: 'old laptop' }).id);
    addDoctor(db, { name: 'Dr. Grey', color: '#123456' });
    addService(db, { name: 'Cleaning', duration_min: 45, price: '80.50', color: '#00ff00' });
    setModuleEnabled(db, 'payments', false);
    setClinicTimeZone(db, 'Europe/Vienna');
    addDocument(db, dataDir, ada.id, randomBytes(300_000));
    addDocument(db, dataDir, ada.id, Buffer.from('%PDF-1.7 consent'));
    addInvoice(db, 8_050, [8_050]);
    return { dataDir, key };
  } finally {
    db.close();
  }
}
