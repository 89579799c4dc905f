import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, beforeEach, describe, it } from 'node:test';
import { addDoctor, addService, type Doctor, type Service } from '../../../src/domain/catalog.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { buildPatient, text } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/** Every field of the Appointment response (spec 2.5), in the specification's order. */
const APPOINTMENT_KEYS = [
  'id',
  'appointment_number',
  'booking_source',
  'resource_id',
  'patient_id',
  'service_id',
  'title',
  'appointment_type',
  'color',
  'notes',
  'start_at',
  'end_at',
  'status',
  'created_at',
  'updated_at',
  'patient_first_name',
  'patient_last_name',
  'patient_number',
  'patient_email',
  'patient_mobile',
  'patient_cave',
  'patient_classification',
  'service_name',
  'service_color',
  'service_ids',
  'services',
  'clinic_confirmed_at',
  'patient_confirmed_at',
  'reschedule_from_start_at',
  'reschedule_from_end_at',
  'reschedule_at',
  'reschedule_by_role',
  'confirmation_reminder_sent_at',
  'confirmation_state',
  'status_reason',
  'status_changed_at',
  // 1.3.0, after the fields of 1.2.0.
  'patient_declined_at',
];

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
