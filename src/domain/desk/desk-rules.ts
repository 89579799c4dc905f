import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { findAppointment } from '../../db/appointments.js';
import { findPatientsWithTerm } from '../../db/patient-search.js';
import { APPOINTMENT_PATH_FIELDS } from '../../fields/appointment-fields.js';
import { field } from '../../fields/field-spec.js';
import { foldForSearch } from '../../fields/folded-text.js';
import { PATIENT_INPUT_FIELDS } from '../../fields/patient-fields.js';
import { dateOfBirthTerm } from '../../fields/search-terms.js';
import { mayBecome, UPDATE_APPOINTMENT, type UpdatedAppointment } from '../appointments/update-appointment.js';
import { errors } from '../../errors.js';
import { CREATE_PATIENT } from '../patients/create-patient.js';
import type { Patient } from '../patients/present-patient.js';
import { clinicTimeZone } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { formatDate, localDateOf, wallClockAt, weekdayOf } from '../validation/calendar.js';
import { ROLE_ROWS } from '../people/roles.js';

/**
 * The desk's own rules (issue 42): refusals the front desk makes and the API does not, because
 * at the desk they catch a slip of the hand, while an integration may mean what it sends. Each is
 * a use case the desk mounts in place of the API's, with the API's rules and one more, which the
 * desk may waive (`--allow-duplicate`, `--force`): declared here once, so that a desk on another
 * PC, whose commands the server runs, refuses alike.
 */

/** Whether the desk's rule holds (`reject`, the default) or is waived for this request (`allow`). */
const waiver = <const N extends string>(name: N, description: string) =>
  field.literal(name, { values: ['allow', 'reject'], default: 'reject', requestOnly: true, description });

/** A new patient as the desk creates one: POST /patients's fields, and whether a second patient of a name and date of birth is meant. */
export const DESK_PATIENT_FIELDS = [
  ...PATIENT_INPUT_FIELDS,
  waiver('duplicate', 'allow: create the patient although an active patient has the same name and date of birth (`--allow-duplicate`)'),
] as const;

/** `02.03.1985`: a date of birth as the refusal names it. */
const dottedDate = (date: string) => date.split('-').reverse().join('.');

/** A name as two people would write it alike: case, accents and spacing aside (`müller ` is `Müller`). */
const sameName = (a: string, b: string) => foldForSearch(a.trim().replace(/\s+/g, ' ')) === foldForSearch(b.trim().replace(/\s+/g, ' '));

/**
 * `clinic create-patient`: CREATE_PATIENT, unless an active patient has the same first and last
 * name (case and accents aside) and the same date of birth: then 409 PATIENT_DUPLICATE naming
 * them, and nothing is created, unless `duplicate: allow`. Without a date of birth there is
 * nothing to tell two people of one name apart by, so no patient is refused for the name alone.
 * Checked and written in one IMMEDIATE transaction, so two desks cannot both create the same
 * patient. The candidates are the patients of that date of birth, read through the search
 * terms' primary key: a handful, whatever the clinic's size.
 */
export const CREATE_PATIENT_AT_DESK = defineUseCase({
  roles: ROLE_ROWS.createPatients,
  summary: 'Create a patient, unless an active patient has the same name and date of birth',
  input: { header: IDEMPOTENCY_HEADER_FIELDS, body: DESK_PATIENT_FIELDS },
  // One key space with POST /patients: a key the API used is refused here (IDEMPOTENCY_KEY_REUSED),
  // the desk's request (with its duplicate check) being another request, and the other way round.
  answersOnce: CREATE_PATIENT.answersOnce!,
  refusals: [...CREATE_PATIENT.refusals, errors.patientDuplicate([{ patient_number: 'P-000003', name: 'Maria Müller' }], '02.03.1985')],
  access: 'read-then-write',
  run(db, { header, body }, caller): Patient {
    const born = body.date_of_birth;
    if (body.duplicate === 'reject' && born !== null) {
      const existing = findPatientsWithTerm(db, dateOfBirthTerm(born)).filter(
        (patient) =>
          patient.is_active === 1 && sameName(patient.first_name, body.first_name) && sameName(patient.last_name, body.last_name),
      );
      if (existing.length > 0) {
        const named = existing.map((patient) => ({
          patient_number: patient.patient_number,
          name: `${patient.first_name} ${patient.last_name}`,
        }));
        throw errors.patientDuplicate(named, dottedDate(born));
      }
    }
    return CREATE_PATIENT.run(db, { header, body }, caller);
  },
  changes: (patient, values) => CREATE_PATIENT.changes!(patient, values),
  audit: (patient, values, db) => CREATE_PATIENT.audit!(patient, values, db),
});

