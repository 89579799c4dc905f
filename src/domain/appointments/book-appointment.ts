import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import {
  findAppointment,
  findOverlappingAppointments,
  insertAppointment,
  insertAppointmentServices,
  recordAppointmentLength,
} from '../../db/appointments.js';
import { findDoctor, type DoctorRow } from '../../db/doctors.js';
import type { Db } from '../../db/open-database.js';
import { patientExists } from '../../db/patients.js';
import { findService, type ServiceRow } from '../../db/services.js';
import {
  APPOINTMENT_INPUT_FIELDS,
  DESK_BOOKING_FIELDS,
  APPOINTMENT_READ_ONLY_FIELDS,
  APPOINTMENT_STATUS_DETAIL_FIELDS,
  APPOINTMENT_STORED_FIELDS,
} from '../../fields/appointment-fields.js';
import { toColumn } from '../../fields/columns.js';
import { newId, nowIso } from '../clock.js';
import { errors, type ValidationIssue } from '../../errors.js';
import { defineUseCase, performUseCase, type Caller } from '../use-case.js';
import { problems } from '../validation/problems.js';
import { isPlainObject } from '../validation/structs.js';
import { issue } from '../validation/validate.js';
import { normalizeFields } from '../validation/values.js';
import { fieldNamed, type ValuesOf } from '../../fields/field-spec.js';
import { presentStoredAppointment, type Appointment } from './present-appointment.js';
import { onRecordOf } from '../audit/record-audit.js';
import { appointmentData, type ChangeRecord } from '../changes/change-event.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { ROLE_ROWS } from '../people/roles.js';
import { planBookingReminders } from '../reminders/plan-reminders.js';

type AppointmentValues = ValuesOf<typeof APPOINTMENT_INPUT_FIELDS>;

/** The two fields `end_at` after `start_at` compares, normalised on their own. */
const TIME_FIELDS = [fieldNamed(APPOINTMENT_INPUT_FIELDS, 'start_at'), fieldNamed(APPOINTMENT_INPUT_FIELDS, 'end_at')] as const;

/**
 * Checks that need more than one field or go beyond the schema's types, reported with the schema
 * issues in the same 422: a null `patient_id` counts as missing (the rule requires a patient,
 * decisions.md §5, and null is as absent as absence, like a null email in §4), and `end_at` must
 * be after `start_at`, compared as instants after the clinic time zone is applied.
 */
function crossFieldIssues(input: unknown, schemaIssues: readonly ValidationIssue[], timeZone: string): ValidationIssue[] {
  if (!isPlainObject(input)) return [];
  const found: ValidationIssue[] = [];
  if (input.patient_id === null) found.push(issue(['body', 'patient_id'], problems.missing(), input));
  const failed = new Set(schemaIssues.map((i) => i.loc[1]));
  if (!failed.has('start_at') && !failed.has('end_at') && input.end_at !== undefined) {
    const times = normalizeFields(TIME_FIELDS, input, { timeZone });
    if (Date.parse(times.end_at) <= Date.parse(times.start_at)) {
      found.push(issue(['body', 'end_at'], problems.valueError('end_at must be after start_at'), input.end_at));
    }
  }
  return found;
}

/**
 * The appointment's services in order: the request's `service_ids`, else `[service_id]` when
 * only that was given, else none. An empty `service_ids` counts as not given (docs/design-choices.md).
 */
function serviceList(values: Pick<AppointmentValues, 'service_id' | 'service_ids'>): string[] {
  const listed = values.service_ids;
  if (listed !== undefined && listed.length > 0) return listed;
  return values.service_id === null ? [] : [values.service_id];
}

/**
 * 409 APPOINTMENT_OVERLAP when an appointment that would be booked or arrived, with a doctor,
 * intersects another booked or arrived appointment of that doctor (clinic-api-1.2.md, "Overlaps").
 */
