import type { Db } from '../db/open-database.js';
import { findAppointmentIdBySeq, findDocumentIdBySeq, findInvoiceIdByNumber, findPatientIdBySeq } from '../db/references.js';
import { findInvoice } from '../db/invoices.js';
import { listPaymentRows, type PaymentRow } from '../db/payments.js';
import { appointmentSeqOf, documentSeqOf, idOf, invoiceNumberOf, patientSeqOf } from '../fields/human-numbers.js';
import { errors } from '../errors.js';

/**
 * Staff references on the command line (clinic-api-1.1.md, last section): wherever a command
 * takes a patient, appointment, invoice or (1.3.0) document, it takes the id or the number on
 * paper, in any case and with or without its zero padding (`P-000042`, `p-42`, `A-17`,
 * `INV-2026-2`, `D-17`). A number that
 * names nothing is the API's 404 code. Anything else is passed on unchanged, to be checked as
 * the id it claims to be (422 uuid_parsing when it is none). The API takes ids only.
 */

/** The patient id `reference` names: an id as given, or the id of patient number P-n. */
export function resolvePatientReference(db: Db, reference: string): string {
  const seq = patientSeqOf(reference.trim());
  if (seq === undefined) return reference;
  const id = findPatientIdBySeq(db, seq);
  if (id === undefined) throw errors.patientNotFound(404, `No patient has the number ${reference.trim().toUpperCase()}.`);
  return id;
}

/** The appointment id `reference` names: an id as given, or the id of appointment number A-n. */
export function resolveAppointmentReference(db: Db, reference: string): string {
  const seq = appointmentSeqOf(reference.trim());
  if (seq === undefined) return reference;
  const id = findAppointmentIdBySeq(db, seq);
  if (id === undefined) throw errors.appointmentNotFound(`No appointment has the number ${reference.trim().toUpperCase()}.`);
  return id;
}

/** The invoice id `reference` names: an id as given, or the id of invoice INV-<year>-n. */
export function resolveInvoiceReference(db: Db, reference: string): string {
  const invoiceNumber = invoiceNumberOf(reference.trim());
  if (invoiceNumber === undefined) return reference;
  const id = findInvoiceIdByNumber(db, invoiceNumber);
  if (id === undefined) throw errors.invoiceNotFound(`No invoice has the number ${reference.trim().toUpperCase()}.`);
  return id;
}

/** The document id `reference` names: an id as given, or the id of document number D-n. */
export function resolveDocumentReference(db: Db, reference: string): string {
  const seq = documentSeqOf(reference.trim());
  if (seq === undefined) return reference;
  const id = findDocumentIdBySeq(db, seq);
  if (id === undefined) throw errors.documentNotFound(`No document has the number ${reference.trim().toUpperCase()}.`);
  return id;
}

/**
 * The payments of the invoice `reference` names, in the order recorded: position N of this list
 * is payment N as `clinic invoice show` numbers them (`clinic refund --payment N`). An invoice
 * that does not exist is INVOICE_NOT_FOUND.
 */
export function paymentsOfInvoiceReference(db: Db, reference: string): { invoiceNumber: string; payments: PaymentRow[] } {
  const id = idOf(resolveInvoiceReference(db, reference));
  const invoice = id === undefined ? undefined : findInvoice(db, id);
  if (invoice === undefined) throw errors.invoiceNotFound();
  return { invoiceNumber: invoice.invoice_number, payments: listPaymentRows(db, invoice.id) };
}
