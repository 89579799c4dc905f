import {
  findAppointment,
  listAppointmentServices,
  recordAppointmentLength,
  replaceAppointmentServices,
  UPDATE_COLUMNS,
  updateAppointment,
  type AppointmentRow,
} from '../../db/appointments.js';
import { findDoctor } from '../../db/doctors.js';
import type { Db } from '../../db/open-database.js';
import { findService } from '../../db/services.js';
import {
  APPOINTMENT_PATCH_FIELDS,
  APPOINTMENT_PATH_FIELDS,
  APPOINTMENT_STATUSES,
  RESCHEDULE_FIELDS,
  type AppointmentStatus,
} from '../../fields/appointment-fields.js';
import { nowIso } from '../clock.js';
import { errors, ValidationError } from '../../errors.js';
import { defineUseCase } from '../use-case.js';
import { problems } from '../validation/problems.js';
import { issue } from '../validation/validate.js';
import { refuseOverlap, refuseRetired } from './book-appointment.js';
import { presentStoredAppointment, type Appointment } from './present-appointment.js';
import { appointmentData, type ChangeRecord } from '../changes/change-event.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { ROLE_ROWS } from '../people/roles.js';
import { followAppointmentChange } from '../reminders/plan-reminders.js';

/** An appointment after a patch, and the request's fields whose stored value changed (sorted). */
export interface UpdatedAppointment {
  appointment: Appointment;
  changed: string[];
}

/**
 * The fields of a patch the audit trail names when their stored value changed: what the request
 * can set, never what follows from it (reschedule_*, status_changed_at, the confirmations).
 */
const REQUEST_FIELDS = new Set([
  'status',
  'start_at',
  'end_at',
  'resource_id',
  'service_id',
  'title',
  'appointment_type',
  'color',
  'notes',
  'status_reason',
]);

/** Where each status may go (clinic-api-1.2.md, "Status and its transitions"). */
const NEXT_STATUSES: Readonly<Record<AppointmentStatus, readonly AppointmentStatus[]>> = {
  booked: ['arrived', 'no_show', 'cancelled'],
  arrived: ['completed', 'cancelled'],
  no_show: ['arrived'],
  completed: [],
  cancelled: [],
};

const isStatus = (value: string): value is AppointmentStatus => (APPOINTMENT_STATUSES as readonly string[]).includes(value);

/** Whether an appointment at `from` may become `to`: a 1.0.0 free status may become any of the five. */
export function mayBecome(from: string, to: AppointmentStatus): boolean {
  return from === to || !isStatus(from) || NEXT_STATUSES[from].includes(to);
}

/** Text columns are compared as stored; a time is compared as an instant. */
const sameInstant = (a: string, b: string) => Date.parse(a) === Date.parse(b);

/** What a change appends to the change feed: `changed` names request fields only, so a patch whose only effect was on none of them changed nothing. */
const updateChanges = ({ appointment, changed }: UpdatedAppointment): ChangeRecord[] =>
  changed.length === 0
    ? []
    : [{ type: 'appointment.updated', patientId: appointment.patient_id, data: { ...appointmentData(appointment), changed } }];

/** What a change records: appointment.update with the request fields it changed, when it is a patient's. */
const updateRecords = ({ appointment, changed }: UpdatedAppointment): AuditRecord[] =>
  appointment.patient_id === null
    ? []
    : [{ action: 'appointment.update', patientId: appointment.patient_id, subjectId: appointment.id, detail: { changed } }];

/**
 * Changes an appointment (PATCH /appointments/{appointment_id}, `clinic appointment
 * reschedule|cancel|arrived|completed|no-show`): a JSON merge patch of its times, doctor,
 * services, texts and status. In one IMMEDIATE transaction: the appointment (404); the status
 * move and a reschedule, which only a booked (or 1.0.0 free-status) appointment may have (409
 * APPOINTMENT_TRANSITION_INVALID); with `overlap: reject`, the doctor's other booked or arrived
 * appointments (409 APPOINTMENT_OVERLAP); then `end_at` after `start_at` (422 value_error) and
 * the doctor and services named (422). A reschedule keeps where it came from and asks the patient
 * to confirm again. A patch that changes nothing writes nothing.
 */
