import { randomUUID } from 'node:crypto';
import type { DeviceRow } from '../../src/db/devices.js';
import type { Db } from '../../src/db/open-database.js';
import type { PersonRow } from '../../src/db/persons.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import type { Invoice } from '../../src/domain/invoices/present-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import type { INVOICE_INPUT_FIELDS, PAYMENT_INPUT_FIELDS } from '../../src/fields/billing-fields.js';
import type { FieldSpec } from '../../src/fields/field-spec.js';
import type { PATIENT_INPUT_FIELDS } from '../../src/fields/patient-fields.js';

/**
 * A request body as a test writes it: any of the fields' names, each with any value (a test may
 * send a wrong type on purpose), and no other name, so a misspelt field does not compile. A test
 * that sends an unknown field on purpose spreads it in beside the builder's result.
 */
export type BodyOf<Fields extends readonly FieldSpec[]> = { [Name in Fields[number]['name']]?: unknown };

export type PatientBody = BodyOf<typeof PATIENT_INPUT_FIELDS>;
export type InvoiceBody = BodyOf<typeof INVOICE_INPUT_FIELDS>;
export type PaymentBody = BodyOf<typeof PAYMENT_INPUT_FIELDS>;

/** A valid POST /patients body; override any field. */
export function buildPatient(overrides: PatientBody = {}): PatientBody {
  return { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org', mobile: '+43 660 1234567', ...overrides };
}

/** A string of exactly `length` characters. */
export function text(length: number, char = 'a'): string {
  return char.repeat(length);
}

/** A valid `clinic invoice create` input for `patientId` (total 100.00); override any field. */
export function buildInvoice(patientId: string, overrides: InvoiceBody = {}): InvoiceBody {
  return { patient_id: patientId, total: '100.00', ...overrides };
}

/** Request headers carrying `key` as the Idempotency-Key, or none without one. */
export function idempotencyHeader(key?: string): Record<string, string> {
  return key === undefined ? {} : { 'idempotency-key': key };
}

/** A valid POST /invoices/{invoice_id}/payments body (10.00 in cash); override any field. */
export function buildPayment(overrides: PaymentBody = {}): PaymentBody {
  return { amount: '10.00', method: 'cash', ...overrides };
}

/** Creates a patient (buildPatient with `overrides`) in `db`. */
export function createTestPatient(db: Db, overrides: PatientBody = {}): Patient {
  return createPatient(db, buildPatient(overrides));
}

/**
 * Issues an invoice in `db` (buildInvoice: total 100.00), for `overrides.patient_id` or else for
 * a new patient made for it: a test asks for an invoice and gets everything it needs.
 */
export function createTestInvoice(db: Db, overrides: InvoiceBody = {}): Invoice {
  const patientId = typeof overrides.patient_id === 'string' ? overrides.patient_id : createTestPatient(db).id;
  return createInvoice(db, buildInvoice(patientId, overrides));
}

/** A person's row (db/persons.ts) named `name`: enabled, reception, no PIN or setup code, added 2026-11-30 08:00; override any column. */
export function buildPersonRow(name: string, overrides: Partial<PersonRow> = {}): PersonRow {
  return {
    id: randomUUID(),
    name,
    name_key: name.toLowerCase(),
    roles: 'reception',
    enabled: 1,
    pin_hash: null,
    setup_code_hash: null,
    setup_code_expires_at: null,
    failed_pins: 0,
    locked_until: null,
    last_login_at: null,
    created_at: '2026-11-30T08:00:00.000Z',
    ...overrides,
  };
}

/** What a desk PC has none of while it waits to join after its pairing: no join, revocation or visit. */
export const NOT_JOINED_YET = {
  joined_at: null,
  revoked_at: null,
  host_name: null,
  last_seen_at: null,
  last_address: null,
  desk_version: null,
};

/** A desk PC's row (db/devices.ts) named `name`, paired at 2026-11-30 08:00 and not joined yet, its code hashed as `codeHash`, valid until 08:10; override any column. */
export function buildDeviceRow(name: string, codeHash: string, overrides: Partial<DeviceRow> = {}): DeviceRow {
  return {
    id: randomUUID(),
    name,
    name_key: name.toLowerCase(),
    code_hash: codeHash,
    code_expires_at: '2026-11-30T08:10:00.000Z',
    token_hash: null,
    created_at: '2026-11-30T08:00:00.000Z',
    ...NOT_JOINED_YET,
    ...overrides,
  };
}

/**
 * A doctor's blocked time of no patient, as releases before 1.1.0 stored them: a copy of the
 * appointment `appointmentId` without its patient, written to the database directly (no use case
 * makes one now). Returns its id.
 */
export function insertBlockedTime(db: Db, appointmentId: string): string {
  const id = randomUUID();
  const columns = (db.prepare('SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0').all('appointments') as { name: string }[])
    .map((column) => column.name)
    .filter((name) => name !== 'seq');
  const row = db.prepare('SELECT * FROM appointments WHERE id = ?').get(appointmentId) as Record<string, unknown>;
  db.prepare(`INSERT INTO appointments (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(
    Object.fromEntries(columns.map((c) => [c, c === 'id' ? id : c === 'patient_id' ? null : row[c]])),
  );
  return id;
}
