import { preparedFor, type Db } from './open-database.js';

/**
 * The SQL of a patient's erasure and of the purges after it (interface 1.3.0, "Erasure"): what
 * each category holds of one patient, and the statements that erase it. Every statement names
 * one patient or one record, through the indexes by patient (appointments, documents, invoices,
 * change events) or a primary key.
 */

/** What the erasure decides on of one appointment. */
export interface ErasableAppointment {
  id: string;
  appointment_number: string;
  status: string;
  start_at: string;
}

export interface ErasableDocument {
  id: string;
  document_number: string;
  type: string;
  created_at: string;
}

/** An invoice with the latest of its own date, its payments', refunds' and credit notes'. */
export interface ErasableInvoice {
  id: string;
  invoice_number: string;
  issued_at: string;
  latest_at: string;
}

/** A payment, refund or credit note of an invoice. */
export interface ErasableMoney {
  kind: 'payment' | 'refund' | 'credit_note';
  id: string;
  number: string | null;
  invoice_id: string;
}

const statements = preparedFor((db) => ({
  appointments: db.prepare<[string], ErasableAppointment>(
    'SELECT id, appointment_number, status, start_at FROM appointments WHERE patient_id = ? ORDER BY start_at, seq',
  ),
  documents: db.prepare<[string], ErasableDocument>(
    'SELECT id, document_number, type, created_at FROM documents WHERE patient_id = ? ORDER BY created_at, seq',
  ),
  invoices: db.prepare<[string], ErasableInvoice>(
    `SELECT i.id, i.invoice_number, i.issued_at,
            max(i.issued_at,
                coalesce((SELECT max(created_at) FROM payments WHERE invoice_id = i.id), ''),
                coalesce((SELECT max(created_at) FROM refunds WHERE invoice_id = i.id), ''),
                coalesce((SELECT max(created_at) FROM credit_notes WHERE invoice_id = i.id), ''),
                coalesce(i.voided_at, '')) AS latest_at
       FROM invoices i WHERE i.patient_id = ? ORDER BY i.issued_at, i.seq`,
  ),
  money: db.prepare<{ patient_id: string }, ErasableMoney>(
    `SELECT 'payment' AS kind, p.id, NULL AS number, p.invoice_id FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE i.patient_id = @patient_id
     UNION ALL
     SELECT 'refund', r.id, NULL, r.invoice_id FROM refunds r JOIN invoices i ON i.id = r.invoice_id WHERE i.patient_id = @patient_id
     UNION ALL
     SELECT 'credit_note', c.id, c.credit_note_number, c.invoice_id FROM credit_notes c JOIN invoices i ON i.id = c.invoice_id WHERE i.patient_id = @patient_id`,
  ),
  reminderIds: db.prepare<[string], { id: string }>(
    'SELECT r.id FROM reminders r WHERE r.appointment_id IN (SELECT id FROM appointments WHERE patient_id = ?)',
  ),
  replyIds: db.prepare<[string], { id: string }>('SELECT id FROM reminder_replies WHERE patient_id = ?'),
  notificationIds: db.prepare<[string], { id: string }>('SELECT id FROM notification_outbox WHERE patient_id = ?'),
  feedEvents: db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM change_events WHERE patient_id = ? AND data <> '{}'"),
  auditEvents: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM audit_events WHERE patient_id = ?'),
  erasedPatients: db.prepare<[], { id: string }>('SELECT id FROM patients WHERE erased_at IS NOT NULL ORDER BY seq'),

  markErased: db.prepare<{ id: string; at: string }>('UPDATE patients SET erased_at = @at, updated_at = @at WHERE id = @id'),
  dropSearchTerms: db.prepare<[string]>('DELETE FROM patient_search_terms WHERE patient_seq = (SELECT seq FROM patients WHERE id = ?)'),
  dropPhoneDigits: db.prepare<[string]>('DELETE FROM patient_phone_digits WHERE patient_seq = (SELECT seq FROM patients WHERE id = ?)'),
  deleteAppointmentReminders: db.prepare<[string]>('DELETE FROM reminders WHERE appointment_id = ?'),
  deleteAppointmentReplies: db.prepare<[string]>('UPDATE reminder_replies SET appointment_id = NULL WHERE appointment_id = ?'),
  deleteAppointmentServices: db.prepare<[string]>('DELETE FROM appointment_services WHERE appointment_id = ?'),
  deleteAppointment: db.prepare<[string]>('DELETE FROM appointments WHERE id = ?'),
  deletePatientReminders: db.prepare<[string]>(
    'DELETE FROM reminders WHERE appointment_id IN (SELECT id FROM appointments WHERE patient_id = ?)',
  ),
  deletePatientReplies: db.prepare<[string]>('DELETE FROM reminder_replies WHERE patient_id = ?'),
  deletePatientNotifications: db.prepare<[string]>('DELETE FROM notification_outbox WHERE patient_id = ?'),
  emptyFeedData: db.prepare<[string]>("UPDATE change_events SET data = '{}' WHERE patient_id = ? AND data <> '{}'"),
  // No fingerprint is 'erased': a request with the key is refused as the key's reuse until it expires.
  // An upload's answer (a Document) names its document, not the patient.
  deleteIdempotentAnswers: db.prepare<{ patient_id: string; patient_number: string }>(
    `UPDATE idempotent_answers SET fingerprint = 'erased', body = '{}'
      WHERE body LIKE '%' || @patient_id || '%'
         OR (operation = 'uploadDocument' AND json_extract(body, '$.id') IN (SELECT id FROM documents WHERE patient_id = @patient_id))
         OR (operation = 'runDeskCommand'
             AND (body GLOB '*' || @patient_number || '[^0-9]*' OR body GLOB '*' || @patient_number))`,
  ),
  deleteDocument: db.prepare<[string]>('DELETE FROM documents WHERE id = ?'),
  deleteInvoiceNotifications: db.prepare<[string]>('DELETE FROM notification_outbox WHERE invoice_id = ?'),
  deleteInvoiceCreditNotes: db.prepare<[string]>('DELETE FROM credit_notes WHERE invoice_id = ?'),
  deleteInvoiceRefunds: db.prepare<[string]>('DELETE FROM refunds WHERE invoice_id = ?'),
  deleteInvoicePayments: db.prepare<[string]>('DELETE FROM payments WHERE invoice_id = ?'),
  deleteInvoice: db.prepare<[string]>('DELETE FROM invoices WHERE id = ?'),
  deletePatient: db.prepare<[string]>('DELETE FROM patients WHERE id = ?'),
  notePurgedFile: db.prepare<{ document_id: string; patient_id: string; purged_at: string }>(
    'INSERT OR IGNORE INTO purged_document_files (document_id, patient_id, purged_at) VALUES (@document_id, @patient_id, @purged_at)',
  ),
  purgedFiles: db.prepare<[], { document_id: string; patient_id: string; purged_at: string }>(
    'SELECT document_id, patient_id, purged_at FROM purged_document_files ORDER BY purged_at, document_id',
  ),
  forgetPurgedFile: db.prepare<[string]>('DELETE FROM purged_document_files WHERE document_id = ?'),
}));

