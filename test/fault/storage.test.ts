import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient, buildPayment } from '../helpers/builders.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { damageDatabase, dataDirOn, mountTmpfs, type Tmpfs } from '../helpers/faults.js';
import { multipartBody } from '../helpers/multipart.js';
import { programPath, programPlatform, runClinic, startServeProcess, STOP_SIGNAL, unwrapped } from '../helpers/run-cli.js';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/test-server.js';

/** `text` as a regular expression matching it literally. */
const pattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const STORAGE_FULL = {
  detail: {
    code: 'STORAGE_FULL',
    message: "The clinic computer's disk is full; nothing was stored. Free space on the data directory's disk, then retry.",
  },
};

function assertFull(response: ApiResponse, what: string): void {
  assert.equal(response.status, 507, `${what}: ${response.status} ${response.text}`);
  assert.deepEqual(response.body, STORAGE_FULL, what);
}

describe('a full disk (the data directory on a tmpfs filled to its last block)', { timeout: 120_000 }, () => {
  let tmpfs: Tmpfs | undefined;
  let server: TestServer;
  let invoiceId: string;
  let patientId: string;
  const acknowledged: { id: string; patient_number: string }[] = [];

  before(async (t) => {
    tmpfs = mountTmpfs(t as never, 16 * 1024);
    if (tmpfs === undefined) return;
    server = await startTestServer({}, dataDirOn(tmpfs));
    const first = await server.request('POST', '/patients', { body: buildPatient() });
    assert.equal(first.status, 201);
    acknowledged.push(first.body);
    patientId = first.body.id;
    invoiceId = createInvoice(server.db, { patient_id: patientId, total: '50.00' }).id;
  });
  after(async () => {
    if (tmpfs === undefined) return;
    await server.close();
    tmpfs.unmount();
  });

  const upload = () => {
    const form = multipartBody([
      { name: 'type', data: 'xrays' },
      { name: 'file', filename: 'pano.png', contentType: 'image/png', data: Buffer.alloc(200 * 1024, 9) },
    ]);
    return server.request('POST', `/patients/${patientId}/documents`, {
      rawBody: form.body,
      headers: { 'content-type': form.contentType },
    });
  };

  /** `clinic create-patient` beside the server, printing the Patient as JSON. */
  const createPatientByCli = () =>
    runClinic([
      'create-patient',
      '--first-name',
      'Cli',
      '--last-name',
      'Full',
      '--email',
      'c@f.example',
      '--mobile',
      '1',
      '--json',
      '--data',
      server.dataDir,
    ]);
  const book = () =>
    server.request('POST', '/appointments', {
      body: { patient_id: patientId, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30Z' },
    });

  it('refuses every write with 507 STORAGE_FULL and every read of patient data with 507 STORAGE_FAILED, stores nothing, and keeps answering lookups', async (t) => {
    if (tmpfs === undefined) return t.skip('no tmpfs');
    const count = (table: string) => (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const counted = () => ['patients', 'payments', 'documents', 'appointments', 'invoices'].map(count);
    const before = counted();
    tmpfs.fill();
    // Before the fix this was a 201 with an id and a number for a row that was never stored.
    assertFull(await server.request('POST', '/patients', { body: buildPatient({ first_name: 'Lost' }) }), 'patient');
    assertFull(
      await server.request('POST', `/invoices/${invoiceId}/payments`, { body: buildPayment(), headers: { 'idempotency-key': 'full-1' } }),
      'payment',
    );
    assertFull(await upload(), 'upload');
    assertFull(await book(), 'appointment');
    const invoice = await runClinic(['invoice', 'create', '--patient-id', patientId, '--total', '10', '--data', server.dataDir]);
    assert.equal(invoice.code, 1);
    assert.match(invoice.stderr, /^error: STORAGE_FULL: /);
    assert.equal((await server.request('GET', '/doctors')).status, 200);
    // A read of patient data must store its audit event first: it is refused and shows nothing.
    const read = await server.request('GET', `/patients/${patientId}`);
    assert.equal(read.status, 507, read.text);
    assert.equal((read.body as { detail: { code: string } }).detail.code, 'STORAGE_FAILED');
    assert.doesNotMatch(read.text, new RegExp(patientId));
    assert.deepEqual(counted(), before);
    assert.deepEqual(readdirSync(join(server.dataDir, 'tmp')), []);

    const cli = await createPatientByCli();
    assert.equal(cli.code, 1);
    assert.equal((JSON.parse(cli.stderr) as { detail: { code: string } }).detail.code, 'STORAGE_FULL');
    assert.deepEqual(counted(), before);
  });

  it('refuses writes sent at once, which share one commit, each with 507 and none stored', async (t) => {
    if (tmpfs === undefined) return t.skip('no tmpfs');
    const count = (table: string) => (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const before = ['patients', 'payments'].map(count);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => server.request('POST', '/patients', { body: buildPatient({ first_name: `Together ${i}` }) })),
      ...Array.from({ length: 4 }, (_, i) =>
        server.request('POST', `/invoices/${invoiceId}/payments`, {
          body: buildPayment(),
          headers: { 'idempotency-key': `together-${i}` },
        }),
      ),
    ]);
    for (const answer of answers) assertFull(answer, 'a write sent with others');
    assert.deepEqual(['patients', 'payments'].map(count), before);
  });

  it('takes the same requests once space is back, handing out no number twice', async (t) => {
    if (tmpfs === undefined) return t.skip('no tmpfs');
    tmpfs.free();
    const patient = await server.request('POST', '/patients', { body: buildPatient({ first_name: 'Lost' }) });
    assert.equal(patient.status, 201);
    acknowledged.push(patient.body);
    const payment = await server.request('POST', `/invoices/${invoiceId}/payments`, {
      body: buildPayment(),
      headers: { 'idempotency-key': 'full-1' },
    });
    assert.equal(payment.status, 200);
    assert.equal(payment.headers.get('idempotent-replayed'), null);
    assert.equal((await upload()).status, 201);
    const appointments = [(await book()).body.appointment_number, (await book()).body.appointment_number];
    assert.deepEqual(appointments, ['A-000001', 'A-000002']);
    const invoice = await runClinic(['invoice', 'create', '--patient-id', patientId, '--total', '10', '--json', '--data', server.dataDir]);
    assert.equal(invoice.code, 0, invoice.stderr);
    const numbers = (server.db.prepare('SELECT invoice_number FROM invoices ORDER BY seq').all() as { invoice_number: string }[]).map(
      (r) => r.invoice_number,
    );
    assert.equal(new Set(numbers).size, numbers.length);
    assert.equal(JSON.parse(invoice.stdout).invoice_number, numbers.at(-1));
    const cli = await createPatientByCli();
    assert.equal(cli.code, 0, cli.stderr);
    acknowledged.push(JSON.parse(cli.stdout));
    for (const { id, patient_number } of acknowledged) {
      const row = server.db.prepare('SELECT patient_number FROM patients WHERE id = ?').get(id) as { patient_number: string } | undefined;
      assert.equal(row?.patient_number, patient_number, `acknowledged patient ${patient_number} is stored`);
    }
    assert.equal(new Set(acknowledged.map((p) => p.patient_number)).size, acknowledged.length);
    const check = await runClinic(['check', '--data', server.dataDir]);
    assert.equal(check.code, 0, check.stdout);
  });
});

