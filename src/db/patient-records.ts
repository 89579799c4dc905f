import { APPOINTMENT_WITH_PATIENT, type AppointmentRow } from './appointments.js';
import type { ChangeEventRow } from './change-events.js';
import { preparedFor, type Db } from './open-database.js';

/**
 * Everything of one patient at once, for the patient's copy (GDPR Art. 15): every appointment,
 * oldest first, through appointments_by_patient; the change feed's events about the patient.
 */
const statements = preparedFor((db) => ({
  appointments: db.prepare<[string], AppointmentRow>(`${APPOINTMENT_WITH_PATIENT} WHERE a.patient_id = ? ORDER BY a.start_at, a.seq`),
  // Every invoice, an erased patient's too (the lists leave those out): the copy holds what is kept.
  invoiceIds: db.prepare<[string], { id: string }>('SELECT id FROM invoices WHERE patient_id = ? ORDER BY issued_at, seq'),
  changeEvents: db.prepare<[string], ChangeEventRow>(
    'SELECT seq, type, occurred_at, patient_id, data FROM change_events WHERE patient_id = ? ORDER BY seq',
  ),
}));

/** Every appointment of a patient, by start then number. */
export function listPatientAppointmentRows(db: Db, patientId: string): AppointmentRow[] {
  return statements(db).appointments.all(patientId);
}

/** Every change feed event naming the patient, in order. */
export function listPatientChangeEvents(db: Db, patientId: string): ChangeEventRow[] {
  return statements(db).changeEvents.all(patientId);
}

/** The ids of every invoice of a patient, oldest first. */
export function listPatientInvoiceIds(db: Db, patientId: string): string[] {
  return statements(db)
    .invoiceIds.all(patientId)
    .map((row) => row.id);
}