export const listErasableAppointments = (db: Db, patientId: string) => statements(db).appointments.all(patientId);
export const listErasableDocuments = (db: Db, patientId: string) => statements(db).documents.all(patientId);
export const listErasableInvoices = (db: Db, patientId: string) => statements(db).invoices.all(patientId);
export const listErasableMoney = (db: Db, patientId: string) => statements(db).money.all({ patient_id: patientId });
export const listPatientReminderIds = (db: Db, patientId: string) =>
  statements(db)
    .reminderIds.all(patientId)
    .map((r) => r.id);
export const listPatientReplyIds = (db: Db, patientId: string) =>
  statements(db)
    .replyIds.all(patientId)
    .map((r) => r.id);
export const listPatientNotificationIds = (db: Db, patientId: string) =>
  statements(db)
    .notificationIds.all(patientId)
    .map((r) => r.id);
export const countPatientFeedEvents = (db: Db, patientId: string) => statements(db).feedEvents.get(patientId)!.n;
export const countPatientAuditEvents = (db: Db, patientId: string) => statements(db).auditEvents.get(patientId)!.n;
/** The patients erased and not yet purged whole. */
export const listErasedPatientIds = (db: Db) =>
  statements(db)
    .erasedPatients.all()
    .map((r) => r.id);

/**
 * Restricts the patient from `at` on: marked erased, and gone from the search (the words it was
 * found by), so that no search or list shows it to anyone.
 */
