import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { addDoctor } from '../../src/domain/catalog.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { trailOf, type AuditEvent } from '../helpers/audit-chain.js';
import { createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { addDocument } from '../helpers/module-tables.js';
import { programPath, runClinic } from '../helpers/run-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Each desk command that shows patient data runs a use case whose audit is declared once: it records
// exactly what its API twin records (the same actions, patients, subjects and details), only the
// actor and where from differ. Real CLI processes beside the real server, on one data directory.

/** What an event says was done to whose data: everything but who, when, from where and the chain. */
const whatAndWhose = ({ action, patient_id, patient_number, subject_type, subject_id, detail }: AuditEvent) => ({
  action,
  patient_id,
  patient_number,
  subject_type,
  subject_id,
  detail,
});

describe('a desk command that shows patient data and its API twin', () => {
  let server: TestServer;
  const tempDir = useDataDirs();
  /** The events appended while `act` ran. */
  async function recordedBy(act: () => Promise<unknown>): Promise<AuditEvent[]> {
    const mark = trailOf(server.dataDir).at(-1)?.seq ?? 0;
    await act();
    return trailOf(server.dataDir, mark);
  }
  async function desk(args: readonly string[]): Promise<AuditEvent[]> {
    return recordedBy(async () => {
      const result = await runClinic([...args, '--data', server.dataDir]);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    });
  }
  async function api(path: string): Promise<AuditEvent[]> {
    return recordedBy(async () => {
      const answer = await server.request('GET', path);
      assert.equal(answer.status, 200, `${path}: ${answer.text}`);
    });
  }

  const day = '2031-04-07';
  let twins: { desk: () => string[]; api: string }[];

  before(async () => {
    server = await startTestServer();
    setClinicTimeZone(server.db, 'UTC');
    const ada = createTestPatient(server.db, { first_name: 'Ada', last_name: 'Twinread' });
    const bob = createTestPatient(server.db, { first_name: 'Bob', last_name: 'Twinread' });
    const doctor = addDoctor(server.db, { name: 'Dr. Twin', color: '#123456' });
    const booked = [
      [ada, '09'],
      [bob, '10'],
      [ada, '11'],
    ].map(([patient, hour]) =>
      bookAppointment(
        server.db,
        {
          patient_id: (patient as { id: string }).id,
          resource_id: doctor.id,
          start_at: `${day}T${hour}:00Z`,
          end_at: `${day}T${hour}:30Z`,
        },
        'cli',
      ),
    );
    const invoice = createTestInvoice(server.db, { patient_id: ada.id });
    createTestInvoice(server.db, { patient_id: bob.id });
    const documentId = addDocument(server.db, server.dataDir, ada.id, Buffer.from('%PDF-1.7 twin'));
    const saved = tempDir();
    let saves = 0;
    twins = [
      { desk: () => ['patient', 'find', 'twinread'], api: '/patients?q=twinread' },
      { desk: () => ['patient', 'show', ada.patient_number], api: `/patients/${ada.id}` },
      { desk: () => ['appointment', 'list', '--date', day], api: `/appointments?from=${day}&to=${day}` },
      { desk: () => ['appointment', 'show', booked[1]!.appointment_number], api: `/appointments/${booked[1]!.id}` },
      { desk: () => ['document', 'list', ada.patient_number], api: `/patients/${ada.id}/documents` },
      {
        desk: () => ['document', 'save', documentId, programPath(join(saved, `copy-${++saves}.pdf`))],
        api: `/patients/${ada.id}/documents/${documentId}`,
      },
      { desk: () => ['invoice', 'list'], api: '/invoices' },
      { desk: () => ['invoice', 'list', '--patient-id', bob.patient_number], api: `/invoices?patient_id=${bob.id}` },
      { desk: () => ['invoice', 'show', invoice.invoice_number], api: `/invoices/${invoice.id}` },
      { desk: () => ['audit', 'list', '--patient', ada.patient_number], api: `/audit-events?patient_id=${ada.id}` },
    ];
  });
  after(() => server.close());

  it('records the same actions, patients, subjects and details; only who and where from differ', async () => {
    for (const twin of twins) {
      const args = twin.desk();
      const atDesk = await desk(args);
      const overHttp = await api(twin.api);
      const name = `${args.slice(0, 2).join(' ')} / GET ${twin.api}`;
      assert.deepEqual(atDesk.map(whatAndWhose), overHttp.map(whatAndWhose), name);
      assert.ok(
        atDesk.every((event) => event.actor_type === 'cli') && overHttp.every((event) => event.actor_type === 'api_key'),
        `${name}: the desk's user, the API's key`,
      );
      // Reading the audit trail is the one read that records nothing, at the desk as over HTTP.
      if (args[0] !== 'audit') assert.ok(atDesk.length > 0, `${name} records what it shows`);
    }
  });
});

describe('clinic notifications list', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('records one invoice.read per patient it shows, without a subject, as a list of invoices does (issue 39, L3)', async () => {
    const ada = createTestPatient(server.db, { first_name: 'Ada', last_name: 'Outbox' });
    const bob = createTestPatient(server.db, { first_name: 'Bob', last_name: 'Outbox' });
    // Each invoice paid in full queues its patient's notification: Ada two, Bob one.
    for (const patient of [ada, bob, ada]) {
      const invoice = createTestInvoice(server.db, { patient_id: patient.id, total: '20.00' });
      recordPayment(server.db, { path: { invoice_id: invoice.id }, headers: {}, body: { amount: '20.00', method: 'cash' } });
    }
    const mark = trailOf(server.dataDir).at(-1)?.seq ?? 0;
    const listed = await runClinic(['notifications', 'list', '--json', '--data', server.dataDir]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal((JSON.parse(listed.stdout) as unknown[]).length, 3);
    const events = trailOf(server.dataDir, mark);
    assert.deepEqual(events.map(whatAndWhose), [
      {
        action: 'invoice.read',
        patient_id: ada.id,
        patient_number: ada.patient_number,
        subject_type: 'invoice',
        subject_id: null,
        detail: null,
      },
      {
        action: 'invoice.read',
        patient_id: bob.id,
        patient_number: bob.patient_number,
        subject_type: 'invoice',
        subject_id: null,
        detail: null,
      },
    ]);
    assert.ok(events.every((event) => event.actor_type === 'cli'));

    // Rows it does not show record nothing: no notification was sent.
    const sent = await runClinic(['notifications', 'list', '--status', 'sent', '--data', server.dataDir]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, /No notifications\./);
    assert.equal(trailOf(server.dataDir, events.at(-1)!.seq).length, 0);
  });
});
