import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/db/open-database.js';
import { BOOK_APPOINTMENT, BOOK_APPOINTMENT_AT_DESK } from '../../../src/domain/appointments/book-appointment.js';
import type { Appointment } from '../../../src/domain/appointments/present-appointment.js';
import { addDoctor, addService, RETIRE_DOCTOR, RETIRE_SERVICE } from '../../../src/domain/catalog.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPatient, idempotencyHeader, text } from '../../helpers/builders.js';
import { appointmentEventData } from '../../helpers/change-feed.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * BOOK_APPOINTMENT (POST /appointments) and BOOK_APPOINTMENT_AT_DESK (`clinic book-appointment`),
 * rule by rule. The Appointment as the API shows it (every field in order, numbering, limits):
 * test/server/routes/appointments.test.ts; the desk's options and printout:
 * test/cli/commands/appointment.test.ts; a retired doctor or service over the API:
 * test/server/retired-catalog.test.ts.
 */

interface Given {
  patientId: string;
  doctorId: string;
  /** Services of 45, 30 and 10 minutes. */
  cleaning: string;
  filling: string;
  xray: string;
}

/** A clinic in UTC (or `zone`) with a patient, a doctor and three services; `before` runs next. */
const aClinic =
  (before: (db: Db, given: Given) => void = () => {}, zone = 'UTC') =>
  (db: Db): Given => {
    setClinicTimeZone(db, zone);
    const given: Given = {
      patientId: createPatient(db, buildPatient({ cave: 'Penicillin', classification: 'VIP' })).id,
      doctorId: addDoctor(db, { name: 'Dr. Grey', color: '#123456' }).id,
      cleaning: addService(db, { name: 'Cleaning', duration_min: 45, price: 80, color: '#00ff00' }).id,
      filling: addService(db, { name: 'Filling', duration_min: 30, price: 120, color: '#ff0000' }).id,
      xray: addService(db, { name: 'X-ray', duration_min: 10, price: 40, color: '#0000ff' }).id,
    };
    before(db, given);
    return given;
  };

/** A booking of the clinic's patient, 09:00-09:30 UTC on 1 December 2026; `overrides` of the given's ids or values. */
const booking = (given: Given, overrides: Record<string, unknown> = {}) => ({
  patient_id: given.patientId,
  start_at: '2026-12-01T09:00:00Z',
  end_at: '2026-12-01T09:30:00Z',
  ...overrides,
});

const request =
  (overrides: (given: Given) => Record<string, unknown> = () => ({}), key?: string) =>
  (given: Given) => ({ header: idempotencyHeader(key), body: booking(given, overrides(given)) });

const book = (db: Db, body: Record<string, unknown>, key?: string) =>
  performUseCase(BOOK_APPOINTMENT, db, { header: idempotencyHeader(key), body }, DESK_USER);

/** appointment.create of the appointment made, and appointment.created with its number, times, status and doctor. */
const bookingRecords = {
  audit: (appointment: { id: string; patient_id: string }) => [
    {
      action: 'appointment.create',
      patient_id: appointment.patient_id,
      subject_type: 'appointment',
      subject_id: appointment.id,
      detail: null,
    },
  ],
  changes: (appointment: Appointment) => [
    {
      type: 'appointment.created',
      patient_id: appointment.patient_id,
      data: appointmentEventData(appointment),
    },
  ],
};

/** Booked, with `result`'s fields, and its two records. */
const booked = (result: Record<string, unknown>): Outcome => ({ result, ...bookingRecords });

/** Refused as off its schema, at these fields with these types. */
const invalid = (...issues: [type: string, loc: string][]): Outcome => ({
  invalid: issues.map(([, loc]) => loc),
  types: issues.map(([type]) => type),
});

const unknown = randomUUID();

/** A booking of aClinic() that names what no row is (`unknown`): refused with 422 `code`, that of the first it names. */
const namingUnknown = (title: string, overrides: (given: Given) => Record<string, unknown>, code: string): Scenario<Given> => ({
  title,
  given: aClinic(),
  request: request(overrides),
  expect: () => ({ refused: code, status: 422 }),
});

