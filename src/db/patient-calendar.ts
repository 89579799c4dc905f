import { APPOINTMENT_WITH_PATIENT, type AppointmentRow } from './appointments.js';
import { preparedFor, type Db } from './open-database.js';

type UpcomingParams = { patient_id: string; now: string; earliest: string; limit: number };

/**
 * A patient's appointments that end after @now, soonest first. `start_at >= @earliest` (now less
 * the longest appointment ever booked, appointment_extent) adds nothing to `end_at > @now` but
 * turns it into a range of appointments_by_patient (patient_id, start_at), read in order.
 */
const UPCOMING_SQL = `${APPOINTMENT_WITH_PATIENT}
      WHERE a.patient_id = @patient_id AND a.start_at >= @earliest AND a.end_at > @now
      ORDER BY a.start_at, a.seq LIMIT @limit`;

const statements = preparedFor((db) => ({
  upcoming: db.prepare<UpcomingParams, AppointmentRow>(UPCOMING_SQL),
  longest: db.prepare<[], { longest_ms: number }>('SELECT longest_ms FROM appointment_extent WHERE id = 1'),
}));

/** Up to `limit` of a patient's appointments that end after `now` (UTC ISO), by start then number. */
export function listUpcomingAppointmentRows(db: Db, patientId: string, now: string, limit: number): AppointmentRow[] {
  const prepared = statements(db);
  const longest = prepared.longest.get()?.longest_ms ?? 0;
  const earliest = new Date(Date.parse(now) - longest).toISOString();
  return prepared.upcoming.all({ patient_id: patientId, now, earliest, limit });
}

/** SQLite's plan for listUpcomingAppointmentRows, one line per step (tests prove it reads an index, in order). */
export function explainUpcomingAppointments(db: Db): string[] {
  return db
    .prepare<UpcomingParams, { detail: string }>(`EXPLAIN QUERY PLAN ${UPCOMING_SQL}`)
    .all({ patient_id: '', now: '', earliest: '', limit: 1 })
    .map((step) => step.detail);
}
