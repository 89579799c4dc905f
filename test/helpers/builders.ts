import type { Db } from '../../src/db/open-database.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import type { Invoice } from '../../src/domain/invoices/present-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';

/** A valid POST /patients body; override any field. */
export function buildPatient(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org', mobile: '+43 660 1234567', ...overrides };
}

/** A string of exactly `length` characters. */
export function text(length: number, char = 'a'): string {
  return char.repeat(length);
}

/** A valid `clinic invoice create` input for `patientId` (total 100.00); override any field. */
export function buildInvoice(patientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { patient_id: patientId, total: '100.00', ...overrides };
}

/** A valid POST /invoices/{invoice_id}/payments body (10.00 in cash); override any field. */
export function buildPayment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: '10.00', method: 'cash', ...overrides };
}

/** Creates a patient (buildPatient with `overrides`) in `db`. */
export function createTestPatient(db: Db, overrides: Record<string, unknown> = {}): Patient {
  return createPatient(db, buildPatient(overrides));
}

/**
 * Issues an invoice in `db` (buildInvoice: total 100.00), for `overrides.patient_id` or else for
 * a new patient made for it: a test asks for an invoice and gets everything it needs.
 */
export function createTestInvoice(db: Db, overrides: Record<string, unknown> = {}): Invoice {
  const patientId = typeof overrides.patient_id === 'string' ? overrides.patient_id : createTestPatient(db).id;
  return createInvoice(db, buildInvoice(patientId, overrides));
}
