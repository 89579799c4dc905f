import { findInvoice } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { findPatientName, type PatientNameRow } from '../../db/patient-names.js';
import { readInvoice, type InvoiceDetail } from '../invoices/read-invoice.js';
import { listNotifications, type Notification } from '../notifications/list-notifications.js';
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

/**
 * `clinic notifications list`: the outbox as for --json, and the number and name of each patient
 * and the number of each invoice it names, so that people read no ids.
 */
export function listDeskNotifications(
  db: Db,
  query: { status?: unknown },
): {
  notifications: Notification[];
  patients: ReadonlyMap<string, PatientNameRow>;
  invoiceNumbers: ReadonlyMap<string, string>;
  context: DeskContext;
} {
  const notifications = listNotifications(db, query);
  const patients = patientNames(
    db,
    notifications.map((notification) => notification.patient_id),
  );
  const invoiceNumbers = lookUpEach(
    notifications.map((notification) => notification.invoice_id),
    (id) => findInvoice(db, id)?.invoice_number,
  );
  return { notifications, patients, invoiceNumbers, context: readDeskContext(db) };
}
