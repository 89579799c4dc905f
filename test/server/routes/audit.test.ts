import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { sqliteDriver } from '../../../src/db/drivers/sqlite-driver.js';
import { join } from 'node:path';
import { createApiKey } from '../../../src/domain/api-keys.js';
import { createTestInvoice } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { multipartBody } from '../../helpers/multipart.js';
import type { ApiResponse, RequestOptions } from '../../helpers/test-server.js';
import { assertChain, type AuditEvent } from '../../helpers/audit-chain.js';

// The audit trail of interface 1.2.0 (clinic-api-1.2.md, "Audit trail"), black box over HTTP:
// what each answer records, the hash chain recomputed here, and GET /audit-events.

describe('the audit trail over HTTP', () => {
  const server = useTestServer();
  /** The key every recorded request of this suite is made with, and its id and name. */
  let auditor: { id: string; key: string; name: string };

  before(() => {
    const created = createApiKey(server.db, { name: 'Audit test integration' });
    auditor = { id: created.id, key: created.key, name: 'Audit test integration' };
  });

  const call = (method: string, path: string, options: RequestOptions = {}) =>
    server.request(method, path, { key: auditor.key, ...options });

  /** Every event with a seq above `after`, through GET /audit-events, following its Link headers. */
  async function eventsAfter(after = 0): Promise<AuditEvent[]> {
    const events: AuditEvent[] = [];
    let path: string | null = `/audit-events?limit=1000&after=${after}`;
    while (path !== null) {
      const page: ApiResponse<AuditEvent[]> = await server.request('GET', path);
      assert.equal(page.status, 200, page.text);
      events.push(...page.body);
      const link = page.headers.get('link');
      path = link === null ? null : /<[^>]*\/api\/public\/v1(\/[^>]*)>; rel="next"/.exec(link)![1]!;
    }
    return events;
  }
  const lastSeq = async () => (await eventsAfter()).at(-1)?.seq ?? 0;

  /** What `act` recorded: the events appended while it ran. */
  async function recorded(act: () => Promise<unknown>): Promise<AuditEvent[]> {
    const mark = await lastSeq();
    await act();
    return eventsAfter(mark);
  }

  /** Asserts the fields every event of this key's answer `response` holds, and its own `expected` fields. */
  function assertEvent(event: AuditEvent | undefined, response: ApiResponse, expected: Partial<AuditEvent>): void {
    assert.ok(event, 'an event was recorded');
    const requestId = response.headers.get('x-request-id');
    assert.ok(requestId, 'the answer has an X-Request-Id');
    assert.deepEqual(
      {
        actor_type: event.actor_type,
        actor_id: event.actor_id,
        actor_name: event.actor_name,
        source: event.source,
        request_id: event.request_id,
      },
      { actor_type: 'api_key', actor_id: auditor.id, actor_name: auditor.name, source: '127.0.0.1', request_id: requestId },
    );
    const picked = Object.fromEntries(Object.keys(expected).map((key) => [key, event[key as keyof AuditEvent]]));
    assert.deepEqual(picked, expected);
    assert.match(event.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'at is a UTC date-time');
    assert.ok(Math.abs(Date.parse(event.at) - Date.now()) < 60_000, 'at is now');
  }

  /** The fields of an event about `patient`'s record whose subject is `subjectId` of `subjectType` (the patient itself unless given). */
  const about = (patient: { id: string; patient_number: string }, subjectType = 'patient', subjectId = patient.id) => ({
    patient_id: patient.id,
    patient_number: patient.patient_number,
    subject_type: subjectType,
    subject_id: subjectId,
  });

  /** Creates a patient over HTTP without looking at its events. */
  const newPatient = async (lastName = 'Auditee') =>
    (
      await call('POST', '/patients', {
        body: { first_name: 'Ada', last_name: lastName, email: 'ada@example.org', mobile: '+43 660 1234567' },
      })
    ).body as { id: string; patient_number: string };

  describe('what each answer records', () => {
    it('POST /patients: patient.create, the patient its subject', async () => {
      let response!: ApiResponse;
      const events = await recorded(async () => {
        response = await call('POST', '/patients', {
          body: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.org', mobile: '+1 555 0100' },
        });
      });
      assert.equal(response.status, 201);
      assert.equal(events.length, 1);
      assertEvent(events[0], response, { action: 'patient.create', ...about(response.body), detail: null });
    });

    it('GET /patients/{id}: patient.read', async () => {
      const patient = await newPatient();
      let response!: ApiResponse;
      const events = await recorded(async () => (response = await call('GET', `/patients/${patient.id}`)));
      assert.equal(response.status, 200);
      assert.equal(events.length, 1);
      assertEvent(events[0], response, { action: 'patient.read', ...about(patient), detail: null });
    });

    // What a search, a list and a read of appointments and invoices record (one event per patient
    // on the page returned, q null without a text, nothing for nobody found or a blocked time):
    // the tables of FIND_PATIENTS, READ_APPOINTMENT, LIST_APPOINTMENTS, READ_INVOICE and LIST_INVOICES.
    // Here, that a list's events carry the actor and the one request they came from.
    it('GET /patients?q: its events, one per patient on the page, name the key and share the request id', async () => {
      const word = `Searchable${randomUUID().slice(0, 8)}`;
      await newPatient(word);
      await newPatient(word);
      let response!: ApiResponse;
      const events = await recorded(async () => (response = await call('GET', `/patients?q=${word}`)));
      assert.equal(response.status, 200);
      assert.equal(events.length, 2);
      for (const event of events) assertEvent(event, response, { action: 'patient.search', detail: { q: word } });
    });

    // PATCH /patients/{id}: patient.update with the fields changed, sorted, and changed [] for a no-op:
    // UPDATE_PATIENT's table (test/domain/patients/update-patient.test.ts).

    // appointment.create and appointment.update (the request fields changed, sorted; [] for a
    // change of nothing): BOOK_APPOINTMENT's and UPDATE_APPOINTMENT's tables (test/domain/appointments/).

    it('documents: upload document.create, list document.list, download document.read; a 304 records nothing', async () => {
      const patient = await newPatient();
      const { body, contentType } = multipartBody([
        { name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', data: '%PDF-1.7 audit' },
      ]);
      let uploaded!: ApiResponse;
      const created = await recorded(
        async () =>
          (uploaded = await call('POST', `/patients/${patient.id}/documents`, { rawBody: body, headers: { 'content-type': contentType } })),
      );
      assert.equal(uploaded.status, 201, uploaded.text);
      assert.equal(created.length, 1);
      assertEvent(created[0], uploaded, { action: 'document.create', ...about(patient, 'document', uploaded.body.id), detail: null });

      let list!: ApiResponse;
      const listed = await recorded(async () => (list = await call('GET', `/patients/${patient.id}/documents`)));
      assert.equal(list.status, 200);
      assert.equal(listed.length, 1);
      assertEvent(listed[0], list, { action: 'document.list', patient_id: patient.id, subject_type: 'document', subject_id: null });

      const url = `${server.baseUrl}/patients/${patient.id}/documents/${uploaded.body.id}`;
      let download!: Response;
      const read = await recorded(async () => {
        download = await fetch(url, { headers: { authorization: `Bearer ${auditor.key}` } });
        await download.arrayBuffer();
      });
      assert.equal(download.status, 200);
      assert.equal(read.length, 1);
      assertEvent(
        read[0],
        { status: 200, headers: download.headers, body: undefined, text: '' },
        {
          action: 'document.read',
          patient_id: patient.id,
          subject_type: 'document',
          subject_id: uploaded.body.id,
        },
      );

      const etag = download.headers.get('etag')!;
      let notModified!: Response;
      const none = await recorded(async () => {
        notModified = await fetch(url, { headers: { authorization: `Bearer ${auditor.key}`, 'if-none-match': etag } });
        await notModified.arrayBuffer();
      });
      assert.equal(notModified.status, 304);
      assert.deepEqual(none, [], 'a 304 shows nothing and records nothing');
    });
  });

  describe('what records nothing', () => {
    it('refused requests: 401, 403 (scope), 404, 422, 409, 412', async () => {
      const patient = await newPatient();
      const invoice = createTestInvoice(server.db, { patient_id: patient.id });
      assert.equal((await call('POST', `/invoices/${invoice.id}/payments`, { body: { amount: '10.00', method: 'cash' } })).status, 200);
      const lookupsOnly = server.createKey(['lookups:read']);
      const refusals: [number, () => Promise<ApiResponse>][] = [
        [401, () => call('GET', `/patients/${patient.id}`, { key: null })],
        [401, () => call('GET', `/patients/${patient.id}`, { key: 'not-a-key' })],
        [403, () => call('GET', `/patients/${patient.id}`, { key: lookupsOnly })],
        [403, () => call('GET', `/invoices/${invoice.id}`, { key: lookupsOnly })],
        [404, () => call('GET', `/patients/${randomUUID()}`)],
        [404, () => call('GET', `/appointments/${randomUUID()}`)],
        [404, () => call('GET', `/patients/${patient.id}/documents/${randomUUID()}`)],
        [422, () => call('POST', '/patients', { body: { first_name: 'Only' } })],
        [422, () => call('PATCH', `/patients/${patient.id}`, { body: { email: 'not an email' } })],
        [422, () => call('POST', `/invoices/${invoice.id}/payments`, { body: { amount: '1000.00', method: 'cash' } })],
        [409, () => call('POST', `/invoices/${invoice.id}/void`, { body: { reason: 'has a payment' } })],
        [412, () => call('PATCH', `/patients/${patient.id}`, { body: { title: 'Dr.' }, headers: { 'if-match': '"999"' } })],
      ];
      for (const [status, request] of refusals) {
        let response!: ApiResponse;
        const events = await recorded(async () => (response = await request()));
        assert.equal(response.status, status, response.text);
        assert.deepEqual(events, [], `a ${status} records nothing`);
      }
    });

    it('reading the trail and the lookups record nothing', async () => {
      await newPatient();
      const before = await eventsAfter();
      for (const path of ['/audit-events', '/audit-events?limit=1', '/doctors', '/services']) {
        assert.equal((await call('GET', path)).status, 200, path);
      }
      assert.deepEqual(await eventsAfter(), before);
    });
  });

  describe('the chain', () => {
    it('numbers every event 1, 2, 3… and chains each to the one before with the hash recomputed here', async () => {
      const patient = await newPatient();
      await call('PATCH', `/patients/${patient.id}`, { body: { title: 'Mag. ünïcødé "quoted"' } });
      await call('GET', `/patients?q=${encodeURIComponent('Ada   Auditee')}`);
      const events = await eventsAfter();
      assert.ok(events.length > 15, `${events.length} events`);
      assertChain(events);
      // The same rows the database holds.
      const raw = sqliteDriver().open(join(server.dataDir, 'clinic.db'));
      try {
        const rows = raw.prepare('SELECT seq, hash FROM audit_events ORDER BY seq').all() as { seq: number; hash: string }[];
        assert.deepEqual(
          rows,
          events.map((e) => ({ seq: e.seq, hash: e.hash })),
        );
      } finally {
        raw.close();
      }
    });

    it('is refused UPDATE and DELETE by the database itself', async () => {
      await newPatient();
      await newPatient();
      const raw = sqliteDriver().open(join(server.dataDir, 'clinic.db'));
      try {
        const before = raw.prepare('SELECT * FROM audit_events ORDER BY seq').all();
        assert.ok(before.length >= 2, `${before.length} events to try`);
        assert.throws(() => raw.prepare("UPDATE audit_events SET actor_name = 'someone else' WHERE seq = 1").run());
        assert.throws(() => raw.prepare('UPDATE audit_events SET detail = NULL').run());
        assert.throws(() => raw.prepare('DELETE FROM audit_events WHERE seq = 2').run());
        assert.throws(() => raw.prepare('DELETE FROM audit_events').run());
        assert.deepEqual(raw.prepare('SELECT * FROM audit_events ORDER BY seq').all(), before);
      } finally {
        raw.close();
      }
    });
  });

  describe('GET /audit-events', () => {
    let subject: { id: string; patient_number: string };
    let startedAt: string;

    before(async () => {
      startedAt = new Date(Date.now() - 1000).toISOString();
      subject = await newPatient('Filtered');
      await call('GET', `/patients/${subject.id}`);
      await call('PATCH', `/patients/${subject.id}`, { body: { title: 'Prof.' } });
      await call('GET', `/patients/${subject.id}`);
    });

    const get = (query: string, options: RequestOptions = {}) => server.request<AuditEvent[]>('GET', `/audit-events${query}`, options);

    it('needs the scope audit:read: 403 FORBIDDEN without it, even with every other scope', async () => {
      const withoutAudit = server.createKey([
        'patients:read',
        'patients:write',
        'appointments:read',
        'invoices:read',
        'documents:read',
        'lookups:read',
      ]);
      const refused = await get('', { key: withoutAudit });
      assert.equal(refused.status, 403);
      assert.equal((refused.body as unknown as { detail: { code: string } }).detail.code, 'FORBIDDEN');
      assert.equal((await get('', { key: server.createKey(['audit:read']) })).status, 200);
      assert.equal((await get('', { key: null })).status, 401);
    });

    it("filters by patient_id: that patient's events only, in seq order", async () => {
      const { body, status } = await get(`?patient_id=${subject.id}`);
      assert.equal(status, 200);
      assert.deepEqual(
        body.map((e) => e.action),
        ['patient.create', 'patient.read', 'patient.update', 'patient.read'],
      );
      assert.ok(
        body.every((e) => e.patient_id === subject.id && e.patient_number === subject.patient_number),
        'only that patient',
      );
      assert.deepEqual(
        body.map((e) => e.seq),
        [...body.map((e) => e.seq)].sort((a, b) => a - b),
      );
      assert.deepEqual((await get(`?patient_id=${randomUUID()}`)).body, []);
      assert.equal((await get('?patient_id=P-1')).status, 422);
    });

    it('filters by action, a comma list; an unknown action is 422', async () => {
      const reads = (await get(`?patient_id=${subject.id}&action=patient.read`)).body;
      assert.deepEqual(
        reads.map((e) => e.action),
        ['patient.read', 'patient.read'],
      );
      const two = (await get(`?patient_id=${subject.id}&action=patient.update,patient.create`)).body;
      assert.deepEqual(
        two.map((e) => e.action),
        ['patient.create', 'patient.update'],
      );
      const all = (await get('?action=patient.create&limit=1000')).body;
      assert.ok(all.length > 1 && all.every((e) => e.action === 'patient.create'), 'only patient.create');
      for (const action of ['patient.delete', 'patient.read,nonsense', 'PATIENT.READ']) {
        const refused = await get(`?action=${encodeURIComponent(action)}`);
        assert.equal(refused.status, 422, action);
      }
    });

    it('filters by from and to, dates or date-times; to before from is 422', async () => {
      const mine = `?patient_id=${subject.id}`;
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const later = new Date(Date.now() + 3_600_000).toISOString();
      assert.equal((await get(`${mine}&from=${yesterday}&to=${tomorrow}`)).body.length, 4, 'dates');
      assert.equal(
        (await get(`${mine}&from=${encodeURIComponent(startedAt)}&to=${encodeURIComponent(later)}`)).body.length,
        4,
        'date-times',
      );
      assert.equal((await get(`${mine}&from=${encodeURIComponent(startedAt)}`)).body.length, 4, 'from alone');
      assert.equal((await get(`${mine}&from=${encodeURIComponent(later)}`)).body.length, 0, 'all before from');
      assert.equal((await get(`${mine}&to=${encodeURIComponent(startedAt)}`)).body.length, 0, 'all at or after to');
      assert.equal((await get(`${mine}&from=2000-01-01&to=2099-12-31`)).body.length, 4, 'no 92-day limit');
      assert.equal((await get(`?from=${tomorrow}&to=${yesterday}`)).status, 422, 'to before from');
      assert.equal((await get(`?from=${encodeURIComponent(later)}&to=${encodeURIComponent(startedAt)}`)).status, 422, 'to before from');
      assert.equal((await get('?from=soon')).status, 422);
    });

    it('pages by after and limit (1..1000, default 100) with a Link to the next page and none on the last', async () => {
      for (let n = 0; n < 80; n++) assert.equal((await call('GET', `/patients/${subject.id}`)).status, 200);
      const all = await eventsAfter();
      assert.ok(all.length > 100, `${all.length} events, more than a default page`);
      const first = await get('');
      assert.equal(first.body.length, 100, 'default limit 100');
      assert.deepEqual(
        first.body.map((e) => e.seq),
        all.slice(0, 100).map((e) => e.seq),
      );
      assert.match(first.headers.get('link') ?? '', /^<\/api\/public\/v1\/audit-events\?[^>]*after=100[^>]*>; rel="next"$/);

      const three = await get('?limit=3&after=5');
      assert.deepEqual(
        three.body.map((e) => e.seq),
        [6, 7, 8],
      );
      const next = /^<([^>]*)>; rel="next"$/.exec(three.headers.get('link') ?? '');
      assert.ok(next, 'a Link when more follow');
      const params = new URL(next[1]!, 'http://x').searchParams;
      assert.equal(params.get('after'), '8');
      assert.equal(params.get('limit'), '3');

      const lastSeqNow = all.at(-1)!.seq;
      const last = await get(`?limit=3&after=${lastSeqNow - 3}`);
      assert.deepEqual(
        last.body.map((e) => e.seq),
        [lastSeqNow - 2, lastSeqNow - 1, lastSeqNow],
      );
      assert.equal(last.headers.get('link'), null, 'no Link on the last page');
      assert.deepEqual((await get(`?after=${lastSeqNow}`)).body, []);
      assert.equal((await get('?limit=1000')).body.length, Math.min(1000, all.length));
      for (const bad of ['?limit=0', '?limit=1001', '?limit=x', '?after=-1', '?after=x']) assert.equal((await get(bad)).status, 422, bad);
    });

    it('is described in the OpenAPI document with the AuditEvent model', async () => {
      const { body: openapi } = await server.request('GET', '/openapi.json', { key: null });
      const operation = openapi.paths['/audit-events']?.get;
      assert.ok(operation, 'GET /audit-events');
      assert.deepEqual(
        (operation.parameters as { name: string; in: string }[])
          .filter((p) => p.in === 'query')
          .map((p) => p.name)
          .sort(),
        ['action', 'after', 'from', 'limit', 'patient_id', 'to'],
      );
      const model = openapi.components.schemas.AuditEvent;
      assert.ok(model, 'the AuditEvent model');
      assert.deepEqual(Object.keys(model.properties).sort(), [
        'action',
        'actor_id',
        'actor_name',
        'actor_type',
        'at',
        'detail',
        'hash',
        'patient_id',
        'patient_number',
        'prev_hash',
        'request_id',
        'seq',
        'source',
        'subject_id',
        'subject_type',
      ]);
      assert.match(JSON.stringify(operation), /audit:read/);
    });
  });
});
