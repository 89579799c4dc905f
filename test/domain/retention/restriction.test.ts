import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { addDoctor } from '../../../src/domain/catalog.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { ERASE_PATIENT } from '../../../src/domain/retention/erase-patient.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicTimeZone, setModuleEnabled } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { multipartBody } from '../../helpers/multipart.js';

// An erased patient over HTTP (clinic-api-1.3.md, "Restriction"; "What a 1.2.0 client sees"): left
// out of lists, 403 PATIENT_RESTRICTED by reference to an API key, its feed events with data {}.

const DESK = { source: 'cli', actor: { type: 'cli', id: 'desk', name: 'desk', source: 'test', requestId: null } } as const;

describe('an erased patient over the API', () => {
  const server = useTestServer();
  let erased: Patient;
  let other: Patient;
  let appointmentId: string;
  let invoiceId: string;

  before(async () => {
    setClinicTimeZone(server.db, 'UTC');
    setModuleEnabled(server.db, 'billing', true);
    setModuleEnabled(server.db, 'payments', true);
    setClinicRetention(server.db, 'AT', undefined);
    const doctor = addDoctor(server.db, { name: 'Dr. Gruber', color: '#123456' });
    erased = createTestPatient(server.db, { first_name: 'Greta', last_name: 'Gelöscht' });
    other = createTestPatient(server.db, { first_name: 'Greta', last_name: 'Geblieben' });
    for (const patient of [erased, other]) {
      const booked = bookAppointment(
        server.db,
        { patient_id: patient.id, start_at: '2026-03-10T09:00Z', end_at: '2026-03-10T09:30Z', resource_id: doctor.id, status: 'completed' },
        'api',
      );
      const invoice = createInvoice(server.db, { patient_id: patient.id, total: '40.00', issued_at: '2026-03-10T10:00:00Z' });
      if (patient === erased) [appointmentId, invoiceId] = [booked.id, invoice.id];
    }
    assert.equal((await server.request('PATCH', `/patients/${erased.id}`, { body: { notes: 'vorher' } })).status, 200);
    performUseCase(ERASE_PATIENT, server.db, { path: { patient_id: erased.id }, body: { dry_run: false } }, DESK);
  });

  it('refuses every request naming the patient or its records with 403 PATIENT_RESTRICTED', async () => {
    for (const [method, path, body] of [
      ['GET', `/patients/${erased.id}`],
      ['PATCH', `/patients/${erased.id}`, { notes: 'x' }],
      ['GET', `/patients/${erased.id}/documents`],
      ['GET', `/patients/${erased.id}/export`],
      ['GET', `/appointments/${appointmentId}`],
      ['GET', `/invoices/${invoiceId}`],
      ['POST', `/invoices/${invoiceId}/payments`, { amount: '1.00', method: 'cash' }],
      ['GET', `/invoices?patient_id=${erased.id}`],
      ['GET', `/reminders?patient_id=${erased.id}`],
      ['POST', '/appointments', { patient_id: erased.id, start_at: '2027-01-04T09:00Z', end_at: '2027-01-04T09:30Z' }],
    ] as const) {
      const answer = await server.request(method, path, body === undefined ? {} : { body });
      assert.equal(answer.status, 403, `${method} ${path}: ${answer.text}`);
      assert.equal(answer.body.detail.code, 'PATIENT_RESTRICTED', `${method} ${path}`);
    }
  });

  it('refuses a document upload for the patient, keeping nothing of it', async () => {
    const { body, contentType } = multipartBody([
      { name: 'type', data: 'scans' },
      { name: 'file', filename: 'neu.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF new') },
    ]);
    const answer = await server.request('POST', `/patients/${erased.id}/documents`, {
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    assert.equal(answer.status, 403, answer.text);
    assert.equal(answer.body.detail.code, 'PATIENT_RESTRICTED');
    assert.deepEqual(server.db.prepare('SELECT count(*) AS n FROM documents WHERE patient_id = ?').get(erased.id), { n: 0 });
  });

  it('empties a stored answer about the patient, and keeps its key taken', async () => {
    const body = { first_name: 'Ida', last_name: 'Idempotent', email: 'ida@example.org', mobile: '+43 660 1' };
    const headers = { 'idempotency-key': 'erase-me-1' };
    const created = await server.request('POST', '/patients', { body, headers });
    assert.equal(created.status, 201, created.text);
    performUseCase(ERASE_PATIENT, server.db, { path: { patient_id: created.body.id }, body: { dry_run: false } }, DESK);
    const stored = server.db.prepare("SELECT body FROM idempotent_answers WHERE idempotency_key = 'erase-me-1'").get();
    assert.deepEqual(stored, { body: '{}' });
    const again = await server.request('POST', '/patients', { body, headers });
    assert.equal(again.status, 422, again.text);
    assert.equal(again.body.detail.code, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('leaves the patient out of searches and lists, the other patient in', async () => {
    const found = await server.request('GET', '/patients?q=Greta');
    assert.deepEqual(
      found.body.map((p: Patient) => p.id),
      [other.id],
    );
    const all = await server.request('GET', '/patients');
    assert.deepEqual(
      all.body.map((p: Patient) => p.id),
      [other.id],
    );
    const appointments = await server.request('GET', '/appointments?from=2026-03-10&to=2026-03-11');
    assert.deepEqual(
      appointments.body.map((a: { patient_id: string }) => a.patient_id),
      [other.id],
    );
    const invoices = await server.request('GET', '/invoices');
    assert.deepEqual(
      invoices.body.map((i: { patient_id: string }) => i.patient_id),
      [other.id],
    );
  });

  it("keeps the feed's events about the patient with data {}, the last patient.erased", async () => {
    const feed = await server.request('GET', '/events?limit=200');
    const about = feed.body.filter((event: { patient_id: string }) => event.patient_id === erased.id);
    assert.ok(about.length >= 4);
    assert.ok(about.every((event: { data: unknown }) => JSON.stringify(event.data) === '{}'));
    assert.equal(about.at(-1).type, 'patient.erased');
    const kept = feed.body.filter((event: { patient_id: string }) => event.patient_id === other.id);
    assert.ok(kept.every((event: { data: unknown }) => JSON.stringify(event.data) !== '{}'));
  });
});