export function refuseOverlap(
  db: Db,
  appointment: { id: string; resource_id: string | null; status: string; start_at: string; end_at: string },
): void {
  if (appointment.resource_id === null || !['booked', 'arrived'].includes(appointment.status)) return;
  const conflicts = findOverlappingAppointments(db, {
    id: appointment.id,
    resource_id: appointment.resource_id,
    start_at: appointment.start_at,
    end_at: appointment.end_at,
  });
  if (conflicts.length > 0) throw errors.appointmentOverlap(conflicts);
}

/** What a booking appends to the change feed: appointment.created. */
const bookingChanges = (appointment: Appointment): ChangeRecord[] => [
  { type: 'appointment.created', patientId: appointment.patient_id, data: appointmentData(appointment) },
];

/**
 * A doctor or service that was retired (1.3.0) takes no new booking and no appointment moved to
 * another time: 422 DOCTOR_RETIRED, then SERVICE_RETIRED, each naming the first such one. Checked
 * after every named one was found to exist, so 1.2.0's refusals stay first.
 */
export function refuseRetired(doctor: DoctorRow | null, services: readonly ServiceRow[]): void {
  if (doctor !== null && doctor.retired_at !== null) throw errors.doctorRetired(doctor.id, doctor.name);
  const service = services.find((named) => named.retired_at !== null);
  if (service !== undefined) throw errors.serviceRetired(service.id, service.name);
}

/** What a booking records: appointment.create, when it is a patient's. */
const bookingRecords = (appointment: Appointment): AuditRecord[] =>
  onRecordOf('appointment.create', appointment.patient_id, appointment.id);

/**
 * Books an appointment for an existing patient (POST /appointments, `clinic book-appointment`).
 * Schema and cross-field checks first, every failing field at once; then the named patient,
 * doctor and services must exist (422 PATIENT_NOT_FOUND, DOCTOR_NOT_FOUND, SERVICE_NOT_FOUND, in
 * that order) and be bookable (DOCTOR_RETIRED, SERVICE_RETIRED: refuseRetired). The checks and
 * the inserts see one state of the database (access
 * `read-then-write`). A booking by the clinic counts as confirmed by the clinic at creation;
 * its `booking_source` is the front end it came through.
 */
export const BOOK_APPOINTMENT = defineUseCase({
  roles: ROLE_ROWS.writeAppointments,
  summary: 'Book an appointment for an existing patient',
  input: { header: IDEMPOTENCY_HEADER_FIELDS, body: APPOINTMENT_INPUT_FIELDS },
  answersOnce: { operation: 'bookAppointment', status: 201, what: 'booking' },
  refusals: [
    errors.appointmentOverlap(['A-000041']),
    errors.patientNotFound(422),
    errors.doctorNotFound(),
    errors.serviceNotFound(),
    errors.doctorRetired('3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e'),
    errors.serviceRetired('5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d'),
    errors.idempotencyKeyReused(),
  ],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues, { timeZone }) => crossFieldIssues(body, fieldIssues, timeZone),
  run(db, { body: values }, caller): Appointment {
    // Refused before run when null (crossFieldIssues).
    const patientId = values.patient_id!;
    const serviceIds = serviceList(values);
    const id = newId();
    // 409 before the coded 422s (clinic-api-1.2.md, "Conflicts"); checked and written in one
    // IMMEDIATE transaction, so of concurrent bookings of one slot exactly one gets it.
    if (values.overlap === 'reject') refuseOverlap(db, { ...values, id });
    if (!patientExists(db, patientId)) throw errors.patientNotFound(422);
    const doctor = values.resource_id === null ? null : findDoctor(db, values.resource_id);
    if (doctor === undefined) throw errors.doctorNotFound();
    // service_id alone is also the whole of serviceIds: each id is looked up once.
    const named = [...new Set(values.service_id === null ? serviceIds : [values.service_id, ...serviceIds])];
    const services = named.map((serviceId) => findService(db, serviceId));
    if (services.includes(undefined)) throw errors.serviceNotFound();
    refuseRetired(doctor, services as ServiceRow[]);

    const now = nowIso();
    const columns: Record<string, unknown> = { id, booking_source: caller.source, created_at: now, updated_at: now };
    const byName: Readonly<Record<string, unknown>> = values;
    for (const spec of APPOINTMENT_STORED_FIELDS) columns[spec.name] = toColumn(spec, byName[spec.name]);
    for (const spec of [...APPOINTMENT_READ_ONLY_FIELDS, ...APPOINTMENT_STATUS_DETAIL_FIELDS]) columns[spec.name] = null;
    columns.clinic_confirmed_at = now;
    insertAppointment(db, columns);
    insertAppointmentServices(db, id, serviceIds);
    recordAppointmentLength(db, Date.parse(values.end_at) - Date.parse(values.start_at));
    const stored = findAppointment(db, id);
    if (!stored) throw new Error(`appointment ${id} vanished after it was written`);
    planBookingReminders(db, stored);
    return presentStoredAppointment(db, stored);
  },
  changes: (appointment) => bookingChanges(appointment),
  audit: (appointment) => bookingRecords(appointment),
});

