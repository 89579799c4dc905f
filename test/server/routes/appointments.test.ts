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
  let filling: Service;
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
    filling = addService(server.db, { name: 'Filling', duration_min: 30, price: 120, color: '#ff0000' });
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

  describe('services', () => {
    it('lists service_ids in the request order with their briefs in the same order', async () => {
      const { status, body } = await book(buildAppointment({ service_ids: [xray.id, cleaning.id, filling.id] }));
      assert.equal(status, 201);
      assert.deepEqual(body.service_ids, [xray.id, cleaning.id, filling.id]);
      assert.deepEqual(body.services, [
        { id: xray.id, name: 'X-ray', color: '#0000ff', default_duration_min: 10 },
        { id: cleaning.id, name: 'Cleaning', color: '#00ff00', default_duration_min: 45 },
        { id: filling.id, name: 'Filling', color: '#ff0000', default_duration_min: 30 },
      ]);
    });

    it('takes service_name and service_color from the first of service_ids when service_id is absent', async () => {
      const { body } = await book(buildAppointment({ service_ids: [filling.id, cleaning.id] }));
      assert.equal(body.service_id, null);
      assert.equal(body.service_name, 'Filling');
      assert.equal(body.service_color, '#ff0000');
    });

    it('takes service_name and service_color from service_id when both are given', async () => {
      const { body } = await book(buildAppointment({ service_id: xray.id, service_ids: [filling.id, cleaning.id] }));
      assert.equal(body.service_id, xray.id);
      assert.equal(body.service_name, 'X-ray');
      assert.equal(body.service_color, '#0000ff');
      assert.deepEqual(body.service_ids, [filling.id, cleaning.id]);
    });

    it('lists [service_id] as service_ids when only service_id is given', async () => {
      const { body } = await book(buildAppointment({ service_id: cleaning.id }));
      assert.deepEqual(body.service_ids, [cleaning.id]);
      assert.deepEqual(body.services, [{ id: cleaning.id, name: 'Cleaning', color: '#00ff00', default_duration_min: 45 }]);
      assert.equal(body.service_name, 'Cleaning');
    });

    it('treats an empty service_ids like an absent one', async () => {
      const { body } = await book(buildAppointment({ service_id: cleaning.id, service_ids: [] }));
      assert.deepEqual(body.service_ids, [cleaning.id]);
    });

    it('keeps a service listed twice twice', async () => {
      const { body } = await book(buildAppointment({ service_ids: [cleaning.id, cleaning.id] }));
      assert.deepEqual(body.service_ids, [cleaning.id, cleaning.id]);
      assert.equal(body.services.length, 2);
    });
  });

  describe('date-times', () => {
    const scenarios: { title: string; zone?: string; start: string; end: string; startUtc: string; endUtc: string }[] = [
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
    ];
    for (const { title, zone, start, end, startUtc, endUtc } of scenarios) {
      it(title, async () => {
        if (zone) setClinicTimeZone(server.db, zone);
        const response = await book(buildAppointment({ start_at: start, end_at: end }));
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.start_at, startUtc);
        assert.equal(response.body.end_at, endUtc);
      });
    }

    it('refuses end_at equal to start_at with a value_error at end_at', async () => {
      const before = countAppointments(server);
      const response = await book(buildAppointment({ start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:00:00.000Z' }));
      assert.equal(response.status, 422);
      assert.deepEqual(
        response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
        [['value_error', ['body', 'end_at']]],
      );
      assert.equal(countAppointments(server), before);
    });

    it('refuses end_at before start_at, comparing instants rather than wall-clock text', async () => {
      // 09:30+02:00 is 07:30Z, before 09:00Z.
      const response = await book(buildAppointment({ start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30+02:00' }));
      assert.equal(response.status, 422);
      assert.equal(response.body.detail[0].type, 'value_error');
      assert.deepEqual(response.body.detail[0].loc, ['body', 'end_at']);
    });

    it('refuses a date-time that does not exist on the calendar, or that UTC output cannot write', async () => {
      for (const start_at of ['2026-02-30T09:00Z', '0000-12-01T09:00Z', '9999-12-31T23:00-02:00']) {
        const response = await book(buildAppointment({ start_at, end_at: '2026-12-01T09:30Z' }));
        assert.equal(response.status, 422, start_at);
        assert.deepEqual(
          response.body.detail.map((i: { type: string; loc: unknown[] }) => [i.type, i.loc]),
          [['datetime_parsing', ['body', 'start_at']]],
          start_at,
        );
      }
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
    const unknown = randomUUID();
    const schemaScenarios: { title: string; body: () => unknown; issues: [string, (string | number)[]][] }[] = [
      {
        title: 'rejects a missing patient_id as missing',
        body: () => ({ start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T10:00Z' }),
        issues: [['missing', ['body', 'patient_id']]],
      },
      {
        title: 'rejects a null patient_id as missing',
        body: () => buildAppointment({ patient_id: null }),
        issues: [['missing', ['body', 'patient_id']]],
      },
      {
        title: 'rejects a malformed patient_id',
        body: () => buildAppointment({ patient_id: 'P-000001' }),
        issues: [['uuid_parsing', ['body', 'patient_id']]],
      },
      {
        title: 'rejects missing start_at and end_at',
        body: () => ({ patient_id: patient.id }),
        issues: [
          ['missing', ['body', 'start_at']],
          ['missing', ['body', 'end_at']],
        ],
      },
      {
        title: 'rejects a date-only start_at',
        body: () => buildAppointment({ start_at: '2026-12-01' }),
        issues: [['datetime_parsing', ['body', 'start_at']]],
      },
      {
        title: 'rejects a service_ids that is not a list',
        body: () => buildAppointment({ service_ids: cleaning.id }),
        issues: [['list_type', ['body', 'service_ids']]],
      },
      {
        title: 'rejects a malformed entry of service_ids at its index',
        body: () => buildAppointment({ service_ids: [cleaning.id, 'x'] }),
        issues: [['uuid_parsing', ['body', 'service_ids', 1]]],
      },
      { title: 'rejects a null status', body: () => buildAppointment({ status: null }), issues: [['string_type', ['body', 'status']]] },
      { title: 'rejects a numeric title', body: () => buildAppointment({ title: 5 }), issues: [['string_type', ['body', 'title']]] },
      { title: 'rejects a body that is not an object', body: () => [], issues: [['model_attributes_type', ['body']]] },
      {
        title: 'reports every failing field at once',
        body: () => ({ patient_id: null, start_at: 'soon', end_at: '2026-12-01T10:00Z', color: text(17), resource_id: 'x' }),
        issues: [
          ['datetime_parsing', ['body', 'start_at']],
          ['uuid_parsing', ['body', 'resource_id']],
          ['string_too_long', ['body', 'color']],
          ['missing', ['body', 'patient_id']],
        ],
      },
      {
        title: 'reports schema problems before an unknown patient',
        body: () => buildAppointment({ patient_id: unknown, title: text(201) }),
        issues: [['string_too_long', ['body', 'title']]],
      },
    ];
    for (const { title, body, issues } of schemaScenarios) {
      it(title, async () => {
        const before = countAppointments(server);
        const response = await book(body());
        assert.equal(response.status, 422, response.text);
        assert.ok(Array.isArray(response.body.detail), response.text);
        assert.deepEqual(
          response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
          issues,
        );
        assert.equal(countAppointments(server), before);
      });
    }

    const codedScenarios: { title: string; body: () => unknown; code: string }[] = [
      {
        title: 'refuses an unknown patient with 422 PATIENT_NOT_FOUND',
        body: () => buildAppointment({ patient_id: unknown }),
        code: 'PATIENT_NOT_FOUND',
      },
      {
        title: 'refuses an unknown doctor with 422 DOCTOR_NOT_FOUND',
        body: () => buildAppointment({ resource_id: unknown }),
        code: 'DOCTOR_NOT_FOUND',
      },
      {
        title: 'refuses an unknown service_id with 422 SERVICE_NOT_FOUND',
        body: () => buildAppointment({ service_id: unknown }),
        code: 'SERVICE_NOT_FOUND',
      },
      {
        title: 'refuses an unknown entry of service_ids with 422 SERVICE_NOT_FOUND',
        body: () => buildAppointment({ service_ids: [cleaning.id, unknown] }),
        code: 'SERVICE_NOT_FOUND',
      },
      {
        title: 'names the unknown patient before the unknown doctor',
        body: () => buildAppointment({ patient_id: unknown, resource_id: randomUUID() }),
        code: 'PATIENT_NOT_FOUND',
      },
      {
        title: 'names the unknown doctor before the unknown service',
        body: () => buildAppointment({ resource_id: unknown, service_id: randomUUID() }),
        code: 'DOCTOR_NOT_FOUND',
      },
    ];
    for (const { title, body, code } of codedScenarios) {
      it(title, async () => {
        const before = countAppointments(server);
        const response = await book(body());
        assert.equal(response.status, 422, response.text);
        assert.equal(response.body.detail.code, code);
        assert.equal(typeof response.body.detail.message, 'string');
        assert.equal(countAppointments(server), before);
      });
    }

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
