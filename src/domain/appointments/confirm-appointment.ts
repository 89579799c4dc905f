import { findAppointment, updateAppointment, UPDATE_COLUMNS, type AppointmentRow } from '../../db/appointments.js';
import type { Db } from '../../db/open-database.js';
import { hasEnded } from '../../db/reminders.js';
import { errors } from '../../errors.js';
import { APPOINTMENT_PATH_FIELDS } from '../../fields/appointment-fields.js';
import { appointmentData, type ChangeRecord, type ConfirmationVia } from '../changes/change-event.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { nowIso } from '../clock.js';
import { ROLE_ROWS } from '../people/roles.js';
import { defineUseCase } from '../use-case.js';
import { presentStoredAppointment, type Appointment } from './present-appointment.js';

/** An appointment after the patient's yes or no: whether it changed, and how the answer came. */
export interface PatientAnswer {
  appointment: Appointment;
  /** The patient's answer, as the audit action and feed type name it. */
  answer: 'confirm' | 'decline';
  /** False when the appointment already stood so: nothing is recorded. */
  changed: boolean;
  via: ConfirmationVia;
}

/**
 * The patient's answer written on the appointment (interface 1.3.0, "Channels and replies"): a
 * confirmation sets `patient_confirmed_at` and clears a decline; a decline the reverse, and the
 * status stays until the desk cancels. Only an appointment still to come in a status that is
 * booked or a 1.0.0 free string takes one (else 409 APPOINTMENT_TRANSITION_INVALID). One function
 * for a reply to a reminder, the desk and the API.
 */
export function answerForPatient(db: Db, row: AppointmentRow, answer: 'confirm' | 'decline', via: ConfirmationVia): PatientAnswer {
  if (hasEnded(row.status)) {
    throw errors.appointmentTransitionInvalid(row.status, answer === 'confirm' ? 'confirmed' : 'declined');
  }
  const now = nowIso();
  const confirming = answer === 'confirm';
  const declined = typeof row.patient_declined_at === 'string';
  const stands = confirming ? row.patient_confirmed_at !== null && !declined : declined;
  if (stands) return { appointment: presentStoredAppointment(db, row), answer, changed: false, via };
  const columns: Record<string, unknown> = Object.fromEntries(UPDATE_COLUMNS.map((name) => [name, row[name] ?? null]));
  updateAppointment(db, {
    ...columns,
    id: row.id,
    updated_at: now,
    patient_confirmed_at: confirming ? now : null,
    patient_declined_at: confirming ? null : now,
  });
  return { appointment: presentStoredAppointment(db, findAppointment(db, row.id)!), answer, changed: true, via };
}

/** What an answer appends to the feed: appointment.confirmed or .declined with `via`; nothing when nothing changed. */
export const answerChanges = ({ appointment, answer, changed, via }: PatientAnswer): ChangeRecord[] =>
  !changed
    ? []
    : [
        {
          type: answer === 'confirm' ? 'appointment.confirmed' : 'appointment.declined',
          patientId: appointment.patient_id,
          data: { ...appointmentData(appointment), via },
        },
      ];

/** What an answer records: appointment.confirm or .decline; nothing when nothing changed. */
export const answerRecords = ({ appointment, answer, changed }: PatientAnswer): AuditRecord[] =>
  !changed || appointment.patient_id === null
    ? []
    : [
        {
          action: answer === 'confirm' ? 'appointment.confirm' : 'appointment.decline',
          patientId: appointment.patient_id,
          subjectId: appointment.id,
          detail: null,
        },
      ];

/**
 * POST /appointments/{appointment_id}/confirm (confirmAppointment) and `clinic appointment
 * confirm REF`: the patient confirmed otherwise than by a reply (on the phone, at the desk, in an
 * integration's app), recorded as a reply would be, `via` desk or api. 404 for an unknown
 * appointment; 409 for one that is cancelled, a no-show, arrived or completed.
 */
export const CONFIRM_APPOINTMENT = defineUseCase({
  roles: ROLE_ROWS.writeAppointments,
  summary: 'Record that the patient confirmed an appointment',
  input: { path: APPOINTMENT_PATH_FIELDS },
  refusals: [errors.appointmentNotFound(), errors.appointmentTransitionInvalid('cancelled', 'confirmed')],
  access: 'read-then-write',
  run(db, { path }, caller): PatientAnswer {
    const row = findAppointment(db, path.appointment_id);
    if (row === undefined) throw errors.appointmentNotFound();
    return answerForPatient(db, row, 'confirm', caller.source === 'api' ? 'api' : 'desk');
  },
  changes: answerChanges,
  audit: answerRecords,
});