export const UPDATE_APPOINTMENT = defineUseCase({
  roles: ROLE_ROWS.writeAppointments,
  summary: 'Change, reschedule or cancel an appointment',
  input: { path: APPOINTMENT_PATH_FIELDS, body: APPOINTMENT_PATCH_FIELDS },
  mergePatch: true,
  refusals: [
    errors.appointmentNotFound(),
    errors.appointmentTransitionInvalid('completed', 'booked'),
    errors.appointmentOverlap(['A-000041']),
    errors.doctorNotFound(),
    errors.serviceNotFound(),
    errors.doctorRetired('3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e'),
    errors.serviceRetired('5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d'),
  ],
  access: 'read-then-write',
  run(db, { path, body }): UpdatedAppointment {
    const row = findAppointment(db, path.appointment_id);
    if (row === undefined) throw errors.appointmentNotFound();
    const now = nowIso();
    const columns: Record<string, unknown> = Object.fromEntries(UPDATE_COLUMNS.map((name) => [name, row[name] ?? null]));
    const changed = new Set<string>();
    const set = (name: string, value: unknown) => {
      if (columns[name] === value) return;
      columns[name] = value;
      changed.add(name);
    };

    const status = body.status;
    if (status !== undefined && status !== row.status) {
      if (!mayBecome(row.status, status)) throw errors.appointmentTransitionInvalid(row.status, status);
      set('status', status);
      set('status_changed_at', now);
    }
    const startAt = body.start_at ?? row.start_at;
    const endAt = body.end_at ?? row.end_at;
    const rescheduled = !sameInstant(startAt, row.start_at) || !sameInstant(endAt, row.end_at);
    if (rescheduled) {
      if (isStatus(row.status) && row.status !== 'booked') throw errors.appointmentTransitionInvalid(row.status, 'rescheduled');
      set('start_at', startAt);
      set('end_at', endAt);
      set('reschedule_from_start_at', row.start_at);
      set('reschedule_from_end_at', row.end_at);
      set('reschedule_at', now);
      set('reschedule_by_role', 'clinic');
      set('clinic_confirmed_at', now);
      set('patient_confirmed_at', null);
      // A decline was of the old time: the patient is asked again.
      set('patient_declined_at', null);
    }
    for (const name of ['resource_id', 'service_id', 'title', 'appointment_type', 'color', 'notes', 'status_reason'] as const) {
      if (body[name] !== undefined) set(name, body[name]);
    }

    if (body.overlap === 'reject') {
      refuseOverlap(db, {
        id: row.id,
        resource_id: columns.resource_id as string | null,
        status: columns.status as string,
        start_at: startAt,
        end_at: endAt,
      });
    }
    if (Date.parse(endAt) <= Date.parse(startAt)) {
      throw new ValidationError([issue(['body', 'end_at'], problems.valueError('end_at must be after start_at'), body.end_at ?? endAt)]);
    }
    if (body.resource_id !== undefined && body.resource_id !== null && !findDoctor(db, body.resource_id)) throw errors.doctorNotFound();
    const services = serviceChange(db, row, body.service_id, body.service_ids);
    if (services !== undefined) {
      if (services.some((serviceId) => !findService(db, serviceId))) throw errors.serviceNotFound();
      if (body.service_id !== undefined && body.service_id !== null && !findService(db, body.service_id)) throw errors.serviceNotFound();
    }
    const current = listAppointmentServices(db, row.id).map((s) => s.id);
    refuseRetiredAfterPatch(db, row, columns, { rescheduled, doctorChanged: changed.has('resource_id'), services, current });

    const servicesChanged = services !== undefined && services.join(' ') !== current.join(' ');
    const requestChanged = [...changed].filter((name) => REQUEST_FIELDS.has(name));
    if (servicesChanged) requestChanged.push(body.service_ids !== undefined ? 'service_ids' : 'service_id');
    const changedNames = [...new Set(requestChanged)].sort();
    if (changed.size === 0 && !servicesChanged) return { appointment: presentStoredAppointment(db, row), changed: changedNames };
    updateAppointment(db, { ...columns, id: row.id, updated_at: now });
    if (servicesChanged) replaceAppointmentServices(db, row.id, services);
    if (rescheduled) recordAppointmentLength(db, Date.parse(endAt) - Date.parse(startAt));
    const stored = findAppointment(db, row.id)!;
    followAppointmentChange(db, stored, { rescheduled, statusChanged: changed.has('status') });
    return { appointment: presentStoredAppointment(db, stored), changed: changedNames };
  },
  changes: (updated) => updateChanges(updated),
  audit: (updated) => updateRecords(updated),
});

