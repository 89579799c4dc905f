import { findInvoice } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { findPatientName, type PatientNameRow } from '../../db/patient-names.js';
import { patientExists } from '../../db/patients.js';
import { readAppointment } from '../appointments/list-appointments.js';
import type { Appointment } from '../appointments/present-appointment.js';
import { listInvoices } from '../invoices/list-invoices.js';
import type { Invoice } from '../invoices/present-invoice.js';
import { readInvoice, type InvoiceDetail } from '../invoices/read-invoice.js';
import { errors } from '../errors.js';
import { listNotifications, type Notification } from '../notifications/list-notifications.js';
import { resolveAppointmentReference, resolveInvoiceReference, resolvePatientReference } from '../references.js';
import { readDeskContext, type DeskContext } from './desk-context.js';

/**
 * The desk's single records: the API's body for --json, and the context a person's printout
 * needs (the clinic time zone, names instead of ids). References are ids or staff numbers.
 */

/** `clinic appointment show REF`: GET /appointments/{id} by id or number; 404 APPOINTMENT_NOT_FOUND. */
export function readDeskAppointment(db: Db, reference: string): { appointment: Appointment; context: DeskContext } {
  return { appointment: readAppointment(db, resolveAppointmentReference(db, reference)), context: readDeskContext(db) };
}

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

/**
 * `clinic invoice list`: GET /invoices (all of it), and the number and name of each patient
 * listed. Unlike the API's filter, a --patient-id that names no patient is refused (404
 * PATIENT_NOT_FOUND), whether id or number: a person who mistyped it should not read "no invoices".
 */
export function listDeskInvoices(
  db: Db,
  query: { patient?: string; unpaid?: boolean },
): { invoices: Invoice[]; patients: ReadonlyMap<string, PatientNameRow>; context: DeskContext } {
  const patientId = query.patient === undefined ? undefined : resolvePatientReference(db, query.patient);
  const invoices = listInvoices(db, {
    ...(patientId === undefined ? {} : { patient_id: patientId }),
    ...(query.unpaid ? { unpaid: true } : {}),
  }).items;
  if (patientId !== undefined && invoices.length === 0 && !patientExists(db, patientId)) {
    throw errors.patientNotFound();
  }
  const patients = lookUpEach(
    invoices.map((invoice) => invoice.patient_id),
    (id) => findPatientName(db, id),
  );
  return { invoices, patients, context: readDeskContext(db) };
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
  const patients = lookUpEach(
    notifications.map((notification) => notification.patient_id),
    (id) => findPatientName(db, id),
  );
  const invoiceNumbers = lookUpEach(
    notifications.map((notification) => notification.invoice_id),
    (id) => findInvoice(db, id)?.invoice_number,
  );
  return { notifications, patients, invoiceNumbers, context: readDeskContext(db) };
}
