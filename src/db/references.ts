import { preparedFor, type Db } from './open-database.js';

// The numbers on paper are made from `seq` (patients, appointments, documents: a generated column) or
// stored with a UNIQUE index (invoices), so each lookup is one index probe.
const statements = preparedFor((db) => ({
  patient: db.prepare<[number], { id: string }>('SELECT id FROM patients WHERE seq = ?'),
  appointment: db.prepare<[number], { id: string }>('SELECT id FROM appointments WHERE seq = ?'),
  invoice: db.prepare<[string], { id: string }>('SELECT id FROM invoices WHERE invoice_number = ?'),
  document: db.prepare<[number], { id: string }>('SELECT id FROM documents WHERE seq = ?'),
}));

/** The id of the patient numbered P-<seq>, or undefined. */
export function findPatientIdBySeq(db: Db, seq: number): string | undefined {
  return statements(db).patient.get(seq)?.id;
}

/** The id of the appointment numbered A-<seq>, or undefined. */
export function findAppointmentIdBySeq(db: Db, seq: number): string | undefined {
  return statements(db).appointment.get(seq)?.id;
}

/** The id of the invoice with this invoice number (INV-2026-000002), or undefined. */
export function findInvoiceIdByNumber(db: Db, invoiceNumber: string): string | undefined {
  return statements(db).invoice.get(invoiceNumber)?.id;
}

/** The id of the document numbered D-<seq>, or undefined. */
export function findDocumentIdBySeq(db: Db, seq: number): string | undefined {
  return statements(db).document.get(seq)?.id;
}