const scenarios: Scenario<Given>[] = [
  {
    title: 'books the patient: numbered, booked, confirmed by the clinic at creation, with the patient fields copied',
    given: aClinic(),
    request: request(),
    expect: (given) =>
      booked({
        appointment_number: 'A-000001',
        booking_source: 'cli',
        patient_id: given.patientId,
        status: 'booked',
        start_at: '2026-12-01T09:00:00.000Z',
        end_at: '2026-12-01T09:30:00.000Z',
        patient_first_name: 'Ada',
        patient_last_name: 'Lovelace',
        patient_number: 'P-000001',
        patient_cave: 'Penicillin',
        patient_classification: 'VIP',
        resource_id: null,
        service_id: null,
        service_ids: [],
        services: [],
        title: null,
        patient_confirmed_at: null,
        confirmation_state: 'awaiting_patient',
      }),
  },
  {
    title: 'numbers the next booking after the last',
    given: aClinic((db, given) => book(db, booking(given))),
    request: request(),
    expect: () => booked({ appointment_number: 'A-000002' }),
  },
  {
    title: 'books with a doctor, who is named in the change event',
    given: aClinic(),
    request: request((given) => ({ resource_id: given.doctorId })),
    expect: (given) => ({
      result: { resource_id: given.doctorId },
      audit: bookingRecords.audit,
      changes: [{ type: 'appointment.created', dataIncludes: { resource_id: given.doctorId } }],
    }),
  },
  {
    title: 'keeps any status text',
    given: aClinic(),
    request: request(() => ({ status: 'waiting list' })),
    expect: () => ({
      result: { status: 'waiting list' },
      audit: bookingRecords.audit,
      changes: [{ type: 'appointment.created', dataIncludes: { status: 'waiting list' } }],
    }),
  },
  // Services.
  {
    title: 'lists service_ids in the request order, with their briefs in the same order',
    given: aClinic(),
    request: request((given) => ({ service_ids: [given.xray, given.cleaning, given.filling] })),
    expect: (given) =>
      booked({
        service_ids: [given.xray, given.cleaning, given.filling],
        services: [
          { id: given.xray, name: 'X-ray', color: '#0000ff', default_duration_min: 10 },
          { id: given.cleaning, name: 'Cleaning', color: '#00ff00', default_duration_min: 45 },
          { id: given.filling, name: 'Filling', color: '#ff0000', default_duration_min: 30 },
        ],
      }),
  },
  {
    title: 'takes service_name and service_color from the first of service_ids when service_id is absent',
    given: aClinic(),
    request: request((given) => ({ service_ids: [given.filling, given.cleaning] })),
    expect: () => booked({ service_id: null, service_name: 'Filling', service_color: '#ff0000' }),
  },
  {
    title: 'takes service_name and service_color from service_id when both are given',
    given: aClinic(),
    request: request((given) => ({ service_id: given.xray, service_ids: [given.filling, given.cleaning] })),
    expect: (given) =>
      booked({ service_id: given.xray, service_name: 'X-ray', service_color: '#0000ff', service_ids: [given.filling, given.cleaning] }),
  },
  {
    title: 'lists [service_id] as service_ids when only service_id is given',
    given: aClinic(),
    request: request((given) => ({ service_id: given.cleaning })),
    expect: (given) =>
      booked({
        service_ids: [given.cleaning],
        services: [{ id: given.cleaning, name: 'Cleaning', color: '#00ff00', default_duration_min: 45 }],
        service_name: 'Cleaning',
      }),
  },
  {
    title: 'treats an empty service_ids like an absent one',
    given: aClinic(),
    request: request((given) => ({ service_id: given.cleaning, service_ids: [] })),
    expect: (given) => booked({ service_ids: [given.cleaning] }),
  },
  {
    title: 'keeps a service listed twice twice',
    given: aClinic(),
    request: request((given) => ({ service_ids: [given.cleaning, given.cleaning] })),
    expect: (given) => booked({ service_ids: [given.cleaning, given.cleaning] }),
  },
  // Date-times.
  ...[
    {
      title: 'converts a date-time with an offset to UTC',
      start: '2026-12-01T09:00:00+02:00',
      end: '2026-12-01T09:30:00-01:30',
      startUtc: '2026-12-01T07:00:00.000Z',
      endUtc: '2026-12-01T11:00:00.000Z',
    },
    {
      title: 'keeps a date-time with Z as it is, adding milliseconds',
      start: '2026-12-01T09:00:00Z',
      end: '2026-12-01T09:30:15.250Z',
      startUtc: '2026-12-01T09:00:00.000Z',
      endUtc: '2026-12-01T09:30:15.250Z',
    },
    {
      title: 'reads a date-time without an offset in the clinic time zone (Berlin winter, +1)',
      zone: 'Europe/Berlin',
      start: '2026-12-01T09:00:00',
      end: '2026-12-01T09:30',
      startUtc: '2026-12-01T08:00:00.000Z',
      endUtc: '2026-12-01T08:30:00.000Z',
    },
    {
      title: 'reads a date-time without an offset in the clinic time zone (Berlin summer, +2)',
      zone: 'Europe/Berlin',
      start: '2026-07-01T09:00',
      end: '2026-07-01T10:00',
      startUtc: '2026-07-01T07:00:00.000Z',
      endUtc: '2026-07-01T08:00:00.000Z',
    },
    {
      title: 'accepts a date-time whose seconds are omitted',
      start: '2026-12-01T09:00Z',
      end: '2026-12-01T10:45+01:00',
      startUtc: '2026-12-01T09:00:00.000Z',
      endUtc: '2026-12-01T09:45:00.000Z',
    },
  ].map(({ title, zone, start, end, startUtc, endUtc }): Scenario<Given> => ({
    title,
    given: aClinic(undefined, zone),
    request: request(() => ({ start_at: start, end_at: end })),
    expect: () => booked({ start_at: startUtc, end_at: endUtc }),
  })),
  {
    title: 'refuses end_at equal to start_at with a value_error at end_at',
    given: aClinic(),
    request: request(() => ({ start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:00:00.000Z' })),
    expect: () => invalid(['value_error', 'body.end_at']),
  },
  {
    title: 'refuses end_at before start_at, comparing instants rather than wall-clock text',
    given: aClinic(),
    // 09:30+02:00 is 07:30Z, before 09:00Z.
    request: request(() => ({ start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30+02:00' })),
    expect: () => invalid(['value_error', 'body.end_at']),
  },
  ...['2026-02-30T09:00Z', '0000-12-01T09:00Z', '9999-12-31T23:00-02:00'].map((startAt): Scenario<Given> => ({
    title: `refuses ${startAt}, a date-time not on the calendar or that UTC output cannot write`,
    given: aClinic(),
    request: request(() => ({ start_at: startAt })),
    expect: () => invalid(['datetime_parsing', 'body.start_at']),
  })),
  // Off the schema.
  {
    title: 'refuses a missing patient_id as missing',
    given: aClinic(),
    request: () => ({ body: { start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T10:00Z' } }),
    expect: () => invalid(['missing', 'body.patient_id']),
  },
  {
    title: 'refuses a null patient_id as missing',
    given: aClinic(),
    request: request(() => ({ patient_id: null })),
    expect: () => invalid(['missing', 'body.patient_id']),
  },
  {
    title: 'refuses a malformed patient_id',
    given: aClinic(),
    request: request(() => ({ patient_id: 'P-000001' })),
    expect: () => invalid(['uuid_parsing', 'body.patient_id']),
  },
  {
    title: 'refuses a booking without start_at and end_at',
    given: aClinic(),
    request: (given) => ({ body: { patient_id: given.patientId } }),
    expect: () => invalid(['missing', 'body.start_at'], ['missing', 'body.end_at']),
  },
  {
    title: 'refuses a date-only start_at',
    given: aClinic(),
    request: request(() => ({ start_at: '2026-12-01' })),
    expect: () => invalid(['datetime_parsing', 'body.start_at']),
  },
  {
    title: 'refuses a service_ids that is not a list',
    given: aClinic(),
    request: request((given) => ({ service_ids: given.cleaning })),
    expect: () => invalid(['list_type', 'body.service_ids']),
  },
  {
    title: 'refuses a malformed entry of service_ids at its index',
    given: aClinic(),
    request: request((given) => ({ service_ids: [given.cleaning, 'x'] })),
    expect: () => invalid(['uuid_parsing', 'body.service_ids.1']),
  },
  {
    title: 'refuses a null status',
    given: aClinic(),
    request: request(() => ({ status: null })),
    expect: () => invalid(['string_type', 'body.status']),
  },
  {
    title: 'refuses a numeric title',
    given: aClinic(),
    request: request(() => ({ title: 5 })),
    expect: () => invalid(['string_type', 'body.title']),
  },
  {
    title: 'refuses a 201-character title, a 65-character appointment_type and a 17-character color',
    given: aClinic(),
    request: request(() => ({ title: text(201), appointment_type: text(65), color: text(17) })),
    expect: () =>
      invalid(['string_too_long', 'body.title'], ['string_too_long', 'body.appointment_type'], ['string_too_long', 'body.color']),
  },
  {
    title: 'refuses an overlap rule other than allow or reject',
    given: aClinic(),
    request: request(() => ({ overlap: 'maybe' })),
    expect: () => ({ invalid: ['body.overlap'] }),
  },
  {
    title: 'refuses a body that is not an object',
    given: aClinic(),
    request: () => ({ body: [] }),
    expect: () => invalid(['model_attributes_type', 'body']),
  },
  {
    title: 'reports every failing field at once, the cross-field ones last',
    given: aClinic(),
    request: () => ({ body: { patient_id: null, start_at: 'soon', end_at: '2026-12-01T10:00Z', color: text(17), resource_id: 'x' } }),
    expect: () =>
      invalid(
        ['datetime_parsing', 'body.start_at'],
        ['uuid_parsing', 'body.resource_id'],
        ['string_too_long', 'body.color'],
        ['missing', 'body.patient_id'],
      ),
  },
  {
    title: 'reports a schema problem before an unknown patient',
    given: aClinic(),
    request: request(() => ({ patient_id: unknown, title: text(201) })),
    expect: () => invalid(['string_too_long', 'body.title']),
  },
  // What the request names.
  namingUnknown('refuses an unknown patient (422 PATIENT_NOT_FOUND)', () => ({ patient_id: unknown }), 'PATIENT_NOT_FOUND'),
  namingUnknown('refuses an unknown doctor (422 DOCTOR_NOT_FOUND)', () => ({ resource_id: unknown }), 'DOCTOR_NOT_FOUND'),
  namingUnknown('refuses an unknown service_id (422 SERVICE_NOT_FOUND)', () => ({ service_id: unknown }), 'SERVICE_NOT_FOUND'),
  namingUnknown(
    'refuses an unknown entry of service_ids (422 SERVICE_NOT_FOUND)',
    (given) => ({ service_ids: [given.cleaning, unknown] }),
    'SERVICE_NOT_FOUND',
  ),
  namingUnknown(
    'names the unknown patient before the unknown doctor',
    () => ({ patient_id: unknown, resource_id: randomUUID() }),
    'PATIENT_NOT_FOUND',
  ),
  namingUnknown(
    'names the unknown doctor before the unknown service',
    () => ({ resource_id: unknown, service_id: randomUUID() }),
    'DOCTOR_NOT_FOUND',
  ),
  {
    title: 'refuses a retired doctor, by name (422 DOCTOR_RETIRED)',
    given: aClinic((db, given) => performUseCase(RETIRE_DOCTOR, db, { path: { doctor_id: given.doctorId } }, DESK_USER)),
    request: request((given) => ({ resource_id: given.doctorId })),
    expect: () => ({ refused: 'DOCTOR_RETIRED', status: 422, message: /Dr\. Grey/ }),
  },
  {
    title: 'refuses a retired service among those booked, by name (422 SERVICE_RETIRED)',
    given: aClinic((db, given) => performUseCase(RETIRE_SERVICE, db, { path: { service_id: given.filling } }, DESK_USER)),
    request: request((given) => ({ service_ids: [given.cleaning, given.filling] })),
    expect: () => ({ refused: 'SERVICE_RETIRED', status: 422, message: /Filling/ }),
  },
  {
    title: 'names an unknown service before a retired doctor',
    given: aClinic((db, given) => performUseCase(RETIRE_DOCTOR, db, { path: { doctor_id: given.doctorId } }, DESK_USER)),
    request: request((given) => ({ resource_id: given.doctorId, service_id: unknown })),
    expect: () => ({ refused: 'SERVICE_NOT_FOUND', status: 422 }),
  },
  // Overlaps (1.2.0).
  {
    title: "books over another of the doctor's appointments by default (overlap allow)",
    given: aClinic((db, given) => book(db, booking(given, { resource_id: given.doctorId }))),
    request: request((given) => ({ resource_id: given.doctorId, start_at: '2026-12-01T09:15Z', end_at: '2026-12-01T09:45Z' })),
    expect: () => booked({ appointment_number: 'A-000002' }),
  },
  {
    title: "refuses with overlap reject a booking that intersects the doctor's, naming it (409 APPOINTMENT_OVERLAP)",
    given: aClinic((db, given) => book(db, booking(given, { resource_id: given.doctorId }))),
    request: request((given) => ({
      resource_id: given.doctorId,
      start_at: '2026-12-01T09:15Z',
      end_at: '2026-12-01T09:45Z',
      overlap: 'reject',
    })),
    expect: () => ({ refused: 'APPOINTMENT_OVERLAP', status: 409, message: /A-000001/ }),
  },
  {
    title: 'books with overlap reject right after the other ends, or over one that was cancelled',
    given: aClinic((db, given) => {
      book(db, booking(given, { resource_id: given.doctorId }));
      book(
        db,
        booking(given, { resource_id: given.doctorId, start_at: '2026-12-01T10:00Z', end_at: '2026-12-01T10:30Z', status: 'cancelled' }),
      );
    }),
    request: request((given) => ({
      resource_id: given.doctorId,
      start_at: '2026-12-01T09:30Z',
      end_at: '2026-12-01T10:30Z',
      overlap: 'reject',
    })),
    expect: () => booked({ appointment_number: 'A-000003' }),
  },
  {
    title: 'refuses the overlap before an unknown patient (409 first)',
    given: aClinic((db, given) => book(db, booking(given, { resource_id: given.doctorId }))),
    request: request((given) => ({ resource_id: given.doctorId, patient_id: unknown, overlap: 'reject' })),
    expect: () => ({ refused: 'APPOINTMENT_OVERLAP', status: 409 }),
  },
  // Idempotency-Key (1.3.0).
  {
    title: 'answers a repeated booking under its Idempotency-Key with the first answer, booking nothing more',
    given: aClinic((db, given) => book(db, booking(given), 'booking-1')),
    request: request(() => ({}), 'booking-1'),
    expect: () => ({ result: { appointment_number: 'A-000001' }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a key used for another booking (422 IDEMPOTENCY_KEY_REUSED)',
    given: aClinic((db, given) => book(db, booking(given), 'booking-1')),
    request: request(() => ({ title: 'Another' }), 'booking-1'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
];

const deskScenarios: Scenario<Given>[] = [
  {
    title: 'ends a booking without end_at when its services do, in order of the list',
    given: aClinic(),
    request: (given) => ({
      body: { patient_id: given.patientId, start_at: '2026-12-01T09:00Z', service_ids: [given.cleaning, given.xray] },
    }),
    expect: () => booked({ start_at: '2026-12-01T09:00:00.000Z', end_at: '2026-12-01T09:55:00.000Z' }),
  },
  {
    title: 'takes end_at as given even when services are booked',
    given: aClinic(),
    request: request((given) => ({ service_id: given.cleaning })),
    expect: () => booked({ end_at: '2026-12-01T09:30:00.000Z' }),
  },
  {
    title: 'refuses a booking with neither end_at nor services: nothing says when it ends',
    given: aClinic(),
    request: (given) => ({ body: { patient_id: given.patientId, start_at: '2026-12-01T09:00Z' } }),
    expect: () => invalid(['missing', 'body.end_at']),
  },
  {
    title: 'refuses an unknown service of a booking without end_at (422 SERVICE_NOT_FOUND)',
    given: aClinic(),
    request: (given) => ({ body: { patient_id: given.patientId, start_at: '2026-12-01T09:00Z', service_ids: [unknown] } }),
    expect: () => ({ refused: 'SERVICE_NOT_FOUND', status: 422 }),
  },
];

describeScenarios('BOOK_APPOINTMENT', BOOK_APPOINTMENT, scenarios);
describeScenarios('BOOK_APPOINTMENT_AT_DESK', BOOK_APPOINTMENT_AT_DESK, deskScenarios);
