import type { DoctorRow } from '../../db/doctors.js';
import type { Db } from '../../db/open-database.js';
import { field } from '../../fields/field-spec.js';
import { MAX_PAGE_LIMIT } from '../../fields/page-fields.js';
import { appointmentListRecords, listAppointments } from '../appointments/list-appointments.js';
import { errors } from '../../errors.js';
import { defineUseCase } from '../use-case.js';
import type { Appointment } from '../appointments/present-appointment.js';
import { readDeskContext, type DeskContext } from './desk-context.js';
import { deskDate } from './desk-date.js';
import { findDoctorByReference } from './find-by-name.js';
import { ROLE_ROWS } from '../people/roles.js';

/** The day sheet: one clinic day's appointments, the clinic's or one doctor's. */
export interface DaySheet {
  /** The clinic day, YYYY-MM-DD. */
  date: string;
  /** The doctor asked for, or null for every doctor. */
  doctor: DoctorRow | null;
  /** Every appointment of the day, as GET /appointments?from=date&to=date orders them, all pages. */
  appointments: Appointment[];
  context: DeskContext;
}

/**
 * `clinic appointment list`: every appointment overlapping the clinic day `date` (default
 * today; see deskDate), optionally of one doctor given by id or name (findDoctorByReference).
 * Read page by page through the very list GET /appointments serves, so the two cannot disagree;
 * a day sheet is never cut at a page.
 */
export function readDaySheet(db: Db, query: { date?: string; doctor?: string }, now = Date.now()): DaySheet {
  const context = readDeskContext(db);
  const date = deskDate(query.date, context.timeZone, now);
  const doctor = query.doctor === undefined ? null : findDoctorByReference(db, query.doctor);
  const appointments: Appointment[] = [];
  let after: string | null = null;
  do {
    const page = listAppointments(db, {
      from: date,
      to: date,
      limit: MAX_PAGE_LIMIT,
      ...(doctor === null ? {} : { resource_id: doctor.id }),
      ...(after === null ? {} : { after }),
    });
    appointments.push(...page.items);
    after = page.next;
  } while (after !== null);
  return { date, doctor, appointments, context };
}

/** The input of `clinic appointment list`: the clinic day as the desk writes it (deskDate reads it) and the doctor by name or id. */
const DAY_SHEET_QUERY = [
  field.string('date', { description: 'the clinic day: 30.11.2026, 2026-11-30, today or tomorrow (default: today)' }),
  field.string('doctor', { description: "only this doctor's appointments: the name (any case, or a part of it) or the id" }),
] as const;

/**
 * `clinic appointment list`: the day sheet, recorded as GET /appointments records its pages: one
 * appointment.read per patient on it. 422 DOCTOR_NOT_FOUND for a doctor no name or id names.
 */
export const DAY_SHEET = defineUseCase({
  roles: ROLE_ROWS.readAppointments,
  summary: 'The day sheet: every appointment of a clinic day, in time order',
  input: { query: DAY_SHEET_QUERY },
  refusals: [errors.doctorNotFound()],
  access: 'read',
  run: (db, { query }) => readDaySheet(db, query),
  audit: ({ appointments }) => appointmentListRecords(appointments),
});
