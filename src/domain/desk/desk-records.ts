import { findInvoice } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { findPatientName, type PatientNameRow } from '../../db/patient-names.js';
import { readInvoice, type InvoiceDetail } from '../invoices/read-invoice.js';
import { resolveInvoiceReference } from '../references.js';
import { readDeskContext, type DeskContext } from './desk-context.js';

/**
 * The desk's single records: the API's body for --json, and the context a person's printout
 * needs (the clinic time zone, names instead of ids). References are ids or staff numbers.
 */

/** `clinic invoice show REF`: GET /invoices/{id} by id or number (INV-2026-2); 404 INVOICE_NOT_FOUND. */
export function readDeskInvoice(db: Db, reference: string): { invoice: InvoiceDetail; context: DeskContext } {
  return { invoice: readInvoice(db, resolveInvoiceReference(db, reference)), context: readDeskContext(db) };
}

/** What `find` gives for each distinct id, asked once per id (a list names the same patient often); ids it finds nothing for are left out. */
function lookUpEach<T>(ids: readonly string[], find: (id: string) => T | undefined): Map<string, T> {
  const found = new Map<string, T>();
  for (const id of new Set(ids)) {
    const value = find(id);
    if (value !== undefined) found.set(id, value);
  }
  return found;
}

/** The number and name of each patient of `patientIds` (a list names the same patient often: each is read once). */
export function patientNames(db: Db, patientIds: readonly string[]): ReadonlyMap<string, PatientNameRow> {
  return lookUpEach(patientIds, (id) => findPatientName(db, id));
}

/** The number of each invoice of `invoiceIds` (a list names the same invoice often: each is read once). */
export function invoiceNumbers(db: Db, invoiceIds: readonly string[]): ReadonlyMap<string, string> {
  return lookUpEach(invoiceIds, (id) => findInvoice(db, id)?.invoice_number);
}
