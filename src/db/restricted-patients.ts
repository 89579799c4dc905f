import { preparedFor, type Db } from './open-database.js';

/** The erased patient a record belongs to: its number, or undefined when the record or its patient is not erased. */
type ErasedOwner = { patient_number: string } | undefined;

/**
 * The erased patient (1.3.0) a request's id names, by the kind of id: one probe of a primary key
 * or unique id, joined to the patient. Undefined for a patient not erased, or an id of nothing.
 */
const statements = preparedFor((db) => ({
  patient_id: db.prepare<[string], { patient_number: string }>(
    'SELECT patient_number FROM patients WHERE id = ? AND erased_at IS NOT NULL',
  ),
  appointment_id: db.prepare<[string], { patient_number: string }>(
    'SELECT p.patient_number FROM appointments a JOIN patients p ON p.id = a.patient_id WHERE a.id = ? AND p.erased_at IS NOT NULL',
  ),
  invoice_id: db.prepare<[string], { patient_number: string }>(
    'SELECT p.patient_number FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = ? AND p.erased_at IS NOT NULL',
  ),
  document_id: db.prepare<[string], { patient_number: string }>(
    'SELECT p.patient_number FROM documents d JOIN patients p ON p.id = d.patient_id WHERE d.id = ? AND p.erased_at IS NOT NULL',
  ),
  payment_id: db.prepare<[string], { patient_number: string }>(
    `SELECT p.patient_number FROM payments y JOIN invoices i ON i.id = y.invoice_id JOIN patients p ON p.id = i.patient_id
      WHERE y.id = ? AND p.erased_at IS NOT NULL`,
  ),
}));

/** The kinds of id a request may name a patient's record by. */
export const RECORD_ID_FIELDS = ['patient_id', 'appointment_id', 'invoice_id', 'document_id', 'payment_id'] as const;
export type RecordIdField = (typeof RECORD_ID_FIELDS)[number];

/** The erased patient that the record of `field` = `id` belongs to, if any. */
export function erasedOwnerOf(db: Db, field: RecordIdField, id: string): ErasedOwner {
  return statements(db)[field].get(id);
}