export function markPatientErased(db: Db, patientId: string, at: string): void {
  const s = statements(db);
  s.markErased.run({ id: patientId, at });
  s.dropSearchTerms.run(patientId);
  s.dropPhoneDigits.run(patientId);
}

/** Sets each of `columns` of the patient to its value in `values` (null or the field's default). */
export function clearPatientColumns(db: Db, patientId: string, values: Readonly<Record<string, unknown>>): void {
  const columns = Object.keys(values);
  if (columns.length === 0) return;
  db.prepare(`UPDATE patients SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`).run({ ...values, id: patientId });
}

/** An appointment with its services and reminders; a reply that named it keeps no link to it. */
export function deleteAppointmentWhole(db: Db, appointmentId: string): void {
  const s = statements(db);
  s.deleteAppointmentReminders.run(appointmentId);
  s.deleteAppointmentReplies.run(appointmentId);
  s.deleteAppointmentServices.run(appointmentId);
  s.deleteAppointment.run(appointmentId);
}

/** The patient's reminders, the replies from them and the invoice notifications to them. */
export function deletePatientMessages(db: Db, patientId: string): void {
  const s = statements(db);
  s.deletePatientReminders.run(patientId);
  s.deletePatientReplies.run(patientId);
  s.deletePatientNotifications.run(patientId);
}

/** The data of the feed's events about the patient becomes {}; seq, type, time and patient stay. */
export function emptyPatientFeedData(db: Db, patientId: string): void {
  statements(db).emptyFeedData.run(patientId);
}

/**
 * The stored idempotent answers that name the patient lose what they held: the API's by the
 * patient's id, a desk PC's printouts by the patient's number (P-000042 followed by no digit).
 * Their keys stay taken until they expire (24 h): any request with one is refused as its reuse.
 */
export function deletePatientIdempotentAnswers(db: Db, patient: { id: string; patient_number: string }): void {
  statements(db).deleteIdempotentAnswers.run({ patient_id: patient.id, patient_number: patient.patient_number });
}

/** A document's row; its file is named for deletion once this commits (purged_document_files). */
export function deleteDocumentRow(db: Db, document: { id: string; patient_id: string }, purgedAt: string): void {
  statements(db).deleteDocument.run(document.id);
  statements(db).notePurgedFile.run({ document_id: document.id, patient_id: document.patient_id, purged_at: purgedAt });
}

/** The files of purged documents not yet deleted. */
export const listPurgedDocumentFiles = (db: Db) => statements(db).purgedFiles.all();

/** A purged document's file is gone. */
export function forgetPurgedDocumentFile(db: Db, documentId: string): void {
  statements(db).forgetPurgedFile.run(documentId);
}

/** An invoice with its payments, refunds, credit notes and notifications (an erased patient's only). */
export function deleteInvoiceWhole(db: Db, invoiceId: string): void {
  const s = statements(db);
  s.deleteInvoiceNotifications.run(invoiceId);
  s.deleteInvoiceCreditNotes.run(invoiceId);
  s.deleteInvoiceRefunds.run(invoiceId);
  s.deleteInvoicePayments.run(invoiceId);
  s.deleteInvoice.run(invoiceId);
}

/** The patient's row, once nothing of it is kept but the audit trail (its number is never reused). */
export function deletePatientRow(db: Db, patientId: string): void {
  const s = statements(db);
  s.dropSearchTerms.run(patientId);
  s.dropPhoneDigits.run(patientId);
  s.deletePatient.run(patientId);
}
