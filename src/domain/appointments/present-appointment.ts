import { listAppointmentServices, type AppointmentRow, type AppointmentServiceRow } from '../../db/appointments.js';
import type { Db } from '../../db/open-database.js';
import { findService, type ServiceRow } from '../../db/services.js';
import type { APPOINTMENT_RESPONSE_FIELDS, APPOINTMENT_SERVICE_BRIEF_FIELDS } from '../../fields/appointment-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { confirmationState } from './confirmation-state.js';

/** AppointmentServiceBrief of spec 2.5. */
export type AppointmentServiceBrief = ResponseOf<typeof APPOINTMENT_SERVICE_BRIEF_FIELDS>;

/** The Appointment of spec 2.5, fields in the specification's order. */
export type Appointment = ResponseOf<typeof APPOINTMENT_RESPONSE_FIELDS>;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The API shape of a stored appointment. `service_name`/`service_color` name `service_id`'s
 * service, else the first of the appointment's services (decisions.md §5).
 */
export function presentAppointment(
  row: AppointmentRow,
  services: readonly AppointmentServiceRow[],
  mainService: ServiceRow | undefined,
): Appointment {
  const named = mainService ?? services[0];
  return {
    id: row.id,
    appointment_number: row.appointment_number,
    booking_source: row.booking_source,
    resource_id: row.resource_id,
    patient_id: row.patient_id,
    service_id: row.service_id,
    title: text(row.title),
    appointment_type: text(row.appointment_type),
    color: text(row.color),
    notes: text(row.notes),
    start_at: row.start_at,
    end_at: row.end_at,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    patient_first_name: row.patient_first_name,
    patient_last_name: row.patient_last_name,
    patient_number: row.patient_number,
    patient_email: row.patient_email,
    patient_mobile: row.patient_mobile,
    patient_cave: row.patient_cave,
    patient_classification: row.patient_classification,
    service_name: named?.name ?? null,
    service_color: named?.color ?? null,
    service_ids: services.map((service) => service.id),
    services: services.map((service) => ({
      id: service.id,
      name: service.name,
      color: service.color,
      default_duration_min: service.duration_min,
    })),
    clinic_confirmed_at: row.clinic_confirmed_at,
    patient_confirmed_at: row.patient_confirmed_at,
    reschedule_from_start_at: text(row.reschedule_from_start_at),
    reschedule_from_end_at: text(row.reschedule_from_end_at),
    reschedule_at: text(row.reschedule_at),
    reschedule_by_role: text(row.reschedule_by_role),
    confirmation_reminder_sent_at: text(row.confirmation_reminder_sent_at),
    confirmation_state: confirmationState(row),
    status_reason: text(row.status_reason),
    status_changed_at: text(row.status_changed_at),
    patient_declined_at: text(row.patient_declined_at),
  };
}

/** A stored appointment in its API shape, with its services read from the database. */
export function presentStoredAppointment(db: Db, row: AppointmentRow): Appointment {
  const main = row.service_id === null ? undefined : findService(db, row.service_id);
  return presentAppointment(row, listAppointmentServices(db, row.id), main);
}
