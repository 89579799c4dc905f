import type { AppointmentRow, AppointmentServiceRow } from '../../db/appointments.js';
import type { ServiceRow } from '../../db/services.js';
import { confirmationState, type ConfirmationState } from './confirmation-state.js';

/** AppointmentServiceBrief of spec 2.5. */
export interface AppointmentServiceBrief {
  id: string;
  name: string;
  color: string;
  default_duration_min: number;
}

/** The Appointment of spec 2.5, fields in the specification's order. */
export interface Appointment {
  id: string;
  appointment_number: string;
  booking_source: string;
  resource_id: string | null;
  patient_id: string | null;
  service_id: string | null;
  title: string | null;
  appointment_type: string | null;
  color: string | null;
  notes: string | null;
  start_at: string;
  end_at: string;
  status: string;
  created_at: string;
  updated_at: string;
  patient_first_name: string | null;
  patient_last_name: string | null;
  patient_number: string | null;
  patient_email: string | null;
  patient_mobile: string | null;
  patient_cave: string | null;
  patient_classification: string | null;
  service_name: string | null;
  service_color: string | null;
  service_ids: string[];
  services: AppointmentServiceBrief[];
  clinic_confirmed_at: string | null;
  patient_confirmed_at: string | null;
  reschedule_from_start_at: string | null;
  reschedule_from_end_at: string | null;
  reschedule_at: string | null;
  reschedule_by_role: string | null;
  confirmation_reminder_sent_at: string | null;
  confirmation_state: ConfirmationState;
}

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
  };
}
