import type { Db } from '../db/open-database.js';
import { findAppointmentIdBySeq, findInvoiceIdByNumber, findPatientIdBySeq } from '../db/references.js';
import { errors } from './errors.js';

/**
 * Staff references on the command line (clinic-api-1.1.md, last section): wherever a command
 * takes a patient, appointment or invoice, it takes the id or the number on paper, in any case
 * and with or without its zero padding (`P-000042`, `p-42`, `A-17`, `INV-2026-2`). A number that
 * names nothing is the API's 404 code. Anything else is passed on unchanged, to be checked as
 * the id it claims to be (422 uuid_parsing when it is none). The API takes ids only.
 */
const PATIENT_NUMBER = /^P-0*(\d{1,15})$/i;
const APPOINTMENT_NUMBER = /^A-0*(\d{1,15})$/i;
const INVOICE_NUMBER = /^INV-(\d{4})-0*(\d{1,15})$/i;

/** The patient id `reference` names: an id as given, or the id of patient number P-n. */
export function resolvePatientReference(db: Db, reference: string): string {
  const match = PATIENT_NUMBER.exec(reference.trim());
  if (!match) return reference;
  const id = findPatientIdBySeq(db, Number(match[1]));
  if (id === undefined) throw errors.patientNotFound(404, `No patient has the number ${reference.trim().toUpperCase()}.`);
  return id;
}

/** The appointment id `reference` names: an id as given, or the id of appointment number A-n. */
export function resolveAppointmentReference(db: Db, reference: string): string {
  const match = APPOINTMENT_NUMBER.exec(reference.trim());
  if (!match) return reference;
  const id = findAppointmentIdBySeq(db, Number(match[1]));
  if (id === undefined) throw errors.appointmentNotFound(`No appointment has the number ${reference.trim().toUpperCase()}.`);
  return id;
}

/** The invoice id `reference` names: an id as given, or the id of invoice INV-<year>-n. */
export function resolveInvoiceReference(db: Db, reference: string): string {
  const match = INVOICE_NUMBER.exec(reference.trim());
  if (!match) return reference;
  const id = findInvoiceIdByNumber(db, `INV-${match[1]}-${match[2]!.padStart(6, '0')}`);
  if (id === undefined) throw errors.invoiceNotFound(`No invoice has the number ${reference.trim().toUpperCase()}.`);
  return id;
}