describe('clinic serve refuses a data directory it cannot use', { timeout: 60_000 }, () => {
  it('names the path and the reason for a read-only data directory', async (t) => {
    const tmpfs = mountTmpfs(t, 4 * 1024);
    if (tmpfs === undefined) return;
    try {
      const dataDir = dataDirOn(tmpfs);
      assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
      tmpfs.remount('ro');
      const served = await runClinic(['serve', '--port', '0', '--data', dataDir]);
      assert.equal(served.code, 1);
      assert.match(
        unwrapped(served.stderr),
        // Windows has no EROFS: a write-protected place is refused as access denied (EPERM).
        new RegExp(
          `^error: DATA_DIRECTORY_UNUSABLE: clinic cannot use ${pattern(programPath(dataDir))}: it is not writable \\(.*${programPlatform === 'win32' ? 'EPERM' : 'EROFS'}\\)`,
          'm',
        ),
      );
      assert.doesNotMatch(served.stdout, /listening|API key/);
      tmpfs.remount('rw');
    } finally {
      tmpfs.unmount();
    }
  });

  it('refuses a damaged database, and starts once it is restored', async () => {
    const served = await startServeAndStop();
    damageDatabase(served);
    const refused = await runClinic(['serve', '--port', '0', '--data', served]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(`^error: DATABASE_DAMAGED: The database ${pattern(programPath(join(served, 'clinic.db')))} is damaged \\(`, 'm'),
    );
    assert.doesNotMatch(refused.stdout, /"event":"listening"/);
  });
});

const newDir = useDataDirs();

/** A data directory with a few hundred patients, written by a server that then stopped cleanly. */
async function startServeAndStop(): Promise<string> {
  const { openDatabase } = await import('../../src/db/open-database.js');
  const dataDir = newDir();
  const db = openDatabase(dataDir);
  for (let i = 0; i < 200; i++) createPatient(db, buildPatient({ notes: 'n'.repeat(500) }));
  db.close();
  const serve = await startServeProcess(['--data', dataDir]);
  serve.child.kill(STOP_SIGNAL);
  assert.equal((await serve.exited).code, 0);
  assert.equal(existsSync(join(dataDir, 'clinic.db-wal')), false);
  return dataDir;
}
