import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { addDoctor, addService, type Doctor } from '../../src/domain/catalog.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';
import type { TestServer } from '../helpers/test-server.js';

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