/**
 * `clinic appointment reschedule`: the PATCH of a new start and, unless it is given, of the end
 * that keeps the appointment's length, read in the reschedule's own transaction.
 */
export const RESCHEDULE_APPOINTMENT = defineUseCase({
  roles: ROLE_ROWS.writeAppointments,
  summary: 'Move an appointment that is still booked; without an end it keeps its length',
  input: { path: APPOINTMENT_PATH_FIELDS, body: RESCHEDULE_FIELDS },
  refusals: UPDATE_APPOINTMENT.refusals,
  access: UPDATE_APPOINTMENT.access,
  run(db, { path, body }, caller): UpdatedAppointment {
    const row = findAppointment(db, path.appointment_id);
    const length = row === undefined ? undefined : Date.parse(row.end_at) - Date.parse(row.start_at);
    const endAt = body.end_at ?? (length === undefined ? undefined : new Date(Date.parse(body.start_at) + length).toISOString());
    const patch = {
      start_at: body.start_at,
      ...(endAt === undefined ? {} : { end_at: endAt }),
      ...(body.overlap === undefined ? {} : { overlap: body.overlap }),
    };
    return UPDATE_APPOINTMENT.run(db, { path, body: patch }, caller);
  },
  changes: (updated) => updateChanges(updated),
  audit: (updated) => updateRecords(updated),
});

/**
 * A patch that moves an appointment, or names a doctor or service it did not name before, needs
 * them bookable (1.3.0): 422 DOCTOR_RETIRED, SERVICE_RETIRED (refuseRetired). An appointment that
 * already names a retired one keeps it through any other change: its status, notes, title.
 */
function refuseRetiredAfterPatch(
  db: Db,
  row: AppointmentRow,
  columns: Readonly<Record<string, unknown>>,
  patch: { rescheduled: boolean; doctorChanged: boolean; services: string[] | undefined; current: string[] },
): void {
  const doctorId = columns.resource_id as string | null;
  const doctor = doctorId !== null && (patch.rescheduled || patch.doctorChanged) ? (findDoctor(db, doctorId) ?? null) : null;
  const before = new Set([...patch.current, ...(row.service_id === null ? [] : [row.service_id])]);
  const serviceId = columns.service_id as string | null;
  const after = new Set([...(patch.services ?? patch.current), ...(serviceId === null ? [] : [serviceId])]);
  const named = [...after].filter((id) => patch.rescheduled || !before.has(id));
  refuseRetired(
    doctor,
    named.map((id) => findService(db, id)).filter((service) => service !== undefined),
  );
}

/**
 * The appointment's services after a patch, or undefined when the patch leaves them: `service_ids`
 * replaces the list (empty: `[service_id]` if one is given, as booking reads it); `service_id`
 * alone replaces the list only where it was that one service or none.
 */
function serviceChange(
  db: Parameters<typeof listAppointmentServices>[0],
  row: AppointmentRow,
  serviceId: string | null | undefined,
  serviceIds: string[] | undefined,
): string[] | undefined {
  if (serviceIds !== undefined) {
    if (serviceIds.length > 0) return serviceIds;
    const single = serviceId === undefined ? row.service_id : serviceId;
    return single === null ? [] : [single];
  }
  if (serviceId === undefined) return undefined;
  const current = listAppointmentServices(db, row.id).map((service) => service.id);
  const followsServiceId = current.length === 0 || (current.length === 1 && current[0] === row.service_id);
  if (!followsServiceId) return undefined;
  return serviceId === null ? [] : [serviceId];
}