/** A booking at the desk without `end_at` and without services: nothing says when it ends (422 missing, as the API's). */
function deskEndIssues(input: unknown, schemaIssues: readonly ValidationIssue[]): ValidationIssue[] {
  if (!isPlainObject(input) || input.end_at !== undefined) return [];
  const servicesNamed = (Array.isArray(input.service_ids) && input.service_ids.length > 0) || typeof input.service_id === 'string';
  const startFailed = schemaIssues.some((failed) => failed.loc[1] === 'start_at');
  return servicesNamed && !startFailed ? [] : [issue(['body', 'end_at'], problems.missing(), input)];
}

/** The end of a booking that starts at `startAt` (UTC ISO) and lasts as long as its services together; 422 SERVICE_NOT_FOUND for one that is none. */
function endOfServices(db: Db, startAt: string, serviceIds: readonly string[]): string {
  const minutes = serviceIds.reduce((sum, serviceId) => {
    const service = findService(db, serviceId);
    if (service === undefined) throw errors.serviceNotFound();
    return sum + service.duration_min;
  }, 0);
  return new Date(Date.parse(startAt) + minutes * 60_000).toISOString();
}

/**
 * `clinic book-appointment`: BOOK_APPOINTMENT as the desk books, where `end_at` may be left out
 * when services are booked: the appointment then ends when they do (the start plus the sum of
 * their durations), decided in the booking's transaction.
 */
export const BOOK_APPOINTMENT_AT_DESK = defineUseCase({
  roles: ROLE_ROWS.writeAppointments,
  summary: 'Book an appointment; without an end it lasts as long as its services',
  input: { header: IDEMPOTENCY_HEADER_FIELDS, body: DESK_BOOKING_FIELDS },
  answersOnce: BOOK_APPOINTMENT.answersOnce!,
  refusals: BOOK_APPOINTMENT.refusals,
  access: BOOK_APPOINTMENT.access,
  moreIssues: ({ body }, fieldIssues, { timeZone }) => [
    ...deskEndIssues(body, fieldIssues),
    ...crossFieldIssues(body, fieldIssues, timeZone),
  ],
  run(db, { header, body }, caller): Appointment {
    const endAt = body.end_at ?? endOfServices(db, body.start_at, serviceList(body));
    return BOOK_APPOINTMENT.run(db, { header, body: { ...body, end_at: endAt } }, caller);
  },
  changes: (appointment) => bookingChanges(appointment),
  audit: (appointment) => bookingRecords(appointment),
});

/** BOOK_APPOINTMENT on a connection of its own, booked as `source`. */
export function bookAppointment(db: Db, body: unknown, source: Caller['source']): Appointment {
  return performUseCase(BOOK_APPOINTMENT, db, { body }, { source, actor: null });
}
