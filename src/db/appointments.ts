import { preparedFor, type Db } from './open-database.js';
import { APPOINTMENT_READ_ONLY_FIELDS, APPOINTMENT_STATUS_DETAIL_FIELDS, APPOINTMENT_STORED_FIELDS } from '../fields/appointment-fields.js';

/** An `appointments` row joined with the patient fields the response repeats (spec 2.5). */
export interface AppointmentRow extends Record<string, unknown> {
  seq: number;
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
  ...APPOINTMENT_STATUS_DETAIL_FIELDS.map((spec) => spec.name),
];

/** What a change may write: every stored and read-only column but the booking's own. */
export const UPDATE_COLUMNS = [
  'updated_at',
  ...APPOINTMENT_STORED_FIELDS.map((spec) => spec.name).filter((name) => name !== 'patient_id'),
  ...APPOINTMENT_READ_ONLY_FIELDS.map((spec) => spec.name),
  ...APPOINTMENT_STATUS_DETAIL_FIELDS.map((spec) => spec.name),
];

type OverlapParams = { id: string; resource_id: string; start_at: string; end_at: string; earliest: string };

/** An appointment with the patient columns the response repeats: every read of AppointmentRow selects this. */
export const APPOINTMENT_WITH_PATIENT = `SELECT a.*,
            p.first_name AS patient_first_name, p.last_name AS patient_last_name,
            p.patient_number AS patient_number, p.email AS patient_email, p.mobile AS patient_mobile,
            p.cave AS patient_cave, p.classification AS patient_classification
       FROM appointments a LEFT JOIN patients p ON p.id = a.patient_id`;

/** Which appointments to list: those overlapping [from, to), optionally one doctor's or one patient's. */
export interface AppointmentFilter {
  from: string;
  to: string;
  resourceId: string | null;
  patientId: string | null;
  /** Only appointments with one of these statuses (1.2.0); null: every status. */
  statuses: readonly string[] | null;
}

/** Where a page starts: strictly after this (start_at, seq). */
export interface AppointmentCursor {
  start_at: string;
  seq: number;
}

/** Before every appointment: every start_at sorts after '' and seq starts at 1. */
export const BEFORE_FIRST_APPOINTMENT: AppointmentCursor = { start_at: '', seq: 0 };

type AppointmentListParams = {
  from: string;
  to: string;
  earliest: string;
  resource_id: string | null;
  patient_id: string | null;
  /** A JSON array of statuses, or null for every status. */
  statuses: string | null;
  after_start_at: string;
  after_seq: number;
  limit: number;
};

/**
 * Appointments overlapping [@from, @to) in time order, after a cursor. `start_at >= @earliest`
 * (from less the longest appointment ever booked) implies nothing the overlap does not, but
 * makes the start_at index range one day long instead of everything before @to.
 */
const LIST_FILTERS = {
  all: '',
  doctor: 'AND a.resource_id = @resource_id',
  patient: 'AND a.patient_id = @patient_id',
  both: 'AND a.resource_id = @resource_id AND a.patient_id = @patient_id',
} as const;

const listSql = (filter: keyof typeof LIST_FILTERS) => `${APPOINTMENT_WITH_PATIENT}
      WHERE a.start_at >= @earliest AND a.start_at < @to AND a.end_at > @from
        ${LIST_FILTERS[filter]} AND (@statuses IS NULL OR a.status IN (SELECT value FROM json_each(@statuses)))
        AND p.erased_at IS NULL
        AND (a.start_at, a.seq) > (@after_start_at, @after_seq)
      ORDER BY a.start_at, a.seq LIMIT @limit`;

