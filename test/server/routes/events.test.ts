import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createApiKey, SCOPES } from '../../../src/domain/api-keys.js';
import { addDoctor, addService } from '../../../src/domain/catalog.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { buildPatient, createTestInvoice, insertBlockedTime, type PatientBody } from '../../helpers/builders.js';
import type { ChangeEvent } from '../../helpers/change-feed.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { multipartBody } from '../../helpers/multipart.js';
import { runClinic } from '../../helpers/run-cli.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../../../src/db/open-database.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { silentLogger } from '../../../src/logger.js';
import { createApp } from '../../../src/server/api/app.js';
import { OPERATIONS } from '../../../src/server/api/api-operations.js';
import { API_PREFIX, DEFAULT_JSON_BODY_LIMIT_BYTES } from '../../../src/server/config.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../../src/domain/documents/document-limit.js';
import { ChangeWatch } from '../../../src/server/writes/change-watch.js';
import { CommitGroups } from '../../../src/server/writes/commit-groups.js';
import type { ApiResponse, RequestOptions } from '../../helpers/test-server.js';

// The change feed of interface 1.2.0 (clinic-api-1.2.md, "Change feed"; the decisions of
// docs/design-choices.md "Change feed and webhooks"), black box over HTTP: each type with its thin data, what appends nothing, seq
// without gaps beside concurrent requests and CLI processes, paging, validation, scope, long poll.

const TYPES = [
  'patient.created',
  'patient.updated',
  'appointment.created',
  'appointment.updated',
  'document.created',
  'invoice.created',
  'invoice.voided',
  'payment.created',
  'refund.created',
];

interface Created {
  id: string;
  patient_number: string;
}

