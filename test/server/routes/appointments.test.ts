import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, beforeEach, describe, it } from 'node:test';
import { addDoctor, addService, type Doctor, type Service } from '../../../src/domain/catalog.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { buildPatient, createTestPatient, text } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { runClinic } from '../../helpers/run-cli.js';
import { APPOINTMENT_KEYS } from '../../helpers/api-shapes.js';

const countAppointments = (server: TestServer) => (server.db.prepare('SELECT count(*) AS n FROM appointments').get() as { n: number }).n;

describe('POST /appointments', () => {
  const server = useTestServer();
  let patient: Record<string, unknown> & { id: string };
  let doctor: Doctor;
  let cleaning: Service;
  let xray: Service;

  /** A valid booking for the test patient; override any field. */
  const buildAppointment = (overrides: Record<string, unknown> = {}) => ({
    patient_id: patient.id,
    start_at: '2026-12-01T09:00:00Z',
    end_at: '2026-12-01T09:30:00Z',
    ...overrides,
  });
  const book = (body: unknown, options: { key?: string | null; headers?: Record<string, string> } = {}) =>
    server.request('POST', '/appointments', { body, ...options });

  before(async () => {
    setClinicTimeZone(server.db, 'UTC');
    patient = createPatient(server.db, buildPatient({ cave: 'Penicillin', classification: 'VIP' }));
    doctor = addDoctor(server.db, { name: 'Dr. Grey', color: '#123456' });
    cleaning = addService(server.db, { name: 'Cleaning', duration_min: 45, price: 80, color: '#00ff00' });
    xray = addService(server.db, { name: 'X-ray', duration_min: 10, price: 40, color: '#0000ff' });
  });
  beforeEach(() => setClinicTimeZone(server.db, 'UTC'));

  describe('a valid booking', () => {
    it('answers 201 with every field of the Appointment in the specified order', async () => {
      const response = await book(
        buildAppointment({ resource_id: doctor.id, service_id: cleaning.id, title: 'Check-up', notes: 'Bring x-rays' }),
      );
      assert.equal(response.status, 201);
      assert.deepEqual(Object.keys(response.body), APPOINTMENT_KEYS);
      const appointment = response.body;
      assert.match(appointment.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(appointment.appointment_number, /^A-\d{6}$/);
      assert.equal(appointment.booking_source, 'api');
      assert.equal(appointment.resource_id, doctor.id);
      assert.equal(appointment.patient_id, patient.id);
      assert.equal(appointment.title, 'Check-up');
      assert.equal(appointment.notes, 'Bring x-rays');
      assert.equal(appointment.start_at, '2026-12-01T09:00:00.000Z');
      assert.equal(appointment.end_at, '2026-12-01T09:30:00.000Z');
      assert.match(appointment.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(appointment.updated_at, appointment.created_at);
    });

    it('copies the patient fields from the patient', async () => {
      const { body } = await book(buildAppointment());
      assert.equal(body.patient_first_name, 'Ada');
      assert.equal(body.patient_last_name, 'Lovelace');
      assert.equal(body.patient_number, patient.patient_number);
      assert.equal(body.patient_email, 'ada@example.org');
      assert.equal(body.patient_mobile, '+43 660 1234567');
      assert.equal(body.patient_cave, 'Penicillin');
      assert.equal(body.patient_classification, 'VIP');
    });

    it('defaults status to booked and the optional fields to null', async () => {
      const { status, body } = await book(buildAppointment());
      assert.equal(status, 201);
      assert.equal(body.status, 'booked');
      for (const key of ['resource_id', 'service_id', 'title', 'appointment_type', 'color', 'notes', 'service_name', 'service_color']) {
        assert.equal(body[key], null, key);
      }
      assert.deepEqual(body.service_ids, []);
      assert.deepEqual(body.services, []);
    });

    it('accepts any status text', async () => {
      const { body } = await book(buildAppointment({ status: 'tentative' }));
      assert.equal(body.status, 'tentative');
    });

    it('marks a booking made by the clinic as confirmed by the clinic at creation, awaiting the patient', async () => {
      const { body } = await book(buildAppointment());
      assert.equal(body.clinic_confirmed_at, body.created_at);
      assert.equal(body.patient_confirmed_at, null);
      assert.equal(body.confirmation_state, 'awaiting_patient');
      for (const key of [
        'reschedule_from_start_at',
        'reschedule_from_end_at',
        'reschedule_at',
        'reschedule_by_role',
        'confirmation_reminder_sent_at',
      ]) {
        assert.equal(body[key], null, key);
      }
    });

    it('numbers appointments A-000001, A-000002, … in booking order', async () => {
      const fresh = await startTestServer();
      try {
        const owner = createPatient(fresh.db, buildPatient());
        const numbers: string[] = [];
        for (let i = 0; i < 3; i++) {
          const response = await fresh.request('POST', '/appointments', {
            body: { patient_id: owner.id, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T10:00Z' },
          });
          numbers.push(response.body.appointment_number);
        }
        assert.deepEqual(numbers, ['A-000001', 'A-000002', 'A-000003']);
      } finally {
        await fresh.close();
      }
    });

    it('never reuses an appointment number, even after the newest row is gone', async () => {
      const first = await book(buildAppointment());
      server.db.prepare('DELETE FROM appointments WHERE id = ?').run(first.body.id);
      const second = await book(buildAppointment());
      const n = (value: string) => Number(value.slice(2));
      assert.equal(n(second.body.appointment_number), n(first.body.appointment_number) + 1);
    });

    it('accepts upper-case ids and returns them lower-case', async () => {
      const { status, body } = await book(
        buildAppointment({ patient_id: patient.id.toUpperCase(), service_id: cleaning.id.toUpperCase() }),
      );
      assert.equal(status, 201);
      assert.equal(body.patient_id, patient.id);
      assert.deepEqual(body.service_ids, [cleaning.id]);
    });

    it('ignores unknown fields', async () => {
      const { status } = await book(buildAppointment({ room: 'B' }));
      assert.equal(status, 201);
    });
  });

  // Every rule of a booking (services, date-times, refusals, overlaps, keys) is a row of
  // BOOK_APPOINTMENT's table, test/domain/appointments/book-appointment.test.ts; here, how the API shows them.
  describe('what the rules decide, as the API shows it', () => {
    it('reads a date-time without an offset in the clinic time zone and answers it in UTC', async () => {
      setClinicTimeZone(server.db, 'Europe/Berlin');
      const response = await book(
        buildAppointment({ start_at: '2026-12-01T09:00:00', end_at: '2026-12-01T09:30', service_ids: [xray.id, cleaning.id] }),
      );
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.start_at, '2026-12-01T08:00:00.000Z');
      assert.equal(response.body.end_at, '2026-12-01T08:30:00.000Z');
      assert.deepEqual(
        response.body.services.map((service: { name: string }) => service.name),
        ['X-ray', 'Cleaning'],
      );
    });

    it('refuses end_at equal to start_at with a value_error at end_at, storing nothing', async () => {
      const before = countAppointments(server);
      const response = await book(buildAppointment({ start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:00:00.000Z' }));
      assert.equal(response.status, 422);
      assert.deepEqual(
        response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
        [['value_error', ['body', 'end_at']]],
      );
      assert.equal(countAppointments(server), before);
    });
  });

  describe('limits', () => {
    const scenarios: { field: string; max: number }[] = [
      { field: 'title', max: 200 },
      { field: 'appointment_type', max: 64 },
      { field: 'color', max: 16 },
    ];
    for (const { field, max } of scenarios) {
      it(`accepts a ${max}-character ${field}`, async () => {
        const response = await book(buildAppointment({ [field]: text(max) }));
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body[field], text(max));
      });
      it(`rejects a ${max + 1}-character ${field}`, async () => {
        const response = await book(buildAppointment({ [field]: text(max + 1) }));
        assert.equal(response.status, 422);
        assert.deepEqual(response.body.detail, [
          {
            type: 'string_too_long',
            loc: ['body', field],
            msg: `String should have at most ${max} characters`,
            input: text(max + 1),
            ctx: { max_length: max },
          },
        ]);
      });
    }
  });

  describe('refusals', () => {
    it('reports every failing field at once, each with its type and place, storing nothing', async () => {
      const before = countAppointments(server);
      const response = await book({ patient_id: null, start_at: 'soon', end_at: '2026-12-01T10:00Z', color: text(17), resource_id: 'x' });
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(
        response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
        [
          ['datetime_parsing', ['body', 'start_at']],
          ['uuid_parsing', ['body', 'resource_id']],
          ['string_too_long', ['body', 'color']],
          ['missing', ['body', 'patient_id']],
        ],
      );
      assert.equal(countAppointments(server), before);
    });

    it('refuses an unknown patient with 422 PATIENT_NOT_FOUND and a message, storing nothing', async () => {
      const before = countAppointments(server);
      const response = await book(buildAppointment({ patient_id: randomUUID() }));
      assert.equal(response.status, 422, response.text);
      assert.equal(response.body.detail.code, 'PATIENT_NOT_FOUND');
      assert.equal(typeof response.body.detail.message, 'string');
      assert.equal(countAppointments(server), before);
    });

    it('refuses an overlap with 409 APPOINTMENT_OVERLAP', async () => {
      const first = await book(buildAppointment({ resource_id: doctor.id, start_at: '2027-01-04T09:00Z', end_at: '2027-01-04T09:30Z' }));
      assert.equal(first.status, 201, first.text);
      const response = await book(
        buildAppointment({ resource_id: doctor.id, start_at: '2027-01-04T09:15Z', end_at: '2027-01-04T09:45Z', overlap: 'reject' }),
      );
      assert.equal(response.status, 409, response.text);
      assert.equal(response.body.detail.code, 'APPOINTMENT_OVERLAP');
    });

    it('requires an API key (401)', async () => {
      const response = await book(buildAppointment(), { key: null });
      assert.equal(response.status, 401);
      assert.equal(response.body.detail.code, 'UNAUTHENTICATED');
    });

    it('requires the appointments:write scope (403)', async () => {
      const response = await book(buildAppointment(), { key: server.createKey(['patients:write']) });
      assert.equal(response.status, 403);
      assert.equal(response.body.detail.code, 'FORBIDDEN');
    });

    it('refuses a body that is not JSON with 415', async () => {
      const response = await server.request('POST', '/appointments', {
        rawBody: 'a=b',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(response.status, 415);
      assert.equal(response.body.detail.code, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 405 for DELETE on the collection, naming GET and POST', async () => {
      const response = await server.request('DELETE', '/appointments');
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'GET, HEAD, POST');
    });
  });
});

/**
 * PATCH /appointments/{appointment_id} on the wire, overlaps racing, and GET /appointments?status=
 * (clinic-api-1.2.md, "Appointments"). Every rule of a change (transitions, reschedules, services,
 * retired doctors, overlaps) is a row of UPDATE_APPOINTMENT's table,
 * test/domain/appointments/update-appointment.test.ts.
 */
describe('PATCH /appointments/{appointment_id}', () => {
  const server = useTestServer();
  let patientId: string;
  let doctor: Doctor;
  let day = 0;
  before(() => {
    setClinicTimeZone(server.db, 'UTC');
    patientId = createPatient(server.db, buildPatient()).id;
    doctor = addDoctor(server.db, { name: 'Dr. Slot', color: '#123456' });
  });
  /** A booking body on a day of its own, so that no two tests share a slot. */
  const bookingOnNewDay = (fields: Record<string, unknown> = {}) => {
    day += 1;
    const date = `2027-01-${String(day).padStart(2, '0')}`;
    return { patient_id: patientId, start_at: `${date}T09:00Z`, end_at: `${date}T09:30Z`, resource_id: doctor.id, ...fields };
  };
  const book = async (fields: Record<string, unknown> = {}) => {
    const response = await server.request('POST', '/appointments', { body: bookingOnNewDay(fields) });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; appointment_number: string; start_at: string; end_at: string; updated_at: string };
  };
  const patch = (id: string, body: unknown) => server.request('PATCH', `/appointments/${id}`, { body });

  it('answers 200 with the Appointment changed, and GET shows it', async () => {
    const appointment = await book();
    const answer = await patch(appointment.id, { status: 'arrived', status_reason: 'desk' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.body), APPOINTMENT_KEYS);
    assert.deepEqual([answer.body.status, answer.body.status_reason], ['arrived', 'desk']);
    assert.match(answer.body.status_changed_at, /^\d{4}-/);
    assert.deepEqual((await server.request('GET', `/appointments/${appointment.id}`)).body, answer.body);
  });

  it('refuses a move the table forbids with 409 APPOINTMENT_TRANSITION_INVALID naming both, changing nothing', async () => {
    const appointment = await book({ status: 'completed' });
    const answer = await patch(appointment.id, { status: 'cancelled' });
    assert.equal(answer.status, 409);
    assert.equal(answer.body.detail.code, 'APPOINTMENT_TRANSITION_INVALID');
    assert.match(answer.body.detail.message, /completed.*cancelled/);
    assert.equal((await server.request('GET', `/appointments/${appointment.id}`)).body.updated_at, appointment.updated_at);
  });

  it('refuses a status outside the five with 422 literal_error, and an unknown appointment with 404', async () => {
    const appointment = await book();
    const odd = await patch(appointment.id, { status: 'wartend' });
    assert.equal(odd.status, 422);
    assert.deepEqual([odd.body.detail[0].type, odd.body.detail[0].loc], ['literal_error', ['body', 'status']]);
    const missing = await patch('00000000-0000-4000-8000-000000000000', { title: 'x' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.detail.code, 'APPOINTMENT_NOT_FOUND');
  });

  it("lists a rescheduled appointment on its new day's sheet", async () => {
    const appointment = await book();
    const answer = await patch(appointment.id, { start_at: '2027-02-01T10:00Z', end_at: '2027-02-01T10:45Z' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.reschedule_from_start_at, appointment.start_at);
    const sheet = await server.request('GET', '/appointments?from=2027-02-01&to=2027-02-01');
    assert.deepEqual(
      sheet.body.map((listed: { id: string }) => listed.id),
      [appointment.id],
    );
  });

  it('names the appointments in the way by number in detail.conflicts (409 APPOINTMENT_OVERLAP)', async () => {
    const first = await book();
    const second = await book();
    const moved = await patch(second.id, { start_at: first.start_at, end_at: first.end_at, overlap: 'reject' });
    assert.equal(moved.status, 409);
    assert.equal(moved.body.detail.code, 'APPOINTMENT_OVERLAP');
    assert.deepEqual(moved.body.detail.conflicts, [first.appointment_number]);
  });

  it('books exactly one of 20 concurrent reject bookings of one slot', async () => {
    const body = bookingOnNewDay({ overlap: 'reject' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => server.request('POST', '/appointments', { body })));
    assert.equal(answers.filter((a) => a.status === 201).length, 1);
    assert.ok(answers.filter((a) => a.status !== 201).every((a) => a.body.detail.code === 'APPOINTMENT_OVERLAP'));
  });

  it('filters GET /appointments by status', async () => {
    const booked = await book();
    const date = booked.start_at.slice(0, 10);
    const cancelled = await book({ start_at: `${date}T11:00Z`, end_at: `${date}T11:30Z` });
    assert.equal((await patch(cancelled.id, { status: 'cancelled' })).status, 200);
    const ids = async (status: string) =>
      (await server.request('GET', `/appointments?from=${date}&to=${date}&status=${status}`)).body.map((a: { id: string }) => a.id);
    assert.deepEqual(await ids('booked,arrived'), [booked.id]);
    assert.deepEqual(await ids('cancelled'), [cancelled.id]);
  });
});

// GET /appointments and GET /appointments/{appointment_id} of interface 1.1.0 (clinic-api-1.1.md), black box over HTTP.

/** The [type, loc] of each item of a 422 detail array. */
const issuesOf = (body: any): [string, unknown[]][] => body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]);

/** Books over POST /appointments and returns the Appointment answered. */
async function book(server: TestServer, body: Record<string, unknown>): Promise<Record<string, any> & { id: string }> {
  const response = await server.request('POST', '/appointments', { body });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** The ids GET /appointments?`query` lists, in its order. */
async function listIds(server: TestServer, query: string): Promise<string[]> {
  const response = await server.request('GET', `/appointments${query === '' ? '' : `?${query}`}`);
  assert.equal(response.status, 200, response.text);
  assert.ok(Array.isArray(response.body), 'a bare JSON array');
  return response.body.map((a: { id: string }) => a.id);
}

/** The calendar date `days` after the YYYY-MM-DD `date`. */
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

describe('GET /appointments: the window', () => {
  const server = useTestServer();
  // Clinic time Europe/Vienna: in December UTC+1, so the clinic day 2026-12-01 is
  // [2026-11-30T23:00Z, 2026-12-01T23:00Z).
  const a: Record<string, string> = {};

  before(async () => {
    setClinicTimeZone(server.db, 'Europe/Vienna');
    const patientId = createTestPatient(server.db).id;
    const slots: [string, string, string][] = [
      ['spanning', '2026-11-30T10:00:00Z', '2026-12-02T10:00:00Z'],
      ['endsAtStart', '2026-11-30T22:30:00Z', '2026-11-30T23:00:00Z'],
      ['acrossStart', '2026-11-30T22:45:00Z', '2026-11-30T23:15:00Z'],
      // Two that start together, booked before one that starts earlier.
      ['morningFirst', '2026-12-01T08:00:00Z', '2026-12-01T08:30:00Z'],
      ['morningSecond', '2026-12-01T08:00:00Z', '2026-12-01T09:00:00Z'],
      ['early', '2026-12-01T07:00:00Z', '2026-12-01T07:15:00Z'],
      ['acrossEnd', '2026-12-01T22:45:00Z', '2026-12-01T23:15:00Z'],
      ['startsAtEnd', '2026-12-01T23:00:00Z', '2026-12-01T23:30:00Z'],
    ];
    for (const [name, start_at, end_at] of slots) a[name] = (await book(server, { patient_id: patientId, start_at, end_at })).id;
  });

  const wholeDay = ['spanning', 'acrossStart', 'early', 'morningFirst', 'morningSecond', 'acrossEnd'];
  const cases: { title: string; query: string; lists: string[] }[] = [
    { title: 'from and to the same date: that whole clinic day', query: 'from=2026-12-01&to=2026-12-01', lists: wholeDay },
    { title: 'a date alone: that whole clinic day', query: 'from=2026-12-01', lists: wholeDay },
    { title: 'the same day as UTC instants', query: 'from=2026-11-30T23:00:00Z&to=2026-12-01T23:00:00Z', lists: wholeDay },
    {
      title: 'the same day as date-times without offset (clinic time)',
      query: 'from=2026-12-01T00:00&to=2026-12-02T00:00',
      lists: wholeDay,
    },
    {
      title: 'a date-time with an offset and no to: up to the end of that clinic day',
      query: `from=${encodeURIComponent('2026-12-01T00:00:00+01:00')}`,
      lists: wholeDay,
    },
    {
      title: 'a clinic date-time and no to: from then to the end of that clinic day',
      query: 'from=2026-12-01T09:00',
      lists: ['spanning', 'morningFirst', 'morningSecond', 'acrossEnd'],
    },
    {
      title: 'not one that ends exactly at from',
      query: 'from=2026-12-01T08:30:00Z&to=2026-12-01T08:45:00Z',
      lists: ['spanning', 'morningSecond'],
    },
    {
      title: 'not one that starts exactly at to',
      query: 'from=2026-12-01T06:00:00Z&to=2026-12-01T08:00:00Z',
      lists: ['spanning', 'early'],
    },
    {
      title: 'one that ends one millisecond after from',
      query: 'from=2026-12-01T08:29:59.999Z&to=2026-12-01T08:30:00Z',
      lists: ['spanning', 'morningFirst', 'morningSecond'],
    },
    {
      title: 'several days, ordered by start_at then appointment_number',
      query: 'from=2026-11-30&to=2026-12-02',
      lists: ['spanning', 'endsAtStart', 'acrossStart', 'early', 'morningFirst', 'morningSecond', 'acrossEnd', 'startsAtEnd'],
    },
    {
      title: 'the next clinic day, which begins at 23:00 UTC',
      query: 'from=2026-12-02',
      lists: ['spanning', 'acrossEnd', 'startsAtEnd'],
    },
    { title: 'nothing on a day without appointments', query: 'from=2026-12-05&to=2026-12-06', lists: [] },
  ];
  for (const { title, query, lists } of cases) {
    it(`lists ${title} (${query})`, async () => {
      assert.deepEqual(
        await listIds(server, query),
        lists.map((name) => a[name]),
      );
    });
  }

  const accepted: { title: string; query: string }[] = [
    { title: 'exactly 92 × 24 hours', query: 'from=2026-12-01T00:00:00Z&to=2027-03-03T00:00:00Z' },
    { title: '92 whole clinic days', query: 'from=2026-12-01&to=2027-03-02' },
    { title: '92 clinic days over the spring clock change (92 × 24 hours less one)', query: 'from=2026-03-01&to=2026-05-31' },
  ];
  for (const { title, query } of accepted) {
    it(`accepts a window of ${title} (${query})`, async () => {
      const response = await server.request('GET', `/appointments?${query}`);
      assert.equal(response.status, 200, response.text);
    });
  }

  const refused: { title: string; query: string }[] = [
    { title: 'to before from', query: 'from=2026-12-01T10:00:00Z&to=2026-12-01T09:00:00Z' },
    { title: 'to equal to from', query: 'from=2026-12-01T10:00:00Z&to=2026-12-01T10:00:00Z' },
    { title: 'to the day before from (its end is the start of from)', query: 'from=2026-12-02&to=2026-12-01' },
    { title: 'to a date earlier than from', query: 'from=2026-12-05&to=2026-12-01' },
    { title: 'to one millisecond more than 92 × 24 hours later', query: 'from=2026-12-01T00:00:00Z&to=2027-03-03T00:00:00.001Z' },
    { title: 'to 93 clinic days later', query: 'from=2026-12-01&to=2027-03-03' },
    { title: '92 clinic days over the autumn clock change (92 × 24 hours and one)', query: 'from=2026-09-01&to=2026-12-01' },
  ];
  for (const { title, query } of refused) {
    it(`refuses ${title} with 422 value_error at ["query","to"] (${query})`, async () => {
      const response = await server.request('GET', `/appointments?${query}`);
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(issuesOf(response.body), [['value_error', ['query', 'to']]]);
    });
  }

  it('accepts 91 clinic days over the autumn clock change (91 × 24 hours and one)', async () => {
    const response = await server.request('GET', '/appointments?from=2026-09-01&to=2026-11-30');
    assert.equal(response.status, 200, response.text);
  });

  const malformed: { query: string; loc: string[] }[] = [
    { query: 'from=tomorrow', loc: ['query', 'from'] },
    { query: 'from=2026-02-30', loc: ['query', 'from'] },
    { query: 'from=2026-12-01T25:00', loc: ['query', 'from'] },
    { query: 'from=2026-12-01&to=soon', loc: ['query', 'to'] },
    { query: 'from=2026-12-01&to=2026-13-01', loc: ['query', 'to'] },
    { query: 'resource_id=dr-grey', loc: ['query', 'resource_id'] },
    { query: 'patient_id=P-000001', loc: ['query', 'patient_id'] },
  ];
  it('reports a malformed from and to together', async () => {
    const response = await server.request('GET', '/appointments?from=soon&to=later&limit=0');
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(response.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort(), ['query.from', 'query.limit', 'query.to']);
  });

  for (const { method, path, allows } of [
    { method: 'DELETE', path: '/appointments', allows: ['GET', 'POST'] },
    { method: 'PUT', path: `/appointments/${randomUUID()}`, allows: ['GET', 'PATCH'] },
  ]) {
    it(`answers ${method} ${path.replace(/[0-9a-f-]{36}/, '{appointment_id}')} with 405 and Allow naming ${allows.join(', ')}`, async () => {
      const response = await server.request(method, path);
      assert.equal(response.status, 405, response.text);
      const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      for (const expected of allows) assert.ok(allow.includes(expected), `Allow: ${allow.join(', ')}`);
    });
  }

  for (const { query, loc } of malformed) {
    it(`refuses ${query} with 422 at ${JSON.stringify(loc)}`, async () => {
      const response = await server.request('GET', `/appointments?${query}`);
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(
        response.body.detail.map((d: { loc: unknown[] }) => d.loc),
        [loc],
      );
      if (loc[1]!.endsWith('_id')) assert.equal(response.body.detail[0].type, 'uuid_parsing');
    });
  }
});

describe('GET /appointments: defaults', () => {
  const server = useTestServer();

  it('without from and to lists the appointments of today in clinic time', async () => {
    // UTC+14 all year: "today" there is another date than in UTC for most of the day.
    const zone = 'Pacific/Kiritimati';
    setClinicTimeZone(server.db, zone);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date());
    const [yesterday, tomorrow] = [addDays(today, -1), addDays(today, 1)];
    const patient_id = createTestPatient(server.db).id;
    const at = (date: string, time: string) => `${date}T${time}:00+14:00`;
    const endsAtMidnight = await book(server, { patient_id, start_at: at(yesterday, '23:00'), end_at: at(today, '00:00') });
    const first = await book(server, { patient_id, start_at: at(today, '00:00'), end_at: at(today, '00:30') });
    const last = await book(server, { patient_id, start_at: at(today, '23:30'), end_at: at(tomorrow, '00:00') });
    const nextDay = await book(server, { patient_id, start_at: at(tomorrow, '00:00'), end_at: at(tomorrow, '00:30') });

    const listed = await listIds(server, '');
    // The clinic day may have turned while booking; then the test says so rather than failing obscurely.
    assert.equal(new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date()), today, 'the clinic day turned during the test');
    assert.deepEqual(listed, [first.id, last.id]);
    assert.ok(!listed.includes(endsAtMidnight.id) && !listed.includes(nextDay.id));
    // to alone: the window starts today.
    assert.deepEqual(await listIds(server, `to=${today}`), [first.id, last.id]);
    assert.deepEqual(await listIds(server, `to=${today}T00:30`), [first.id]);
  });

  it('refuses a to alone before the start of today, or more than 92 × 24 hours after it', async () => {
    const zone = 'Pacific/Kiritimati';
    setClinicTimeZone(server.db, zone);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date());
    for (const to of ['2020-01-01', `${addDays(today, -1)}T23:59`, addDays(today, 92)]) {
      const response = await server.request('GET', `/appointments?to=${to}`);
      assert.equal(response.status, 422, `to=${to}: ${response.text}`);
      assert.deepEqual(issuesOf(response.body), [['value_error', ['query', 'to']]]);
    }
    const inRange = await server.request('GET', `/appointments?to=${addDays(today, 91)}`);
    assert.equal(inRange.status, 200, inRange.text);
  });
});

describe('GET /appointments: the clinic time zone', () => {
  const server = useTestServer();

  it('reads the time zone per request: clinic settings set-timezone applies to the running server at once', async () => {
    setClinicTimeZone(server.db, 'Europe/Vienna');
    const patient_id = createTestPatient(server.db).id;
    // 00:30 on 2 December in Vienna, 18:30 on 1 December in New York.
    const late = await book(server, { patient_id, start_at: '2026-12-01T23:30:00Z', end_at: '2026-12-02T00:00:00Z' });
    const day = `from=2026-12-01&to=2026-12-01&patient_id=${patient_id}`;
    const clinicEvening = `from=2026-12-01T18:00&to=2026-12-01T19:00&patient_id=${patient_id}`;
    assert.deepEqual(await listIds(server, day), []);
    assert.deepEqual(await listIds(server, clinicEvening), []);

    const set = await runClinic(['settings', 'set-timezone', 'America/New_York', '--data', server.dataDir]);
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(await listIds(server, day), [late.id]);
    assert.deepEqual(await listIds(server, clinicEvening), [late.id]);
    assert.deepEqual(await listIds(server, `from=2026-12-02&patient_id=${patient_id}`), []);

    const back = await runClinic(['settings', 'set-timezone', 'Europe/Vienna', '--data', server.dataDir]);
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual(await listIds(server, day), []);
    assert.deepEqual(await listIds(server, `from=2026-12-02&patient_id=${patient_id}`), [late.id]);
  });
});

describe('GET /appointments: filters', () => {
  const server = useTestServer();
  let grey: Doctor;
  let house: Doctor;
  let patientP: string;
  let patientQ: string;
  const a: Record<string, Record<string, any> & { id: string }> = {};

  before(async () => {
    setClinicTimeZone(server.db, 'UTC');
    grey = addDoctor(server.db, { name: 'Dr. Grey', color: '#123456' });
    house = addDoctor(server.db, { name: 'Dr. House', color: '#654321' });
    const cleaning = addService(server.db, { name: 'Cleaning', duration_min: 30, price: 80, color: '#00ff00' });
    patientP = createTestPatient(server.db, { first_name: 'Pia' }).id;
    patientQ = createTestPatient(server.db, { first_name: 'Quinn' }).id;
    const slot = (hour: number) => ({
      start_at: `2026-12-01T${String(hour).padStart(2, '0')}:00:00Z`,
      end_at: `2026-12-01T${String(hour).padStart(2, '0')}:30:00Z`,
    });
    a.pGrey = await book(server, { patient_id: patientP, resource_id: grey.id, service_id: cleaning.id, title: 'Check-up', ...slot(9) });
    a.pHouse = await book(server, { patient_id: patientP, resource_id: house.id, ...slot(10) });
    a.qGrey = await book(server, { patient_id: patientQ, resource_id: grey.id, notes: 'Bring x-rays', ...slot(11) });
    a.qNobody = await book(server, { patient_id: patientQ, ...slot(12) });
    a.pGreyNextDay = await book(server, {
      patient_id: patientP,
      resource_id: grey.id,
      start_at: '2026-12-02T09:00:00Z',
      end_at: '2026-12-02T09:30:00Z',
    });
  });

  const day = 'from=2026-12-01';
  const cases: { title: string; query: () => string; lists: string[] }[] = [
    { title: 'every appointment of the day without a filter', query: () => day, lists: ['pGrey', 'pHouse', 'qGrey', 'qNobody'] },
    { title: 'one doctor', query: () => `${day}&resource_id=${grey.id}`, lists: ['pGrey', 'qGrey'] },
    { title: 'another doctor', query: () => `${day}&resource_id=${house.id}`, lists: ['pHouse'] },
    { title: 'one doctor named in upper case', query: () => `${day}&resource_id=${grey.id.toUpperCase()}`, lists: ['pGrey', 'qGrey'] },
    { title: 'one patient', query: () => `${day}&patient_id=${patientQ}`, lists: ['qGrey', 'qNobody'] },
    { title: 'one patient with one doctor', query: () => `${day}&patient_id=${patientP}&resource_id=${grey.id}`, lists: ['pGrey'] },
    {
      title: 'one patient with one doctor over two days',
      query: () => `from=2026-12-01&to=2026-12-02&patient_id=${patientP}&resource_id=${grey.id}`,
      lists: ['pGrey', 'pGreyNextDay'],
    },
    { title: 'nothing for an unknown doctor', query: () => `${day}&resource_id=${randomUUID()}`, lists: [] },
    { title: 'nothing for an unknown patient', query: () => `${day}&patient_id=${randomUUID()}`, lists: [] },
    { title: 'nothing for a patient id used as a doctor id', query: () => `${day}&resource_id=${patientP}`, lists: [] },
  ];
  for (const { title, query, lists } of cases) {
    it(`lists ${title}`, async () => {
      assert.deepEqual(
        await listIds(server, query()),
        lists.map((name) => a[name]!.id),
      );
    });
  }

  it('answers each item as the Appointment of 2.5, as POST /appointments answered it', async () => {
    const response = await server.request('GET', `/appointments?${day}&patient_id=${patientP}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, [a.pGrey, a.pHouse]);
  });

  describe('GET /appointments/{appointment_id}', () => {
    it('answers 200 with the Appointment of 2.5, as POST /appointments answered it', async () => {
      for (const booked of [a.pGrey!, a.qNobody!]) {
        const response = await server.request('GET', `/appointments/${booked.id}`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, booked);
      }
    });

    it('accepts the id in upper case', async () => {
      const response = await server.request('GET', `/appointments/${a.qGrey!.id.toUpperCase()}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.id, a.qGrey!.id);
    });

    it('answers 404 APPOINTMENT_NOT_FOUND for an unknown id', async () => {
      const response = await server.request('GET', `/appointments/${randomUUID()}`);
      assert.equal(response.status, 404, response.text);
      assert.equal(response.body.detail.code, 'APPOINTMENT_NOT_FOUND');
    });

    it('answers 404 APPOINTMENT_NOT_FOUND for the id of a patient', async () => {
      const response = await server.request('GET', `/appointments/${patientP}`);
      assert.equal(response.status, 404, response.text);
      assert.equal(response.body.detail.code, 'APPOINTMENT_NOT_FOUND');
    });

    for (const id of ['not-a-uuid', 'A-000001']) {
      it(`refuses the malformed id ${JSON.stringify(id)} with 422 uuid_parsing at ["path","appointment_id"]`, async () => {
        const response = await server.request('GET', `/appointments/${id}`);
        assert.equal(response.status, 422, response.text);
        assert.deepEqual(issuesOf(response.body), [['uuid_parsing', ['path', 'appointment_id']]]);
      });
    }
  });
});