// The column lists come from the field descriptions (constants), never from a request.
const statements = preparedFor((db) => ({
  insert: db.prepare<Record<string, unknown>>(
    `INSERT INTO appointments (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  ),
  insertService: db.prepare<{ appointment_id: string; position: number; service_id: string }>(
    'INSERT INTO appointment_services (appointment_id, position, service_id) VALUES (@appointment_id, @position, @service_id)',
  ),
  // LEFT JOIN: patient_id is nullable in the table, so a row without a patient still presents.
  byId: db.prepare<[string], AppointmentRow>(`${APPOINTMENT_WITH_PATIENT} WHERE a.id = ?`),
  list: {
    all: db.prepare<AppointmentListParams, AppointmentRow>(listSql('all')),
    doctor: db.prepare<AppointmentListParams, AppointmentRow>(listSql('doctor')),
    patient: db.prepare<AppointmentListParams, AppointmentRow>(listSql('patient')),
    both: db.prepare<AppointmentListParams, AppointmentRow>(listSql('both')),
  },
  longest: db.prepare<[], { longest_ms: number }>('SELECT longest_ms FROM appointment_extent WHERE id = 1'),
  stretchLongest: db.prepare<{ ms: number }>('UPDATE appointment_extent SET longest_ms = @ms WHERE id = 1 AND longest_ms < @ms'),
  // Another booked or arrived appointment of the doctor whose [start_at, end_at) meets [@start_at, @end_at);
  // `start_at >= @earliest` bounds the index range as the day sheet's does.
  overlapping: db.prepare<OverlapParams, { appointment_number: string }>(
    `SELECT a.appointment_number FROM appointments a
      WHERE a.resource_id = @resource_id AND a.start_at >= @earliest AND a.start_at < @end_at AND a.end_at > @start_at
        AND a.status IN ('booked', 'arrived') AND a.id <> @id
      ORDER BY a.start_at, a.seq`,
  ),
  update: db.prepare<Record<string, unknown>>(
    `UPDATE appointments SET ${UPDATE_COLUMNS.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`,
  ),
  deleteServices: db.prepare<[string]>('DELETE FROM appointment_services WHERE appointment_id = ?'),
  services: db.prepare<[string], AppointmentServiceRow>(
    `SELECT s.id, s.name, s.color, s.duration_min
       FROM appointment_services x JOIN services s ON s.id = x.service_id
      WHERE x.appointment_id = ? ORDER BY x.position`,
  ),
}));

/** The numbers of the doctor's other booked or arrived appointments that intersect [start_at, end_at), by start. */
export function findOverlappingAppointments(db: Db, params: Omit<OverlapParams, 'earliest'>): string[] {
  const prepared = statements(db);
  const longest = prepared.longest.get()?.longest_ms ?? 0;
  const earliest = new Date(Date.parse(params.start_at) - longest).toISOString();
  return prepared.overlapping.all({ ...params, earliest }).map((row) => row.appointment_number);
}

/** Stores an appointment's changed columns (every column of UPDATE_COLUMNS, keyed by name, with its id). */
export function updateAppointment(db: Db, columns: Record<string, unknown>): void {
  statements(db).update.run(columns);
}

/** Replaces the appointment's services with `serviceIds`, in that order. */
export function replaceAppointmentServices(db: Db, appointmentId: string, serviceIds: readonly string[]): void {
  statements(db).deleteServices.run(appointmentId);
  insertAppointmentServices(db, appointmentId, serviceIds);
}

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

/**
 * Keeps the longest appointment's length (appointment_extent) at least `lengthMs`; call in the
 * transaction that books it. Writes only when this one is the longest yet.
 */
export function recordAppointmentLength(db: Db, lengthMs: number): void {
  statements(db).stretchLongest.run({ ms: lengthMs });
}

function listParameters(filter: AppointmentFilter, after: AppointmentCursor, limit: number, longestMs: number): AppointmentListParams {
  return {
    from: filter.from,
    to: filter.to,
    earliest: new Date(Date.parse(filter.from) - longestMs).toISOString(),
    resource_id: filter.resourceId,
    patient_id: filter.patientId,
    statuses: filter.statuses === null ? null : JSON.stringify(filter.statuses),
    after_start_at: after.start_at,
    after_seq: after.seq,
    limit,
  };
}

function listStatementKey(filter: AppointmentFilter): keyof typeof LIST_FILTERS {
  if (filter.resourceId === null) return filter.patientId === null ? 'all' : 'patient';
  return filter.patientId === null ? 'doctor' : 'both';
}

/** Up to `limit` appointments of `filter` after `after`, by start_at then number. */
export function listAppointmentRows(db: Db, filter: AppointmentFilter, after: AppointmentCursor, limit: number): AppointmentRow[] {
  const prepared = statements(db);
  const longest = prepared.longest.get()?.longest_ms ?? 0;
  return prepared.list[listStatementKey(filter)].all(listParameters(filter, after, limit, longest));
}

/** SQLite's plan for listAppointmentRows(filter), one line per step (tests prove each list reads an index). */
export function explainAppointmentList(db: Db, filter: AppointmentFilter): string[] {
  const sql = listSql(listStatementKey(filter));
  return db
    .prepare<AppointmentListParams, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(listParameters(filter, BEFORE_FIRST_APPOINTMENT, 1, 0))
    .map((step) => step.detail);
}
