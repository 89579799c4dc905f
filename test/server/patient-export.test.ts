import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import { documentFilePath } from '../../src/db/document-files.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { addDoctor, addService } from '../../src/domain/catalog.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { setClinicCountry, setClinicName, setClinicTimeZone, setModuleEnabled } from '../../src/domain/settings.js';
import { httpWebhookSender } from '../../src/adapters/http-webhook-sender.js';
import { findWebhookEndpoint } from '../../src/db/webhook-endpoints.js';
import { connectionRunner, performUseCase } from '../../src/domain/use-case.js';
import { deliverWebhook, nextEventFor } from '../../src/domain/webhooks/deliver-webhooks.js';
import { ADD_WEBHOOK_ENDPOINT, REMOVE_WEBHOOK_ENDPOINT } from '../../src/domain/webhooks/webhook-endpoints.js';
import { PATIENT_COPY_RECORD_FILES } from '../helpers/api-shapes.js';
import { buildInvoice, createTestPatient } from '../helpers/builders.js';
import { fhirR4Errors } from '../helpers/fhir-r4.js';
import { useTestServer } from '../helpers/fixtures.js';
import { multipartBody } from '../helpers/multipart.js';
import { testingExecutable } from '../helpers/run-cli.js';
import { zipEntries, type ZipEntry } from '../helpers/zip-entries.js';