/** The statuses the desk sets by a word of its own (`appointment arrived|completed|no-show`): each says the time has come. */
const TIMED_STATUSES = ['arrived', 'completed', 'no_show'] as const;

/** A status move at the desk: the status, and whether it may be set before the appointment's time (`--force`). */
export const DESK_STATUS_FIELDS = [
  field.literal('status', { values: TIMED_STATUSES, required: true }),
  waiver('before_start', 'allow: set the status although the appointment has not started (`--force`)'),
] as const;

/** `on Wed 02.12.2026 at 14:00 (Europe/Vienna)`: when an appointment starts, as the refusal says it. */
function startsText(startAt: string, timeZone: string): string {
  const { year, month, day, hour, minute } = wallClockAt(timeZone, Date.parse(startAt));
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][weekdayOf({ year, month, day })]!;
  const two = (n: number) => String(n).padStart(2, '0');
  return `on ${weekday} ${two(day)}.${two(month)}.${year} at ${two(hour)}:${two(minute)} (${timeZone})`;
}

/**
 * Why the desk refuses to set `status` on an appointment starting at `startAt` at `now`, or
 * undefined when it may: a no-show before the start (the patient may still come), an arrival or
 * completion on an earlier clinic day than the appointment's (a patient arrives early, and may be
 * seen early, but not days before).
 */
function tooEarly(status: (typeof TIMED_STATUSES)[number], startAt: string, now: number, timeZone: string): string | undefined {
  if (status === 'no_show') return now < Date.parse(startAt) ? 'it cannot be a no-show before it has started' : undefined;
  const today = formatDate(localDateOf(now, timeZone));
  if (formatDate(localDateOf(Date.parse(startAt), timeZone)) <= today) return undefined;
  return status === 'arrived' ? 'a patient cannot arrive for it before its day' : 'it cannot be completed before its day';
}

/**
 * `clinic appointment arrived|completed|no-show`: UPDATE_APPOINTMENT's status move, unless it
 * says that an appointment took place, or was missed, before its time (tooEarly): then 409
 * APPOINTMENT_NOT_STARTED, unless `before_start: allow`. A move the status table forbids is
 * refused as the API refuses it (APPOINTMENT_TRANSITION_INVALID) before this rule is asked;
 * a status the appointment has already changes nothing and is not refused.
 */
export const SET_APPOINTMENT_STATUS_AT_DESK = defineUseCase({
  roles: ROLE_ROWS.writeAppointments,
  summary: "Set an appointment's status, unless its time has not come",
  input: { path: APPOINTMENT_PATH_FIELDS, body: DESK_STATUS_FIELDS },
  refusals: [
    ...UPDATE_APPOINTMENT.refusals,
    errors.appointmentNotStarted('A-000017', 'on Wed 02.12.2026 at 14:00 (Europe/Vienna)', 'it cannot be a no-show before it has started'),
  ],
  access: UPDATE_APPOINTMENT.access,
  run(db, { path, body }, caller): UpdatedAppointment {
    const row = findAppointment(db, path.appointment_id);
    if (row !== undefined && body.before_start === 'reject' && row.status !== body.status && mayBecome(row.status, body.status)) {
      const timeZone = clinicTimeZone(db);
      const why = tooEarly(body.status, row.start_at, Date.now(), timeZone);
      if (why !== undefined) throw errors.appointmentNotStarted(row.appointment_number, startsText(row.start_at, timeZone), why);
    }
    return UPDATE_APPOINTMENT.run(db, { path, body: { status: body.status } }, caller);
  },
  changes: (updated, values) => UPDATE_APPOINTMENT.changes!(updated, { path: values.path, body: { status: values.body.status } }),
  audit: (updated, values, db) => UPDATE_APPOINTMENT.audit!(updated, { path: values.path, body: { status: values.body.status } }, db),
});
