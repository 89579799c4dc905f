// Data directories for the backup tests: one holding something of every kind, and what a
// restored one must hold again (every table's rows, every file).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Header, list, Pax, type ReadEntry } from 'tar';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { addDoctor, addService } from '../../src/domain/catalog.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { setClinicTimeZone, setModuleEnabled } from '../../src/domain/settings.js';
import { buildPatient } from './builders.js';
import { addDocument, addInvoice } from './module-tables.js';

/**
 * Every row of every table (sqlite_sequence included: patient numbers are never reused); the
 * audit trail as its events (the view audit_events), not as the tables that store them.
 */
export function dumpTables(db: Db): Record<string, string[]> {
  const tables = db
    .prepare<[], { name: string }>(
      `SELECT name FROM sqlite_schema
        WHERE (type = 'table' AND name NOT LIKE 'audit\\_%' ESCAPE '\\') OR (type = 'view' AND name = 'audit_events') ORDER BY name`,
    )
    .all();
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

/**
 * Every file under `dir` (relative path → content), the database's own files left out, and the
 * audit trail's anchor, which is each data directory's own (a backup is anchored in its source, a
 * restore begins a new anchor: test/domain/audit/audit-anchor.test.ts).
 */
export function filesUnder(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files.set(join(entry.parentPath, entry.name).slice(dir.length + 1), readFileSync(join(entry.parentPath, entry.name)));
  }
  for (const name of [...files.keys()]) if (name.startsWith('clinic.') || name.startsWith('audit-anchor')) files.delete(name);
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
    setClinicTimeZone(db, 'Europe/Vienna');
    addDocument(db, dataDir, ada.id, randomBytes(300_000));
    addDocument(db, dataDir, ada.id, Buffer.from('%PDF-1.7 consent'));
    addInvoice(db, 8_050, [8_050]);
    // After the payment: a payment is refused while its module is off.
    setModuleEnabled(db, 'payments', false);
    return { dataDir, key };
  } finally {
    db.close();
  }
}

/** A client of the server at `baseUrl` that writes while a backup is made: started by writePatientsMeanwhile. */
export interface PatientWriter {
  /** How many patients it has created so far. */
  readonly written: number;
  /** Stops it once its request in flight is answered. */
  stop(): Promise<void>;
}

/**
 * Creates patients (Busy 0, Busy 1, …) on the server at `baseUrl` with `key`, one after another
 * through `send`, each of which must be answered 201, until stopped.
 */
export function writePatientsMeanwhile(
  baseUrl: string,
  key: string,
  send: (url: string, init: RequestInit) => Promise<Response> = fetch,
): PatientWriter {
  let writing = true;
  let written = 0;
  const writer = (async () => {
    while (writing) {
      const response = await send(`${baseUrl}/patients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(buildPatient({ last_name: `Busy ${written}` })),
      });
      assert.equal(response.status, 201);
      written += 1;
    }
  })();
  return {
    get written() {
      return written;
    },
    async stop() {
      writing = false;
      await writer;
    },
  };
}

/** One entry of a crafted archive: any type, path, mode or owner a hostile tar can hold. */
export interface CraftedEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'FIFO';
  body?: Buffer;
  /** The size the header declares, if not the body's (a lie, or a body streamed by `zeros`). */
  size?: number;
  /** A body of this many zero bytes, written without holding it in memory. */
  zeros?: number;
  mode?: number;
  uid?: number;
  gid?: number;
  linkpath?: string;
}

/** Every file entry of a real backup, in its order (manifest.json first), to rebuild with changes. */
export async function entriesOf(file: string): Promise<CraftedEntry[]> {
  const entries: CraftedEntry[] = [];
  await list({
    file,
    onReadEntry(entry: ReadEntry) {
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => entries.push({ path: entry.path, body: Buffer.concat(chunks) }));
    },
  });
  return entries;
}

/**
 * Writes `entries` as a gzipped tar to `file`, each header exactly as given (paths with `..`,
 * absolute paths, links, devices, setuid modes, foreign owners): what `tar` and GNU tar refuse
 * to make from a folder, but an attacker writes by hand.
 */
export async function craftArchive(file: string, entries: readonly CraftedEntry[], trailingZeros = 0): Promise<void> {
  const gzip = createGzip({ level: 1 });
  const done = pipeline(gzip, createWriteStream(file));
  const write = async (chunk: Buffer) => {
    if (!gzip.write(chunk)) await once(gzip, 'drain');
  };
  for (const entry of entries) {
    const type = entry.type ?? 'File';
    const size = entry.size ?? entry.zeros ?? entry.body?.length ?? 0;
    // A name over tar's 100 characters goes in a pax header before the entry's own.
    if (entry.path.length > 100) await write(new Pax({ path: entry.path, mtime: new Date(0) }).encode());
    const header = Buffer.alloc(512);
    new Header({
      path: entry.path,
      type,
      size: type === 'File' ? size : 0,
      mode: entry.mode ?? (type === 'Directory' ? 0o755 : 0o644),
      uid: entry.uid ?? 0,
      gid: entry.gid ?? 0,
      linkpath: entry.linkpath,
      mtime: new Date(0),
    }).encode(header, 0);
    await write(header);
    if (type !== 'File') continue;
    let written = 0;
    if (entry.body !== undefined) {
      await write(entry.body);
      written = entry.body.length;
    }
    for (const block = Buffer.alloc(1 << 20); written < (entry.zeros ?? 0); written += block.length) {
      await write(block.subarray(0, Math.min(block.length, (entry.zeros ?? 0) - written)));
    }
    // The header's size decides where the next header starts: pad (or cut short) to it.
    const padded = Math.ceil(size / 512) * 512;
    if (padded > written) await write(Buffer.alloc(padded - written));
  }
  await write(Buffer.alloc(1024));
  // Zero blocks past the end of the tar: a gzip bomb that is still a valid archive.
  for (let written = 0, block = Buffer.alloc(1 << 20); written < trailingZeros; written += block.length) await write(block);
  gzip.end();
  await done;
}