// GET /patients/{patient_id}/export (clinic-api-1.3.md, "The patient's copy"), black box over HTTP:
// the archive as a patient's tools read it, and its Bundle through a FHIR R4 validator.

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe("GET /patients/{patient_id}/export: the patient's copy", () => {
  const server = useTestServer();
  let patient: Patient;
  let other: Patient;
  const documents: { id: string; bytes: Buffer; filename: string; type: string }[] = [];
  const invoices: Record<string, string> = {};

  /** The raw answer of an export: status, headers and bytes. */
  async function exportOf(patientId: string, key: string | null = server.key) {
    const response = await fetch(`${server.baseUrl}/patients/${patientId}/export`, {
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
    });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  const entryOf = (entries: ZipEntry[], name: string) => {
    const found = entries.find((entry) => entry.name === name);
    assert.ok(found, `the archive holds ${name}`);
    return found;
  };
  const jsonOf = (entries: ZipEntry[], name: string) => JSON.parse(entryOf(entries, name).bytes.toString('utf8'));

  async function upload(patientId: string, filename: string, type: string, bytes: Buffer) {
    const { body, contentType } = multipartBody([
      { name: 'type', data: type },
      { name: 'title', data: `Title of ${filename}` },
      { name: 'file', filename, contentType: 'application/pdf', data: bytes },
    ]);
    const response = await server.request('POST', `/patients/${patientId}/documents`, {
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string };
  }

  before(async () => {
    setClinicTimeZone(server.db, 'Europe/Vienna');
    setClinicCountry(server.db, 'AT');
    setClinicName(server.db, 'Praxis Dr. Gruber');
    setModuleEnabled(server.db, 'billing', true);
    setModuleEnabled(server.db, 'payments', true);
    patient = createTestPatient(server.db, {
      first_name: 'Anna',
      last_name: 'Österreicher',
      gender: 'W',
      title: 'Mag.',
      date_of_birth: '1980-04-02',
      address_street: 'Hauptstraße 1',
      address_zip: '1010',
      address_city: 'Wien',
      address_country: 'AT',
      mobile: '+43 660 1234567',
    });
    other = createTestPatient(server.db, { first_name: 'Otto', last_name: 'Anders' });
    const doctor = addDoctor(server.db, { name: 'Dr. Gruber', color: '#123456' });
    const service = addService(server.db, { name: 'Kontrolle', duration_min: 30, price: '50', color: '#00ff00' });
    const statuses = ['booked', 'arrived', 'completed', 'no_show', 'cancelled', 'Warteliste'];
    for (const [i, status] of statuses.entries()) {
      const date = `2026-0${i + 1}-10`;
      const booked = bookAppointment(
        server.db,
        {
          patient_id: patient.id,
          start_at: `${date}T09:00Z`,
          end_at: `${date}T09:30Z`,
          resource_id: doctor.id,
          service_id: service.id,
          ...(status === 'Warteliste' ? { status } : {}),
        },
        'api',
      );
      // A status reached the way the desk reaches it: completed after arrived.
      const steps = status === 'booked' || status === 'Warteliste' ? [] : status === 'completed' ? ['arrived', 'completed'] : [status];
      for (const step of steps) {
        const response = await server.request('PATCH', `/appointments/${booked.id}`, { body: { status: step } });
        assert.equal(response.status, 200, response.text);
      }
    }
    bookAppointment(server.db, { patient_id: other.id, start_at: '2026-03-11T09:00Z', end_at: '2026-03-11T09:30Z' }, 'api');

    for (const [name, total] of [
      ['issued', '80.00'],
      ['partial', '100.00'],
      ['paid', '40.00'],
      ['void', '25.00'],
      ['refunded', '60.00'],
    ] as const) {
      invoices[name] = createInvoice(server.db, buildInvoice(patient.id, { total, issued_at: '2026-02-10T10:00:00Z' })).id;
    }
    const pay = async (invoice: string, amount: string) => {
      const response = await server.request('POST', `/invoices/${invoice}/payments`, { body: { amount, method: 'card' } });
      assert.equal(response.status, 200, response.text);
      return response.body as { payment_id: string };
    };
    await pay(invoices.partial!, '30.00');
    await pay(invoices.paid!, '40.00');
    const refunded = await pay(invoices.refunded!, '60.00');
    const refund = await server.request('POST', `/payments/${refunded.payment_id}/refunds`, {
      body: { amount: '10.00', reason: 'Doppelt' },
    });
    assert.equal(refund.status, 201, refund.text);
    const voided = await server.request('POST', `/invoices/${invoices.void}/void`, { body: { reason: 'Irrtum' } });
    assert.equal(voided.status, 200, voided.text);

    for (const [filename, type] of [
      ['Befund März.pdf', 'xrays'],
      ['Rechnung.pdf', 'invoices'],
    ] as const) {
      const bytes = Buffer.from(`%PDF-1.4 ${filename} ${'x'.repeat(5000)}`);
      documents.push({ id: (await upload(patient.id, filename, type, bytes)).id, bytes, filename, type });
    }
    await upload(other.id, 'other.pdf', 'scans', Buffer.from('not this patient'));
    assert.equal((await server.request('GET', `/patients/${patient.id}`)).status, 200);
  });

  it('streams a ZIP named by the patient number and the day, without Content-Length', async () => {
    const answer = await exportOf(patient.id);
    assert.equal(answer.status, 200, answer.bytes.toString());
    assert.equal(answer.headers.get('content-type'), 'application/zip');
    assert.match(answer.headers.get('content-disposition') ?? '', /^attachment; filename="P-\d{6}-\d{4}-\d{2}-\d{2}\.zip"$/);
    assert.ok(answer.headers.get('content-disposition')!.includes(patient.patient_number));
    assert.equal(answer.headers.get('content-length'), null);
    const names = (await zipEntries(answer.bytes)).map((entry) => entry.name);
    assert.deepEqual(names, [
      ...PATIENT_COPY_RECORD_FILES,
      ...documents.map((document) => `documents/${document.id}/${document.filename}`),
      'manifest.json',
    ]);
  });

  it('holds the originals uncompressed and a manifest of every other file with its SHA-256', async () => {
    const entries = await zipEntries((await exportOf(patient.id)).bytes);
    for (const document of documents) {
      const entry = entryOf(entries, `documents/${document.id}/${document.filename}`);
      assert.equal(entry.stored, true, 'an original is stored, not compressed');
      assert.deepEqual(entry.bytes, document.bytes);
    }
    const manifest = jsonOf(entries, 'manifest.json');
    assert.equal(manifest.format, 'clinic-patient-export');
    assert.equal(manifest.format_version, 1);
    assert.equal(manifest.patient_id, patient.id);
    assert.equal(manifest.patient_number, patient.patient_number);
    assert.match(manifest.clinic_version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(
      manifest.files,
      entries
        .filter((entry) => entry.name !== 'manifest.json')
        .map((entry) => ({ path: entry.name, size: entry.bytes.length, sha256: sha256(entry.bytes) })),
    );
  });

  it("gives every record in the API's shapes, and only this patient's", async () => {
    const entries = await zipEntries((await exportOf(patient.id)).bytes);
    const shown = (await server.request('GET', `/patients/${patient.id}`)).body;
    const record = jsonOf(entries, 'records/patient.json');
    assert.deepEqual(Object.keys(record), Object.keys(shown));
    assert.equal(record.last_name, 'Österreicher');
    const appointments = jsonOf(entries, 'records/appointments.json');
    assert.equal(appointments.length, 6);
    assert.ok(appointments.every((appointment: { patient_id: string }) => appointment.patient_id === patient.id));
    const invoiceRecords = jsonOf(entries, 'records/invoices.json');
    const detail = (await server.request('GET', `/invoices/${invoices.paid}`)).body;
    assert.deepEqual(
      invoiceRecords.find((invoice: { id: string }) => invoice.id === invoices.paid),
      detail,
    );
    assert.equal(invoiceRecords.length, 5);
    const listed = (await server.request('GET', `/patients/${patient.id}/documents`)).body;
    assert.deepEqual(
      jsonOf(entries, 'records/documents.json')
        .map((d: { id: string }) => d.id)
        .sort(),
      listed.map((d: { id: string }) => d.id).sort(),
    );
    assert.deepEqual(jsonOf(entries, 'records/reminders.json'), []);
  });

  it('gives the access log as GET /audit-events does, and the API key among the recipients', async () => {
    const entries = await zipEntries((await exportOf(patient.id)).bytes);
    const log = jsonOf(entries, 'access-log.json');
    const trail = (await server.request('GET', `/audit-events?patient_id=${patient.id}&limit=500`)).body;
    assert.deepEqual(
      log,
      trail.filter((event: { seq: number }) => event.seq <= log.at(-1).seq),
    );
    assert.ok(log.some((event: { action: string }) => event.action === 'patient.read'));
    const recipients = jsonOf(entries, 'recipients.json');
    assert.deepEqual(Object.keys(recipients), ['api_keys', 'webhooks', 'messages']);
    assert.equal(recipients.api_keys.length, 1);
    assert.deepEqual(Object.keys(recipients.api_keys[0]), ['key_id', 'name', 'first_at', 'last_at', 'events']);
    assert.equal(recipients.api_keys[0].events, log.filter((event: { actor_type: string }) => event.actor_type === 'api_key').length);
  });

  it('records one patient.export per copy, before the copy is sent', async () => {
    const count = () =>
      (
        server.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'patient.export' AND patient_id = ?").get(patient.id) as {
          n: number;
        }
      ).n;
    const before = count();
    const answer = await exportOf(patient.id);
    assert.equal(answer.status, 200);
    assert.equal(count(), before + 1);
    const entries = await zipEntries((await exportOf(patient.id)).bytes);
    assert.ok(jsonOf(entries, 'access-log.json').some((event: { action: string }) => event.action === 'patient.export'));
  });

  it('writes a summary page in German for a clinic in Austria, self-contained', async () => {
    const entries = await zipEntries((await exportOf(patient.id)).bytes);
    const html = entryOf(entries, 'summary.html').bytes.toString('utf8');
    assert.match(html, /<html lang="de">/);
    assert.match(html, /Termine \(6\)/);
    assert.match(html, /Österreicher/);
    assert.match(html, /AT-RECORDS|noch nicht festgelegt/);
    assert.doesNotMatch(html, /<script|<link|src=/);
  });

  it('names a webhook endpoint, removed since, with the events about the patient it acknowledged after it was added', async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push(body);
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const NOBODY = { source: 'cli', actor: null } as const;
      const endpoint = performUseCase(ADD_WEBHOOK_ENDPOINT, server.db, { body: { url, name: 'Labor Huber' } }, NOBODY);
      const patched = await server.request('PATCH', `/patients/${patient.id}`, { body: { notes: 'Allergie: Penicillin' } });
      assert.equal(patched.status, 200, patched.text);
      // The worker's steps (a test server in this process runs no worker): every event of its
      // types, delivered in turn. An executable's serve runs its own worker, which may deliver an
      // event first: this step then finds it acknowledged (superseded).
      for (;;) {
        const row = findWebhookEndpoint(server.db, endpoint.id)!;
        const event = nextEventFor(server.db, row);
        if (event === undefined) break;
        const attempt = await deliverWebhook(
          server.db,
          connectionRunner(server.db),
          httpWebhookSender(),
          row,
          event,
          new AbortController().signal,
        );
        assert.ok(
          attempt.outcome === 'delivered' || (testingExecutable && attempt.outcome === 'superseded'),
          `delivered, not ${attempt.outcome}`,
        );
      }
      assert.ok(
        received.some((body) => body.includes(patient.id)),
        'the endpoint got the event about the patient',
      );
      performUseCase(REMOVE_WEBHOOK_ENDPOINT, server.db, { path: { webhook: endpoint.id } }, NOBODY);
      const recipients = jsonOf(await zipEntries((await exportOf(patient.id)).bytes), 'recipients.json');
      const [named] = recipients.webhooks;
      assert.deepEqual(
        recipients.webhooks.map((w: Record<string, unknown>) => [w.endpoint_id, w.name, w.host, w.events]),
        [[endpoint.id, 'Labor Huber', '127.0.0.1', 1]],
        'the patient.updated after it was added, not the events before',
      );
      assert.equal(named.first_at, named.last_at);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  describe('bundle.json', () => {
    let bundle: any;
    before(async () => {
      bundle = jsonOf(await zipEntries((await exportOf(patient.id)).bytes), 'bundle.json');
    });
    const resources = (type: string) => bundle.entry.filter((e: any) => e.resource.resourceType === type).map((e: any) => e.resource);

    it('validates against FHIR R4 with 0 errors', async () => {
      assert.equal(bundle.resourceType, 'Bundle');
      assert.equal(bundle.type, 'collection');
      assert.deepEqual(await fhirR4Errors(bundle), []);
    });

    it('is a real validator: a Bundle with a date in another format fails it', async () => {
      const broken = structuredClone(bundle);
      broken.entry[0].resource.birthDate = '02.04.1980';
      assert.notDeepEqual(await fhirR4Errors(broken), []);
    });

    it('names every entry urn:uuid:<id> and refers to the patient by it', () => {
      assert.equal(bundle.entry[0].fullUrl, `urn:uuid:${patient.id}`);
      for (const entry of bundle.entry) assert.match(entry.fullUrl, /^urn:uuid:[0-9a-f-]{36}$/);
      for (const appointment of resources('Appointment'))
        assert.equal(appointment.participant[0].actor.reference, `urn:uuid:${patient.id}`);
      for (const invoice of resources('Invoice')) assert.equal(invoice.subject.reference, `urn:uuid:${patient.id}`);
    });

    it('maps the gender, the appointment statuses and the invoice statuses as the interface lists them', () => {
      assert.equal(resources('Patient')[0].gender, 'female');
      assert.deepEqual(
        resources('Appointment').map((a: any) => a.status),
        ['booked', 'arrived', 'fulfilled', 'noshow', 'cancelled', 'booked'],
      );
      for (const appointment of resources('Appointment')) assert.equal(appointment.participant[0].status, 'needs-action');
      assert.equal(resources('Practitioner').length, 1);
      assert.deepEqual(
        resources('Invoice')
          .map((i: any) => [i.totalGross.value, i.status])
          .sort(),
        [
          [100, 'issued'],
          [25, 'cancelled'],
          [40, 'balanced'],
          [60, 'issued'],
          [80, 'issued'],
        ].sort(),
      );
    });

    it('gives each payment and refund as a PaymentReconciliation of its invoice, a refund negative', () => {
      const reconciliations = resources('PaymentReconciliation').map((r: any) => [
        r.paymentAmount.value,
        r.paymentAmount.currency,
        r.detail[0].type.text,
        r.detail[0].request.reference,
      ]);
      assert.deepEqual(
        reconciliations.sort(),
        [
          [30, 'EUR', 'payment', `urn:uuid:${invoices.partial}`],
          [40, 'EUR', 'payment', `urn:uuid:${invoices.paid}`],
          [60, 'EUR', 'payment', `urn:uuid:${invoices.refunded}`],
          [-10, 'EUR', 'refund', `urn:uuid:${invoices.refunded}`],
        ].sort(),
      );
    });

    it("points each DocumentReference at its original's path in the archive, percent-encoded", () => {
      const urls = resources('DocumentReference').map((d: any) => d.content[0].attachment.url);
      assert.deepEqual(
        urls,
        documents.map((d) => `documents/${d.id}/${encodeURIComponent(d.filename)}`),
      );
    });
  });

  describe('refusals', () => {
    it('answers 404 PATIENT_NOT_FOUND for an unknown patient, and 422 for a malformed id', async () => {
      const unknown = await server.request('GET', '/patients/00000000-0000-4000-8000-000000000000/export');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.detail.code, 'PATIENT_NOT_FOUND');
      assert.equal((await server.request('GET', '/patients/nope/export')).status, 422);
    });

    it('needs the patients:export scope: patients:read alone is 403', async () => {
      const reader = server.createKey(['patients:read', 'documents:read']);
      const refused = await server.request('GET', `/patients/${patient.id}/export`, { key: reader });
      assert.equal(refused.status, 403);
      assert.equal((await exportOf(patient.id, server.createKey(['patients:export']))).status, 200);
    });

    it('answers 500 STORAGE_FAILED before the first byte when a document file is missing, and records nothing', async () => {
      const lost = await upload(other.id, 'lost.pdf', 'scans', Buffer.from('soon gone'));
      rmSync(documentFilePath(server.dataDir, other.id, lost.id));
      const exports = () =>
        (
          server.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'patient.export' AND patient_id = ?").get(other.id) as {
            n: number;
          }
        ).n;
      const answer = await server.request('GET', `/patients/${other.id}/export`);
      assert.equal(answer.status, 500);
      assert.equal(answer.body.detail.code, 'STORAGE_FAILED');
      assert.equal(exports(), 0);
    });

    it('cuts the archive before its end when a document no longer matches its SHA-256', async () => {
      const third = createTestPatient(server.db, { first_name: 'Dora', last_name: 'Defekt' });
      const damaged = await upload(third.id, 'damaged.pdf', 'scans', Buffer.from('the stored bytes'));
      writeFileSync(documentFilePath(server.dataDir, third.id, damaged.id), 'THE STORED BYTES');
      const answer = await fetch(`${server.baseUrl}/patients/${third.id}/export`, { headers: { authorization: `Bearer ${server.key}` } });
      assert.equal(answer.status, 200);
      const bytes = await answer.arrayBuffer().then(
        (body) => Buffer.from(body),
        () => undefined,
      );
      if (bytes !== undefined) await assert.rejects(zipEntries(bytes), 'an archive cut short is no ZIP');
    });
  });
});