describe('the change feed over HTTP', () => {
  const server = useTestServer();
  let doctorId: string;

  before(() => {
    doctorId = addDoctor(server.db, { name: 'Dr. Feed', color: '#224466' }).id;
  });

  const feed = (query = '', options: RequestOptions = {}) => server.request<ChangeEvent[]>('GET', `/events${query}`, options);
  /** GET /events expecting a refusal: the body is an error. */
  const refusedFeed = (query = '', options: RequestOptions = {}) =>
    server.request<{ detail: { code: string } | { type: string; loc: string[] }[] }>('GET', `/events${query}`, options);

  /** The path after the API prefix of the page a Link header names as next, or null without one. */
  function nextPage(response: ApiResponse): string | null {
    const link = response.headers.get('link');
    if (link === null) return null;
    const match = /^<([^>]+)>; rel="next"$/.exec(link);
    assert.ok(match, `one next page in the Link header: ${link}`);
    const url = new URL(match[1]!, 'http://link.invalid');
    assert.match(url.pathname, /^\/api\/public\/v1\//, link);
    return url.pathname.slice('/api/public/v1'.length) + url.search;
  }

  /** Every event with a seq above `after` (of `types`, if given), following the Link headers. */
  async function eventsAfter(after: number, types?: string): Promise<ChangeEvent[]> {
    const events: ChangeEvent[] = [];
    let path: string | null = `/events?after=${after}&limit=1000${types === undefined ? '' : `&types=${types}`}`;
    while (path !== null) {
      const page: ApiResponse<ChangeEvent[]> = await server.request('GET', path);
      assert.equal(page.status, 200, page.text);
      events.push(...page.body);
      path = nextPage(page);
    }
    return events;
  }

  /** The feed's last seq (0 while it is empty); read on from the last one seen, as a consumer does. */
  let seen = 0;
  async function lastSeq(): Promise<number> {
    const newer = await eventsAfter(seen);
    if (newer.length > 0) seen = newer.at(-1)!.seq;
    return seen;
  }

  /** What `act` returned, and the events appended while it ran. */
  async function withEvents<T>(act: () => Promise<T>): Promise<[T, ChangeEvent[]]> {
    const mark = await lastSeq();
    const result = await act();
    return [result, await eventsAfter(mark)];
  }

  /** The one event of `events`. */
  function single(events: ChangeEvent[]): ChangeEvent {
    assert.equal(events.length, 1, `one event: ${JSON.stringify(events)}`);
    return events[0]!;
  }

  /** Asserts the form every event has, and its type, patient and exact data. */
  function assertEvent(event: ChangeEvent, expected: Pick<ChangeEvent, 'type' | 'patient_id' | 'data'>): void {
    assert.deepEqual(Object.keys(event).sort(), ['data', 'id', 'occurred_at', 'patient_id', 'seq', 'type']);
    assert.ok(Number.isInteger(event.seq) && event.seq >= 1, `seq ${event.seq}`);
    assert.equal(event.id, `evt_${event.seq}`);
    assert.match(event.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'occurred_at is a UTC date-time');
    assert.ok(Math.abs(Date.parse(event.occurred_at) - Date.now()) < 60_000, `occurred_at ${event.occurred_at} is now`);
    assert.deepEqual({ type: event.type, patient_id: event.patient_id, data: event.data }, expected);
  }

  const post = (path: string, body: unknown, options: RequestOptions = {}) => server.request('POST', path, { body, ...options });
  const patch = (path: string, body: unknown, options: RequestOptions = {}) => server.request('PATCH', path, { body, ...options });

  async function newPatient(overrides: PatientBody = {}): Promise<Created> {
    const response = await post('/patients', buildPatient(overrides));
    assert.equal(response.status, 201, response.text);
    return response.body as Created;
  }

  async function book(patientId: string | null, day: string, extra: Record<string, unknown> = {}) {
    const response = await post('/appointments', {
      patient_id: patientId,
      resource_id: doctorId,
      start_at: `${day}T09:00:00Z`,
      end_at: `${day}T09:30:00Z`,
      ...extra,
    });
    return response;
  }

  const pay = (invoiceId: string, amount: string, method = 'cash', headers: Record<string, string> = {}) =>
    post(`/invoices/${invoiceId}/payments`, { amount, method }, { headers });

  describe('each type with its data', () => {
    it('patient.created: POST /patients, data the patient number only', async () => {
      const [created, events] = await withEvents(() => post('/patients', buildPatient({ last_name: 'Feedling' })));
      assert.equal(created.status, 201, created.text);
      assertEvent(single(events), {
        type: 'patient.created',
        patient_id: created.body.id,
        data: { patient_number: created.body.patient_number },
      });
    });

    // patient.updated, and a PATCH that changes nothing appending nothing: UPDATE_PATIENT's table
    // (test/domain/patients/update-patient.test.ts).

    // appointment.created and appointment.updated with their data (a free 1.0.0 status as sent,
    // no doctor, changed without derived fields, a change of nothing appending nothing):
    // BOOK_APPOINTMENT's and UPDATE_APPOINTMENT's tables (test/domain/appointments/).

    it('appointment.updated of an appointment without patient has patient_id null; POST without a patient is refused and appends nothing', async () => {
      const patient = await newPatient();
      const [refused, none] = await withEvents(() => book(null, '2031-05-08'));
      assert.equal(refused.status, 422, refused.text);
      assert.deepEqual(none, []);

      const booked = await book(patient.id, '2031-05-08');
      assert.equal(booked.status, 201, booked.text);
      const blockedId = insertBlockedTime(server.db, booked.body.id);
      const blocked = await server.request('GET', `/appointments/${blockedId}`);
      assert.equal(blocked.status, 200, blocked.text);
      assert.equal(blocked.body.patient_id, null);

      const [cancelled, events] = await withEvents(() => patch(`/appointments/${blockedId}`, { status: 'cancelled' }));
      assert.equal(cancelled.status, 200, cancelled.text);
      assertEvent(single(events), {
        type: 'appointment.updated',
        patient_id: null,
        data: {
          appointment_id: blockedId,
          appointment_number: blocked.body.appointment_number,
          start_at: '2031-05-08T09:00:00.000Z',
          end_at: '2031-05-08T09:30:00.000Z',
          status: 'cancelled',
          resource_id: doctorId,
          changed: ['status'],
        },
      });
    });

    it('document.created: the document id, its type and its size in bytes (type other by default)', async () => {
      const patient = await newPatient();
      const upload = (parts: Parameters<typeof multipartBody>[0]) => {
        const form = multipartBody(parts);
        return server.request('POST', `/patients/${patient.id}/documents`, {
          rawBody: form.body,
          headers: { 'content-type': form.contentType },
        });
      };
      const [xray, events] = await withEvents(() =>
        upload([
          { name: 'type', data: 'xrays' },
          { name: 'file', filename: 'pano.png', contentType: 'image/png', data: Buffer.alloc(1234, 7) },
        ]),
      );
      assert.equal(xray.status, 201, xray.text);
      assertEvent(single(events), {
        type: 'document.created',
        patient_id: patient.id,
        data: { document_id: xray.body.id, type: 'xrays', size: 1234 },
      });

      const [note, more] = await withEvents(() => upload([{ name: 'file', filename: 'note.txt', data: 'hello' }]));
      assert.equal(note.status, 201, note.text);
      assertEvent(single(more), {
        type: 'document.created',
        patient_id: patient.id,
        data: { document_id: note.body.id, type: 'other', size: 5 },
      });
    });

    it('invoice.created by `clinic invoice create`: id, number, total as a JSON number, status issued', async () => {
      const patient = await newPatient();
      const [cli, events] = await withEvents(() =>
        runClinic(['invoice', 'create', '--patient-id', patient.patient_number, '--total', '123.45', '--json', '--data', server.dataDir]),
      );
      assert.equal(cli.code, 0, cli.stderr);
      const invoice = JSON.parse(cli.stdout) as { id: string; invoice_number: string };
      assertEvent(single(events), {
        type: 'invoice.created',
        patient_id: patient.id,
        data: { invoice_id: invoice.id, invoice_number: invoice.invoice_number, total: 123.45, status: 'issued' },
      });
    });
    // invoice.voided, payment.created and refund.created, with their data and their replays: the
    // tables of VOID_INVOICE, RECORD_PAYMENT and REFUND_PAYMENT (test/domain/invoices, test/domain/payments).
  });

  describe('what appends nothing', () => {
    it('a refused request: 401, 403, 404, 409, 412, 422', async () => {
      const patient = await newPatient();
      const paidInvoice = createTestInvoice(server.db, { patient_id: patient.id, total: '50.00' });
      const usedKey = { 'idempotency-key': `used-${randomUUID()}` };
      const paid = await pay(paidInvoice.id, '10.00', 'cash', usedKey);
      assert.equal(paid.status, 200, paid.text);
      const voidInvoice = createTestInvoice(server.db, { patient_id: patient.id });
      assert.equal((await post(`/invoices/${voidInvoice.id}/void`, { reason: 'error' })).status, 200);
      const booked = await book(patient.id, '2031-06-01');
      assert.equal(booked.status, 201, booked.text);
      const readOnly = server.createKey(['patients:read', 'appointments:read', 'invoices:read', 'lookups:read']);
      const badType = multipartBody([
        { name: 'type', data: 'nonsense' },
        { name: 'file', filename: 'a.txt', data: 'a' },
      ]);
      const empty = multipartBody([{ name: 'file', filename: 'empty.txt', data: '' }]);
      const valid = multipartBody([{ name: 'file', filename: 'a.txt', data: 'a' }]);
      const upload = (patientId: string, form: ReturnType<typeof multipartBody>) =>
        server.request('POST', `/patients/${patientId}/documents`, { rawBody: form.body, headers: { 'content-type': form.contentType } });

      const refusals: [number, string, () => Promise<ApiResponse>][] = [
        [401, 'no key', () => post('/patients', buildPatient(), { key: null })],
        [401, 'unknown key', () => post('/patients', buildPatient(), { key: 'not-a-key' })],
        [403, 'no patients:write', () => post('/patients', buildPatient(), { key: readOnly })],
        [403, 'no payments:write', () => pay(paidInvoice.id, '1.00', 'cash', { authorization: `Bearer ${readOnly}` })],
        [404, 'PATCH of an unknown patient', () => patch(`/patients/${randomUUID()}`, { title: 'Dr.' })],
        [404, 'PATCH of an unknown appointment', () => patch(`/appointments/${randomUUID()}`, { status: 'arrived' })],
        [404, 'upload for an unknown patient', () => upload(randomUUID(), valid)],
        [404, 'refund of an unknown payment', () => post(`/payments/${randomUUID()}/refunds`, { reason: 'x' })],
        [409, 'booked → completed', () => patch(`/appointments/${booked.body.id}`, { status: 'completed' })],
        [409, 'void with a payment', () => post(`/invoices/${paidInvoice.id}/void`, { reason: 'error' })],
        [409, 'payment on a void invoice', () => pay(voidInvoice.id, '1.00')],
        [
          412,
          'If-Match of another version',
          () => patch(`/patients/${patient.id}`, { title: 'Dr.' }, { headers: { 'if-match': '"999"' } }),
        ],
        [422, 'patient without contact', () => post('/patients', { first_name: 'Only', last_name: 'Name' })],
        [422, 'bad email in a PATCH', () => patch(`/patients/${patient.id}`, { title: 'Dr.', email: 'not an email' })],
        [422, 'appointment ending before it starts', () => book(patient.id, '2031-06-02', { end_at: '2031-06-02T08:00:00Z' })],
        [422, 'document type', () => upload(patient.id, badType)],
        [422, 'empty document', () => upload(patient.id, empty)],
        [422, 'overpayment', () => pay(paidInvoice.id, '1000.00')],
        [422, 'Idempotency-Key of another payment', () => pay(paidInvoice.id, '2.00', 'cash', usedKey)],
        [422, 'refund above the payment', () => post(`/payments/${paid.body.payment_id}/refunds`, { amount: '11.00', reason: 'x' })],
      ];
      for (const [status, what, request] of refusals) {
        const [response, events] = await withEvents(request);
        assert.equal(response.status, status, `${what}: ${response.text}`);
        assert.deepEqual(events, [], `${what} (${status}) appends nothing`);
      }

      // A module switched off: 403 MODULE_DISABLED.
      setModuleEnabled(server.db, 'payments', false);
      try {
        const [response, events] = await withEvents(() => pay(paidInvoice.id, '1.00'));
        assert.equal(response.status, 403, response.text);
        assert.deepEqual(events, []);
      } finally {
        setModuleEnabled(server.db, 'payments', true);
      }
    });

    it('reads, and doctors, services, keys and settings', async () => {
      const patient = await newPatient();
      const [, events] = await withEvents(async () => {
        addDoctor(server.db, { name: `Dr. ${randomUUID().slice(0, 6)}`, color: '#abcdef' });
        addService(server.db, { name: `Check-up ${randomUUID().slice(0, 6)}`, duration_min: 20, price: '45.00', color: '#33aa55' });
        createApiKey(server.db, { name: 'another integration' });
        setModuleEnabled(server.db, 'billing', false);
        setModuleEnabled(server.db, 'billing', true);
        for (const path of [
          '/patients',
          `/patients/${patient.id}`,
          `/patients?q=${encodeURIComponent(patient.patient_number)}`,
          '/appointments?from=2031-05-01&to=2031-05-31',
          '/invoices',
          `/patients/${patient.id}/documents`,
          '/doctors',
          '/services',
          '/audit-events',
          '/events',
        ]) {
          const response = await server.request('GET', path);
          assert.equal(response.status, 200, `${path}: ${response.text}`);
        }
      });
      assert.deepEqual(events, []);
    });

    it('GET /events records nothing in the audit trail', async () => {
      const auditTrail = async () => {
        const all: unknown[] = [];
        let path: string | null = '/audit-events?limit=1000';
        while (path !== null) {
          const page: ApiResponse<unknown[]> = await server.request('GET', path);
          assert.equal(page.status, 200, page.text);
          all.push(...page.body);
          path = nextPage(page);
        }
        return all;
      };
      await newPatient();
      const before = await auditTrail();
      for (const query of ['', '?wait=0', '?after=1&limit=1', '?types=patient.created', `?after=${await lastSeq()}&wait=1`, '?limit=0']) {
        await feed(query);
      }
      assert.deepEqual(await auditTrail(), before);
    });
  });

  describe('seq', () => {
    it('is 1..N without gaps in commit order, beside concurrent requests and CLI processes writing to the same data directory', async () => {
      const payer = await newPatient({ last_name: 'Payer' });
      const invoice = createTestInvoice(server.db, { patient_id: payer.id, total: '5000.00' });
      const cli = [1, 2, 3].map((n) =>
        runClinic(
          [
            'create-patient',
            '--first-name',
            'Cli',
            '--last-name',
            `Writer${n}`,
            '--email',
            `cli${n}@example.org`,
            '--mobile',
            `+43 660 00000${n}`,
            '--json',
            '--data',
            server.dataDir,
          ],
          { ownProcess: true },
        ),
      );
      let cliDone = false;
      const cliResults = Promise.all(cli).finally(() => (cliDone = true));

      const patients: ApiResponse[] = [];
      const payments: ApiResponse[] = [];
      const postPatients = (n: number, round: number) =>
        Array.from({ length: n }, (_, i) => post('/patients', buildPatient({ last_name: `Crowd${round}x${i}` })));
      // 40 patients and 20 payments at once, then more while the CLI processes run.
      const [firstPatients, firstPayments] = await Promise.all([
        Promise.all(postPatients(40, 0)),
        Promise.all(Array.from({ length: 20 }, () => pay(invoice.id, '10.00'))),
      ]);
      patients.push(...firstPatients);
      payments.push(...firstPayments);
      for (let round = 1; !cliDone && round <= 60; round++) {
        const [more, morePayments] = await Promise.all([
          Promise.all(postPatients(6, round)),
          Promise.all([pay(invoice.id, '1.00', 'card'), pay(invoice.id, '2.00', 'bank')]),
        ]);
        patients.push(...more);
        payments.push(...morePayments);
      }
      const cliOutcomes = await cliResults;
      for (const outcome of cliOutcomes) assert.equal(outcome.code, 0, outcome.stderr);
      // A request may be refused while another process holds the write lock (503 DATABASE_BUSY); a refusal appends nothing.
      for (const response of [...patients, ...payments]) assert.ok([200, 201, 503].includes(response.status), response.text);
      assert.ok(patients.filter((r) => r.status === 201).length >= 40, 'most writes succeed');

      const all = await eventsAfter(0);
      assert.deepEqual(
        all.map((e) => e.seq),
        Array.from({ length: all.length }, (_, i) => i + 1),
        'seq 1..N without gaps',
      );
      for (const event of all) {
        assert.equal(event.id, `evt_${event.seq}`);
        assert.ok(TYPES.includes(event.type), event.type);
      }

      // Every patient has exactly one patient.created, with its number; no event names a patient that does not exist.
      const listed: Created[] = [];
      let path: string | null = '/patients?limit=200';
      while (path !== null) {
        const page: ApiResponse<Created[]> = await server.request('GET', path);
        assert.equal(page.status, 200, page.text);
        listed.push(...page.body);
        path = nextPage(page);
      }
      const createdEvents = all.filter((e) => e.type === 'patient.created');
      assert.equal(createdEvents.length, listed.length, 'one patient.created per patient');
      const byPatient = new Map(createdEvents.map((e) => [e.patient_id, e]));
      for (const patient of listed) {
        assert.deepEqual(byPatient.get(patient.id)?.data, { patient_number: patient.patient_number }, `patient ${patient.patient_number}`);
      }
      for (const outcome of cliOutcomes) {
        const patient = JSON.parse(outcome.stdout) as Created;
        assert.ok(byPatient.has(patient.id), `the CLI's patient ${patient.patient_number} has its event`);
      }
      for (const response of patients.filter((r) => r.status === 201)) assert.ok(byPatient.has(response.body.id));

      // The payments' events, in seq order, walk the balance down by each amount: seq is the commit order.
      const paymentEvents = all.filter((e) => e.type === 'payment.created' && e.data.invoice_id === invoice.id);
      const accepted = payments.filter((r) => r.status === 200);
      assert.deepEqual(paymentEvents.map((e) => e.data.payment_id).sort(), accepted.map((r) => r.body.payment_id).sort());
      let balance = 500_000;
      for (const event of paymentEvents) {
        balance -= Math.round((event.data.amount as number) * 100);
        assert.equal(event.data.invoice_balance, balance / 100, `the balance after ${event.id}`);
        assert.equal(event.data.invoice_status, 'partially_paid');
      }
    });
  });

  describe('after, limit, types and Link', () => {
    before(async () => {
      // Enough events for more than a default page, and of each of two types, with others after the last of them.
      const patient = await newPatient();
      for (const title of ['Dr.', 'Prof.']) assert.equal((await patch(`/patients/${patient.id}`, { title })).status, 200);
      for (let n = 0; n < 2; n++) {
        const invoice = createTestInvoice(server.db, { patient_id: patient.id });
        assert.equal((await post(`/invoices/${invoice.id}/void`, { reason: 'error' })).status, 200);
      }
      await Promise.all(Array.from({ length: 3 }, () => newPatient()));
      for (let round = 0; round < 15 && (await lastSeq()) < 130; round++) await Promise.all(Array.from({ length: 10 }, () => newPatient()));
      assert.ok((await lastSeq()) >= 130, 'more events than a default page');
    });

    it('without after and limit: the first 100, and a Link to the next page after=100', async () => {
      const first = await feed();
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(
        first.body.map((e) => e.seq),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      const next = nextPage(first);
      assert.ok(next, 'a Link when more follow');
      const url = new URL(next, 'http://link.invalid');
      assert.equal(url.pathname, '/events');
      assert.equal(url.searchParams.get('after'), '100');
      assert.ok([null, '100'].includes(url.searchParams.get('limit')), `limit kept: ${next}`);
      assert.equal(url.searchParams.get('types'), null);
      assert.equal((await server.request<ChangeEvent[]>('GET', next)).body[0]!.seq, 101);
    });

    it('after and limit: the events with a larger seq, at most limit; Link keeps limit; none on the last page', async () => {
      const three = await feed('?after=5&limit=3');
      assert.deepEqual(
        three.body.map((e) => e.seq),
        [6, 7, 8],
      );
      const next = nextPage(three);
      assert.ok(next, 'a Link when more follow');
      const params = new URL(next, 'http://link.invalid').searchParams;
      assert.equal(params.get('after'), '8');
      assert.equal(params.get('limit'), '3');
      assert.deepEqual(
        (await server.request<ChangeEvent[]>('GET', next)).body.map((e) => e.seq),
        [9, 10, 11],
      );

      const last = await lastSeq();
      const end = await feed(`?after=${last - 3}&limit=3`);
      assert.deepEqual(
        end.body.map((e) => e.seq),
        [last - 2, last - 1, last],
      );
      assert.equal(end.headers.get('link'), null, 'no Link on the last page');
      for (const after of [last, last + 1000]) {
        const none = await feed(`?after=${after}`);
        assert.equal(none.status, 200);
        assert.deepEqual(none.body, []);
        assert.equal(none.headers.get('link'), null);
      }
      assert.equal((await feed('?limit=1000')).body.length, Math.min(1000, last));
      assert.deepEqual(
        (await feed('?limit=1')).body.map((e) => e.seq),
        [1],
      );
    });

    it('types: only those, in seq order; Link keeps types and limit; none when no more of them follow, though others do; empty items ignored', async () => {
      const all = await eventsAfter(0);
      const wanted = ['patient.updated', 'invoice.voided'];
      const matching = all.filter((e) => wanted.includes(e.type));
      assert.ok(matching.length >= 4, `${matching.length} events of ${wanted.join(', ')}`);
      assert.ok(matching.at(-1)!.seq < all.at(-1)!.seq, 'other events follow the last of them');

      const pages: ChangeEvent[][] = [];
      let path: string | null = `/events?types=${wanted.join(',')}&limit=2`;
      while (path !== null) {
        const page: ApiResponse<ChangeEvent[]> = await server.request('GET', path);
        assert.equal(page.status, 200, page.text);
        pages.push(page.body);
        path = nextPage(page);
        if (path !== null) {
          const params = new URL(path, 'http://link.invalid').searchParams;
          assert.equal(params.get('after'), String(page.body.at(-1)!.seq), path);
          assert.equal(params.get('limit'), '2', path);
          assert.deepEqual(params.get('types')?.split(',').sort(), [...wanted].sort(), path);
        }
        assert.ok(pages.length <= matching.length, 'the pages end');
      }
      assert.deepEqual(pages.flat(), matching);
      assert.ok(
        pages.slice(0, -1).every((p) => p.length === 2),
        'full pages but the last',
      );
      assert.ok(pages.at(-1)!.length > 0, 'no Link to an empty page');

      // One page holding exactly every matching event: nothing of the types follows, so no Link.
      const exact = await feed(`?types=invoice.voided&limit=${all.filter((e) => e.type === 'invoice.voided').length}`);
      assert.equal(exact.headers.get('link'), null);
      assert.ok(exact.body.every((e) => e.type === 'invoice.voided'));

      const twice = await feed(`?types=invoice.voided,patient.updated,invoice.voided&limit=1000`);
      assert.equal(twice.status, 200, twice.text);
      assert.deepEqual(twice.body, matching, 'a type named twice: its events once');
      const spaced = await feed(`?types=,patient.updated,,invoice.voided,&limit=1000`);
      assert.equal(spaced.status, 200, spaced.text);
      assert.deepEqual(spaced.body, matching);
      const one = await feed(`?types=patient.updated&after=${matching[0]!.seq}&limit=1000`);
      assert.deepEqual(
        one.body,
        matching.filter((e) => e.type === 'patient.updated' && e.seq > matching[0]!.seq),
      );
      const everyType = await feed(`?types=${TYPES.join(',')}&limit=1000`);
      assert.deepEqual(everyType.body, all.slice(0, 1000));
    });

    it('422 for a bad value of each query parameter, all at once, as every other query of the API', async () => {
      const bad: [string, string][] = [
        ['after=-1', 'after'],
        ['after=x', 'after'],
        ['after=1.5', 'after'],
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=x', 'limit'],
        ['wait=31', 'wait'],
        ['wait=-1', 'wait'],
        ['wait=x', 'wait'],
        ['types=unknown.type', 'types'],
        ['types=patient.created,patient.deleted', 'types'],
        ['types=PATIENT.CREATED', 'types'],
        ['types=,', 'types'],
        ['types=%20,%20', 'types'],
      ];
      for (const [query, name] of bad) {
        const response = await refusedFeed(`?${query}`);
        assert.equal(response.status, 422, `${query}: ${response.text}`);
        assert.ok(Array.isArray(response.body.detail), `${query}: a validation error`);
        const items = response.body.detail as { type: string; loc: string[] }[];
        assert.deepEqual(
          items.map((item) => item.loc),
          [['query', name]],
          query,
        );
        if (name === 'types') assert.equal(items[0]!.type, 'value_error', query);
      }
      const allBad = await refusedFeed('?after=-1&limit=0&wait=31&types=nonsense');
      assert.equal(allBad.status, 422);
      assert.deepEqual((allBad.body.detail as { loc: string[] }[]).map((item) => item.loc[1]).sort(), ['after', 'limit', 'types', 'wait']);
      for (const query of ['after=0', 'limit=1', 'limit=1000', 'wait=0', 'wait=30', `types=${TYPES.join(',')}`]) {
        assert.equal((await feed(`?${query}`)).status, 200, query);
      }
    });

    it('needs the scope events:read: 401 without a valid key, 403 FORBIDDEN without the scope, before any 422', async () => {
      const unauthenticated = await refusedFeed('', { key: null });
      assert.equal(unauthenticated.status, 401);
      assert.equal((unauthenticated.body.detail as { code: string }).code, 'UNAUTHENTICATED');
      assert.match(unauthenticated.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal((await feed('', { key: 'not-a-key' })).status, 401);
      assert.equal((await feed('?limit=0', { key: null })).status, 401);

      const everyOtherScope = server.createKey(SCOPES.filter((s) => s !== 'events:read'));
      for (const query of ['', '?limit=0', '?wait=5']) {
        const refused = await refusedFeed(query, { key: everyOtherScope });
        assert.equal(refused.status, 403, `${query}: ${refused.text}`);
        assert.equal((refused.body.detail as { code: string }).code, 'FORBIDDEN');
      }

      const onlyEvents = server.createKey(['events:read']);
      const allowed = await feed('?limit=1', { key: onlyEvents });
      assert.equal(allowed.status, 200, allowed.text);
      assert.equal(allowed.body.length, 1);
      assert.equal(
        (await feed('?limit=1', { key: createApiKey(server.db, { name: 'no --scopes' }).key })).status,
        200,
        'a key without --scopes has it',
      );
    });

    it('is described in the OpenAPI document: GET /events with after, limit, types and wait, scope events:read', async () => {
      const { body: openapi } = await server.request('GET', '/openapi.json', { key: null });
      const operation = openapi.paths['/events']?.get;
      assert.ok(operation, 'GET /events');
      assert.deepEqual(
        (operation.parameters as { name: string; in: string }[])
          .filter((p) => p.in === 'query')
          .map((p) => p.name)
          .sort(),
        ['after', 'limit', 'types', 'wait'],
      );
      assert.match(JSON.stringify(operation), /events:read/);
    });
  });

  describe('wait: the long poll', () => {
    /** `request`, with when it was answered (ms since the epoch) and whether it has been. */
    function timed<T>(request: Promise<T>) {
      const started = Date.now();
      const state = { settled: false };
      const answer = request.then((value) => {
        state.settled = true;
        return { value, at: Date.now(), took: Date.now() - started };
      });
      return { answer, state, started };
    }

    it('with nothing after `after`, is held and answered within a second of a commit by this server, with that event', async () => {
      const mark = await lastSeq();
      const poll = timed(feed(`?after=${mark}&wait=5`));
      await delay(300);
      assert.equal(poll.state.settled, false, 'held while nothing follows');
      const created = await newPatient({ last_name: 'Awaited' });
      const committed = Date.now();
      const { value, at } = await poll.answer;
      assert.equal(value.status, 200, value.text);
      assert.ok(at - committed < 1000, `answered ${at - committed} ms after the commit`);
      assert.deepEqual(
        value.body.map((e) => [e.type, e.patient_id]),
        [['patient.created', created.id]],
      );
      assert.equal(value.body[0]!.seq, mark + 1);
    });

    it('every request held at once is answered by the one commit that concerns it', async () => {
      const mark = await lastSeq();
      const polls = [
        ...Array.from({ length: 4 }, () => timed(feed(`?after=${mark}&wait=5`))),
        ...Array.from({ length: 4 }, () => timed(feed(`?after=${mark}&wait=5&types=patient.created`))),
      ];
      await delay(300);
      assert.ok(
        polls.every((p) => !p.state.settled),
        'all held',
      );
      const created = await newPatient({ last_name: 'AwaitedByMany' });
      const committed = Date.now();
      for (const { answer } of polls) {
        const { value, at } = await answer;
        assert.equal(value.status, 200, value.text);
        assert.ok(at - committed < 1000, `answered ${at - committed} ms after the commit`);
        assert.deepEqual(
          value.body.map((e) => e.patient_id),
          [created.id],
        );
      }
    });

    it('holds at most 8 requests of one key at once: the 9th is answered at once with what there is, another key is still held', async () => {
      const mark = await lastSeq();
      const polls = Array.from({ length: 8 }, () => timed(feed(`?after=${mark}&wait=5`)));
      await delay(300);
      assert.ok(
        polls.every((p) => !p.state.settled),
        'eight held',
      );
      const started = Date.now();
      const ninth = await feed(`?after=${mark}&wait=5`);
      assert.equal(ninth.status, 200, ninth.text);
      assert.deepEqual(ninth.body, []);
      assert.ok(Date.now() - started < 2000, `the ninth took ${Date.now() - started} ms`);
      const otherKey = timed(feed(`?after=${mark}&wait=5`, { key: createApiKey(server.db, { name: 'another poller' }).key }));
      await delay(300);
      assert.ok(!otherKey.state.settled, "another key's poll is held");
      await newPatient({ last_name: 'EndsTheHolds' });
      for (const { answer } of [...polls, otherKey]) assert.equal((await answer).value.body.length, 1);
      // Released: the key may hold again.
      const again = timed(feed(`?after=${mark + 1}&wait=5`));
      await delay(300);
      assert.ok(!again.state.settled, 'held again once the others were answered');
      await newPatient({ last_name: 'EndsTheLast' });
      assert.equal((await again.answer).value.body.length, 1);
    });

    it('is answered within a second of a commit by a CLI process on the same data directory', async () => {
      const mark = await lastSeq();
      // The CLI process needs a while to start; the poll ends with its commit, long before `wait`.
      const poll = timed(feed(`?after=${mark}&wait=15`));
      const cli = await runClinic([
        'create-patient',
        '--first-name',
        'Cli',
        '--last-name',
        'Awaited',
        '--email',
        'cli@example.org',
        '--mobile',
        '+43 660 7654321',
        '--json',
        '--data',
        server.dataDir,
      ]);
      // The commit happened before the process ended: measuring from its end is the more lenient.
      const exited = Date.now();
      assert.equal(cli.code, 0, cli.stderr);
      const patient = JSON.parse(cli.stdout) as Created;
      const { value, at } = await poll.answer;
      assert.equal(value.status, 200, value.text);
      assert.ok(at - exited < 1000, `answered ${at - exited} ms after the CLI process ended`);
      assert.deepEqual(
        value.body.map((e) => [e.type, e.patient_id, e.data]),
        [['patient.created', patient.id, { patient_number: patient.patient_number }]],
      );
    });

    it("ends with another connection's commit that lands between its read and the feed's last seq", async () => {
      // The interleaving a CLI process makes by chance under load, made on purpose: the server's
      // watch, asked for the feed's last seq while a held request reads again, first lets a
      // second connection commit a patient.
      const writer = openDatabase(server.dataDir);
      let commitOnNextRead = false;
      class InterleavedWatch extends ChangeWatch {
        override lastSeq(): number {
          if (commitOnNextRead) {
            commitOnNextRead = false;
            createPatient(writer, buildPatient({ last_name: 'Interleaved' }));
          }
          return super.lastSeq();
        }
      }
      const config = {
        dataDir: server.dataDir,
        jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
        documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
        logger: silentLogger,
      };
      const served = openDatabase(server.dataDir);
      const handle = createApp(served, new CommitGroups(served), config, OPERATIONS, new InterleavedWatch(served)).callback();
      const http = createServer((request, response) => void handle(request, response));
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      try {
        const mark = await lastSeq();
        commitOnNextRead = true;
        const started = Date.now();
        const answer = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}${API_PREFIX}/events?after=${mark}&wait=5`, {
          headers: { authorization: `Bearer ${server.key}` },
        });
        const events = (await answer.json()) as ChangeEvent[];
        assert.equal(answer.status, 200);
        assert.equal(commitOnNextRead, false, 'the commit was made during the request');
        assert.deepEqual(
          events.map((e) => e.type),
          ['patient.created'],
        );
        assert.ok(Date.now() - started < 1000, `answered after ${Date.now() - started} ms`);
      } finally {
        http.close();
        served.close();
        writer.close();
      }
    });

    it('with types, a commit of another type does not end it; one of its types does', async () => {
      const patient = await newPatient();
      const invoice = createTestInvoice(server.db, { patient_id: patient.id, total: '30.00' });
      const mark = await lastSeq();
      const poll = timed(feed(`?after=${mark}&wait=5&types=invoice.voided,refund.created`));
      await delay(200);
      await newPatient({ last_name: 'NotAwaited' });
      assert.equal((await patch(`/patients/${patient.id}`, { title: 'Dr.' })).status, 200);
      await delay(600);
      assert.equal(poll.state.settled, false, 'still held after commits of other types');
      assert.equal((await post(`/invoices/${invoice.id}/void`, { reason: 'error' })).status, 200);
      const committed = Date.now();
      const { value, at } = await poll.answer;
      assert.equal(value.status, 200, value.text);
      assert.ok(at - committed < 1000, `answered ${at - committed} ms after the commit`);
      assert.deepEqual(
        value.body.map((e) => [e.type, e.data.invoice_id]),
        [['invoice.voided', invoice.id]],
      );
    });

    it('with nothing to say, answers [] when `wait` has passed', async () => {
      const mark = await lastSeq();
      const { answer } = timed(feed(`?after=${mark}&wait=1`));
      const { value, took } = await answer;
      assert.equal(value.status, 200, value.text);
      assert.deepEqual(value.body, []);
      assert.equal(value.headers.get('link'), null);
      assert.ok(took >= 900, `held ${took} ms`);
      assert.ok(took < 10_000, `held ${took} ms`);
    });

    it('wait=0 (and no wait) answers at once; so does any wait when events follow `after`', async () => {
      const mark = await lastSeq();
      for (const query of [`?after=${mark}&wait=0`, `?after=${mark}`]) {
        const { value, took } = await timed(feed(query)).answer;
        assert.deepEqual(value.body, [], query);
        assert.ok(took < 500, `${query}: ${took} ms`);
      }
      const { value, took } = await timed(feed(`?after=${mark - 1}&wait=30`)).answer;
      assert.deepEqual(
        value.body.map((e) => e.seq),
        [mark],
      );
      assert.ok(took < 500, `${took} ms`);
    });
  });
});
