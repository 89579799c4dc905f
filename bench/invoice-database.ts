/**
 * The large clinic database the benchmarks run on: one patient per ten invoices, 30 % of the
 * invoices open, issued over five years. Built from a fixed seed, so every run measures the same
 * data; `npm run bench` keeps a copy under .tmp/bench (never committed) and reuses it while the
 * schema and this generator stay the same.
 */
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { insertInvoice, takeInvoiceNumber } from '../src/db/invoices.js';
import { SCHEMA_VERSION } from '../src/db/migrations.js';
import { openDatabase, type Db } from '../src/db/open-database.js';
import { DATABASE_FILE } from '../src/db/data-directory.js';
import { newId } from '../src/domain/clock.js';
import { createPatient } from '../src/domain/patients/create-patient.js';

/** Bump when the generated data changes, so that cached databases are rebuilt. */
const GENERATOR_VERSION = 1;
const OPEN_SHARE = 0.3;
const BATCH = 50_000;

/** What a generated database holds, for picking request targets. */
export interface InvoiceData {
  patientIds: string[];
  openInvoiceIds: string[];
}

/** A small seeded generator, so that every run builds the same database. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** How many patients a database of `invoices` invoices has. */
export function patientCount(invoices: number): number {
  return Math.max(1, Math.round(invoices / 10));
}

/**
 * Writes the patients and invoices into `db`, straight through the data layer in large
 * transactions (as createInvoice writes them, minus a fsync per invoice).
 */
export function fillInvoiceDatabase(db: Db, invoices: number, log: (line: string) => void = () => undefined): InvoiceData {
  const next = seededRandom(42);
  const patients = patientCount(invoices);
  let started = Date.now();
  const patientIds: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < patients; i++) {
      patientIds.push(createPatient(db, { first_name: 'P', last_name: String(i), email: `p${i}@example.org`, mobile: '+1 555 0100' }).id);
    }
  })();
  log(`${patients.toLocaleString('en')} patients in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  started = Date.now();
  const openInvoiceIds: string[] = [];
  const fiveYears = 5 * 365 * 86_400_000;
  const firstDay = Date.parse('2021-01-01T00:00:00Z');
  for (let done = 0; done < invoices; done += BATCH) {
    db.transaction(() => {
      for (let i = done; i < Math.min(invoices, done + BATCH); i++) {
        const issuedAt = new Date(firstDay + Math.floor(next() * fiveYears)).toISOString();
        const year = Number(issuedAt.slice(0, 4));
        const total = 1000 + Math.floor(next() * 100_000);
        const open = next() < OPEN_SHARE;
        const id = newId();
        if (open) openInvoiceIds.push(id);
        insertInvoice(db, {
          id,
          invoice_number: `INV-${year}-${String(takeInvoiceNumber(db, year)).padStart(6, '0')}`,
          patient_id: patientIds[Math.floor(next() * patients)]!,
          status: open ? 'issued' : 'paid',
          currency: 'EUR',
          total_cents: total,
          amount_paid_cents: open ? 0 : total,
          balance_cents: open ? total : 0,
          issued_at: issuedAt,
          created_at: issuedAt,
          updated_at: issuedAt,
        });
      }
    })();
  }
  db.pragma('optimize');
  log(
    `${invoices.toLocaleString('en')} invoices (${Math.round(OPEN_SHARE * 100)} % open) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return { patientIds, openInvoiceIds };
}

/** Reads back what a generated database holds. */
export function readInvoiceData(db: Db): InvoiceData {
  return {
    patientIds: db
      .prepare<[], { id: string }>('SELECT id FROM patients ORDER BY seq')
      .all()
      .map((row) => row.id),
    openInvoiceIds: db
      .prepare<[], { id: string }>('SELECT id FROM invoices WHERE balance_cents > 0 ORDER BY rowid')
      .all()
      .map((row) => row.id),
  };
}

/**
 * The path of a clinic.db holding `invoices` invoices, built on first use under `cacheDir` and
 * reused while the schema version and the generator stay the same. Callers copy it, never write it.
 */
export function cachedInvoiceDatabase(cacheDir: string, invoices: number, log: (line: string) => void): string {
  const file = join(cacheDir, `invoices-${invoices}-schema${SCHEMA_VERSION}-gen${GENERATOR_VERSION}.db`);
  if (existsSync(file)) {
    log(`reusing ${file} (${(statSync(file).size / 1024 / 1024).toFixed(0)} MB)`);
    return file;
  }
  const building = join(cacheDir, `building-${process.pid}`);
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  log(`building ${invoices.toLocaleString('en')} invoices into ${file} (once)`);
  const db = openDatabase(building);
  try {
    fillInvoiceDatabase(db, invoices, log);
    // Closing the last connection checkpoints the WAL, so the one file holds everything.
    db.close();
    renameSync(join(building, DATABASE_FILE), file);
  } finally {
    if (db.open) db.close();
    rmSync(building, { recursive: true, force: true });
  }
  return file;
}

/**
 * Puts a copy of a cached database into a new data directory, and fsyncs it: left to the
 * kernel's writeback (about 30 s later), its 460 MB reached the disk while the next server was
 * measured, and on ext4 a commit's fsync then waited behind them, which slowed whichever scenario
 * or floor a round ran first.
 */
export function copyDatabase(source: string, dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const copy = join(dataDir, DATABASE_FILE);
  copyFileSync(source, copy);
  const descriptor = openSync(copy, 'r+');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
