import { preparedFor, type Db } from './open-database.js';
import { APPOINTMENT_READ_ONLY_FIELDS, APPOINTMENT_STORED_FIELDS } from '../fields/appointment-fields.js';

/** An `appointments` row joined with the patient fields the response repeats (spec 2.5). */
export interface AppointmentRow extends Record<string, unknown> {
  id: string;
  appointment_number: string;
  booking_source: string;
  created_at: string;
  updated_at: string;
  start_at: string;
  end_at: string;
  patient_id: string | null;
  resource_id: string | null;
  service_id: string | null;
  status: string;
  clinic_confirmed_at: string | null;
  patient_confirmed_at: string | null;
  patient_first_name: string | null;
  patient_last_name: string | null;
  patient_number: string | null;
  patient_email: string | null;
  patient_mobile: string | null;
  patient_cave: string | null;
  patient_classification: string | null;
}

/** One service of an appointment, in its position, with what the AppointmentServiceBrief shows. */
export interface AppointmentServiceRow {
  id: string;
  name: string;
  color: string;
  duration_min: number;
}

const INSERT_COLUMNS = [
  'id',
  'booking_source',
  'created_at',
  'updated_at',
  ...APPOINTMENT_STORED_FIELDS.map((spec) => spec.name),
  ...APPOINTMENT_READ_ONLY_FIELDS.map((spec) => spec.name),
];

// The column lists come from the field descriptions (constants), never from a request.
const statements = preparedFor((db) => ({
  insert: db.prepare<Record<string, unknown>>(
    `INSERT INTO appointments (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  ),
  insertService: db.prepare<{ appointment_id: string; position: number; service_id: string }>(
    'INSERT INTO appointment_services (appointment_id, position, service_id) VALUES (@appointment_id, @position, @service_id)',
  ),
  // LEFT JOIN: patient_id is nullable in the table, so a row without a patient still presents.
  byId: db.prepare<[string], AppointmentRow>(
    `SELECT a.*,
            p.first_name AS patient_first_name, p.last_name AS patient_last_name,
            p.patient_number AS patient_number, p.email AS patient_email, p.mobile AS patient_mobile,
            p.cave AS patient_cave, p.classification AS patient_classification
       FROM appointments a LEFT JOIN patients p ON p.id = a.patient_id
      WHERE a.id = ?`,
  ),
  services: db.prepare<[string], AppointmentServiceRow>(
    `SELECT s.id, s.name, s.color, s.duration_min
       FROM appointment_services x JOIN services s ON s.id = x.service_id
      WHERE x.appointment_id = ? ORDER BY x.position`,
  ),
}));

/** Inserts an appointment from column values keyed by column name. */
export function insertAppointment(db: Db, columns: Record<string, unknown>): void {
  statements(db).insert.run(columns);
}

/** Records the appointment's services in the given order. */
export function insertAppointmentServices(db: Db, appointmentId: string, serviceIds: readonly string[]): void {
  const insert = statements(db).insertService;
  serviceIds.forEach((serviceId, position) => insert.run({ appointment_id: appointmentId, position, service_id: serviceId }));
}

/** The appointment with this id and its patient's fields, or undefined. */
export function findAppointment(db: Db, id: string): AppointmentRow | undefined {
  return statements(db).byId.get(id);
}

/** The appointment's services in their recorded order. */
export function listAppointmentServices(db: Db, appointmentId: string): AppointmentServiceRow[] {
  return statements(db).services.all(appointmentId);
}
