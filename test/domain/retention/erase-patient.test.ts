import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, before, describe, it, mock } from 'node:test';
import { documentFilePath } from '../../../src/db/document-files.js';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { LIST_APPOINTMENTS } from '../../../src/domain/appointments/list-appointments.js';
import { addDoctor } from '../../../src/domain/catalog.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { LIST_INVOICES } from '../../../src/domain/invoices/list-invoices.js';
import { FIND_PATIENTS } from '../../../src/domain/patients/find-patients.js';
import { READ_PATIENT } from '../../../src/domain/patients/read-patient.js';
import { UPDATE_PATIENT } from '../../../src/domain/patients/update-patient.js';
import { RECORD_PAYMENT } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { EXPORT_PATIENT } from '../../../src/domain/patient-export/export-patient.js';
import { ERASE_PATIENT, type ErasureResult } from '../../../src/domain/retention/erase-patient.js';
import { purgeErasedPatients } from '../../../src/domain/retention/purge-patients.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicTimeZone, setModuleEnabled } from '../../../src/domain/settings.js';
import { connectionRunner, performUseCase, type Caller } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';

// The erasure (clinic-api-1.3.md, "Erasure", "Restriction") walked through every category of the
// specification's table for AT and DE, on a clock this test sets: what goes at once, what is
// restricted, and what `serve`'s purge takes on which day; `clinic check` and `clinic audit
// verify` after each step.

const DESK: Caller = { source: 'cli', actor: { type: 'cli', id: 'desk', name: 'desk', source: 'test', requestId: null } };
const KEY: Caller = { source: 'api', actor: { type: 'api_key', id: 'k1', name: 'Praxis-Software', source: '127.0.0.1', requestId: null } };
const person = (roles: Caller['roles']): Caller => ({
  source: 'cli',
  actor: { type: 'person', id: `p-${roles!.join('-')}`, name: 'Anna', source: 'test', requestId: null },
  roles,
});
const ADMIN = person(['admin']);
const RECEPTION = person(['reception']);

/** Sets the program's clock (Date) to `iso` for what the test runs next in this process. */
function at(iso: string): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
}

/** A stored document made at the clock's time, with its file, as an upload leaves them. */
function storeDocument(db: Db, dataDir: string, patientId: string, type: string, createdAt: string): string {
  const id = crypto.randomUUID();
  const bytes = Buffer.from(`%PDF ${type} ${createdAt}`);
  const path = documentFilePath(dataDir, patientId, id);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, bytes, { mode: 0o600 });
  db.prepare(
    `INSERT INTO documents (id, patient_id, filename, content_type, size, sha256, title, type, created_at)
     VALUES (?, ?, ?, 'application/pdf', ?, ?, NULL, ?, ?)`,
  ).run(id, patientId, `${type}.pdf`, bytes.length, createHash('sha256').update(bytes).digest('hex'), type, createdAt);
  return id;
}

async function assertCheckAndVerify(dataDir: string): Promise<void> {
  const check = await runClinic(['check', '--data', dataDir]);
  assert.equal(check.code, 0, `clinic check:\n${check.stdout}${check.stderr}`);
  const verify = await runClinic(['audit', 'verify', '--data', dataDir]);
  assert.equal(verify.code, 0, `clinic audit verify:\n${verify.stdout}${verify.stderr}`);
}

const erase = (db: Db, patientId: string, dryRun: boolean, caller: Caller = DESK) =>
  performUseCase(ERASE_PATIENT, db, { path: { patient_id: patientId }, body: { dry_run: dryRun } }, caller) as ErasureResult;

const groups = (result: ErasureResult) => result.summary.map((g) => [g.category, g.decision, g.rule, g.keep_until, g.count]);

for (const country of ['AT', 'DE'] as const) {
  describe(`erasing a patient under the ${country} preset`, () => {
    const data = useTestDatabase();
    let patientId = '';
    const ids: Record<string, string> = {};
    afterEach(() => mock.timers.reset());

    before(() => {
      const { db } = data;
      at('2026-01-05T09:00:00Z');
      setClinicTimeZone(db, 'Europe/Vienna');
      setModuleEnabled(db, 'billing', true);
      setModuleEnabled(db, 'payments', true);
      const patient = createTestPatient(db, {
        first_name: 'Lena',
        last_name: 'Vergessen',
        gender: 'w',
        notes: 'Penicillin-Allergie',
        email: 'lena@example.org',
        mobile: '+43 660 1234567',
        occupation: 'Lehrerin',
      });
      patientId = patient.id;
      const doctor = addDoctor(db, { name: 'Dr. Gruber', color: '#123456' });
      const book = (start: string, status: string) =>
        bookAppointment(
          db,
          { patient_id: patientId, start_at: start, end_at: start.replace('T09', 'T10'), resource_id: doctor.id, status },
          'api',
        );
      ids.completed = book('2026-03-10T09:00:00Z', 'completed').id;
      ids.pastBooked = book('2026-05-05T09:00:00Z', 'booked').id;
      ids.cancelled = book('2026-06-01T09:00:00Z', 'cancelled').id;
      ids.noShow = book('2026-07-01T09:00:00Z', 'no_show').id;
      ids.future = book('2027-02-01T09:00:00Z', 'booked').id;
      ids.xrays = storeDocument(db, data.dataDir, patientId, 'xrays', '2026-04-01T08:00:00.000Z');
      ids.invoiceDocument = storeDocument(db, data.dataDir, patientId, 'invoices', '2026-04-02T08:00:00.000Z');
      at('2026-02-10T10:00:00Z');
      ids.invoice2026 = createInvoice(db, { patient_id: patientId, total: '80.00' }).id;
      const paid = performUseCase(
        RECORD_PAYMENT,
        db,
        { path: { invoice_id: ids.invoice2026 }, body: { amount: '80.00', method: 'card' } },
        DESK,
      );
      ids.payment = paid.payment.payment_id;
      performUseCase(REFUND_PAYMENT, db, { path: { payment_id: ids.payment }, body: { amount: '10.00', reason: 'Doppelt' } }, DESK);
      at('2026-12-20T10:00:00Z');
      ids.invoiceLate = createInvoice(db, { patient_id: patientId, total: '50.00' }).id;
      at('2027-01-05T10:00:00Z');
      performUseCase(RECORD_PAYMENT, db, { path: { invoice_id: ids.invoiceLate }, body: { amount: '20.00', method: 'cash' } }, DESK);
      setClinicRetention(db, country, undefined);
    });

    // AT: records from each entry's day; DE: from the end of treatment (the last held appointment or record document).
    const records = country === 'AT' ? { completed: '2036-03-10', pastBooked: '2036-05-05', xrays: '2036-04-01' } : null;
    const deRecords = '2036-05-05';
    const billing2026 = country === 'AT' ? '2033-12-31' : '2034-12-31';
    const billing2027 = country === 'AT' ? '2034-12-31' : '2035-12-31';
    const recordsRule = `${country}-RECORDS`;
    const billingRule = `${country}-BILLING`;

    it('shows in a dry run what goes now and what is kept until when, and changes nothing', async () => {
      at('2026-11-30T10:00:00Z');
      const before = data.db.prepare('SELECT count(*) AS n FROM appointments').get();
      const result = erase(data.db, patientId, true);
      assert.equal(result.dry_run, true);
      assert.equal(result.erased_at, null);
      assert.deepEqual([result.country, result.records_years], [country, 10]);
      const until = (name: 'completed' | 'pastBooked' | 'xrays') => records?.[name] ?? deRecords;
      assert.deepEqual(groups(result), [
        ['contact', 'keep_until', recordsRule, '2036-05-05', 4],
        ['contact', 'erase_now', null, null, 3],
        ...(country === 'AT'
          ? [
              ['appointments', 'keep_until', recordsRule, until('completed'), 1],
              ['appointments', 'keep_until', recordsRule, until('pastBooked'), 1],
            ]
          : [['appointments', 'keep_until', recordsRule, deRecords, 2]]),
        ['appointments', 'erase_now', null, null, 3],
        ['documents', 'keep_until', recordsRule, until('xrays'), 1],
        ['documents', 'keep_until', billingRule, billing2026, 1],
        // The invoices with their payments and refund: each under its invoice's day.
        ['billing', 'keep_until', billingRule, billing2026, 3],
        ['billing', 'keep_until', billingRule, billing2027, 2],
        // The notification of the invoice paid in full.
        ['reminders', 'erase_now', null, null, 1],
        ['change_feed', 'erase_now', null, null, result.summary.find((g) => g.category === 'change_feed')!.count],
        ['audit', 'keep', 'AUDIT', null, result.summary.find((g) => g.category === 'audit')!.count],
      ]);
      const fields = result.items.filter((item) => item.category === 'contact');
      assert.deepEqual(
        fields.filter((item) => item.decision === 'erase_now').map((item) => item.id),
        ['email', 'mobile', 'occupation'],
      );
      assert.deepEqual(
        fields.filter((item) => item.decision === 'keep_until').map((item) => item.id),
        ['first_name', 'last_name', 'gender', 'notes'],
      );
      assert.deepEqual(data.db.prepare('SELECT count(*) AS n FROM appointments').get(), before);
      await assertCheckAndVerify(data.dataDir);
    });

    it('erases now what no rule keeps, restricts the rest, and records patient.erase and patient.erased', async () => {
      at('2026-11-30T10:00:00Z');
      const result = erase(data.db, patientId, false);
      assert.equal(result.erased_at, '2026-11-30T10:00:00.000Z');
      const row = data.db.prepare('SELECT * FROM patients WHERE id = ?').get(patientId) as Record<string, unknown>;
      assert.deepEqual(
        [row.first_name, row.last_name, row.notes, row.email, row.mobile, row.occupation, row.erased_at],
        ['Lena', 'Vergessen', 'Penicillin-Allergie', null, null, null, '2026-11-30T10:00:00.000Z'],
      );
      const appointments = data.db.prepare('SELECT id FROM appointments WHERE patient_id = ? ORDER BY start_at').all(patientId);
      assert.deepEqual(appointments, [{ id: ids.completed }, { id: ids.pastBooked }]);
      const feed = data.db.prepare('SELECT type, data FROM change_events WHERE patient_id = ? ORDER BY seq').all(patientId) as {
        type: string;
        data: string;
      }[];
      assert.ok(
        feed.every((event) => event.data === '{}'),
        'every event about the patient is emptied',
      );
      assert.equal(feed.at(-1)!.type, 'patient.erased');
      const erased = data.db
        .prepare("SELECT detail FROM audit_events WHERE action = 'patient.erase' AND patient_id = ?")
        .all(patientId) as { detail: string }[];
      assert.equal(erased.length, 1);
      assert.deepEqual(JSON.parse(erased[0]!.detail), {
        erased: { contact: 3, appointments: 3, reminders: 1, change_feed: result.erased!.change_feed },
      });
      assert.deepEqual(data.db.prepare('SELECT count(*) AS n FROM notification_outbox WHERE patient_id = ?').get(patientId), { n: 0 });
      await assertCheckAndVerify(data.dataDir);
    });

    it('changes and records nothing when repeated', () => {
      at('2026-12-01T10:00:00Z');
      const events = () => data.db.prepare('SELECT count(*) AS n FROM audit_events').get();
      const before = events();
      const again = erase(data.db, patientId, false);
      assert.equal(again.erased_at, '2026-11-30T10:00:00.000Z');
      assert.equal(again.erased, null);
      assert.deepEqual(events(), before);
    });

    it('leaves the patient out of every list and search, for an admin too', () => {
      at('2026-12-01T10:00:00Z');
      for (const caller of [ADMIN, KEY]) {
        const found = performUseCase(FIND_PATIENTS, data.db, { query: { q: 'Vergessen' } }, caller) as { items: unknown[] };
        assert.deepEqual(found.items, []);
        const byNumber = performUseCase(FIND_PATIENTS, data.db, { query: { q: 'P-1' } }, caller) as { items: unknown[] };
        assert.deepEqual(byNumber.items, []);
        const all = performUseCase(FIND_PATIENTS, data.db, { query: {} }, caller) as { items: unknown[] };
        assert.deepEqual(all.items, []);
        const appointments = performUseCase(LIST_APPOINTMENTS, data.db, { query: { from: '2026-03-01', to: '2026-05-31' } }, caller) as {
          items: unknown[];
        };
        assert.deepEqual(appointments.items, []);
        const invoices = performUseCase(LIST_INVOICES, data.db, { query: {} }, caller) as { items: unknown[] };
        assert.deepEqual(invoices.items, []);
      }
    });

    it('answers a request naming the patient or its records to an admin only', () => {
      at('2026-12-01T10:00:00Z');
      for (const caller of [KEY, RECEPTION]) {
        assert.throws(
          () => performUseCase(READ_PATIENT, data.db, { path: { patient_id: patientId } }, caller),
          (error: { code?: string; status?: number }) => error.code === 'PATIENT_RESTRICTED' && error.status === 403,
        );
        assert.throws(
          () => performUseCase(LIST_INVOICES, data.db, { query: { patient_id: patientId } }, caller),
          (error: { code?: string }) => error.code === 'PATIENT_RESTRICTED',
        );
      }
      const read = performUseCase(READ_PATIENT, data.db, { path: { patient_id: patientId } }, ADMIN) as { erased_at: string | null };
      assert.equal(read.erased_at, '2026-11-30T10:00:00.000Z');
      assert.throws(
        () => performUseCase(UPDATE_PATIENT, data.db, { path: { patient_id: patientId }, body: { notes: 'x' }, header: {} }, ADMIN),
        (error: { code?: string }) => error.code === 'PATIENT_RESTRICTED',
        'an admin changes nothing of it',
      );
      const paid = performUseCase(
        RECORD_PAYMENT,
        data.db,
        { path: { invoice_id: ids.invoiceLate }, body: { amount: '5.00', method: 'cash' } },
        ADMIN,
      );
      assert.ok(paid, 'but takes a payment of a kept invoice');
      const copy = performUseCase(EXPORT_PATIENT, data.db, { path: { patient_id: patientId } }, ADMIN);
      assert.deepEqual(
        copy.contents.invoices.map((invoice) => invoice.id),
        [ids.invoice2026, ids.invoiceLate],
        "an admin's copy holds the kept invoices the lists leave out",
      );
      const last = data.db.prepare('SELECT type, data FROM change_events ORDER BY seq DESC LIMIT 1').get();
      assert.deepEqual(last, { type: 'payment.created', data: '{}' }, 'whose feed event says nothing of the patient');
    });

    it('purges each kept item on the day after its last, the row with the last, one patient.purge a run', async () => {
      const runner = connectionRunner(data.db);
      const purge = (iso: string) => purgeErasedPatients(data.db, data.dataDir, runner, iso);
      const exists = (table: string, id: string) => data.db.prepare(`SELECT 1 FROM ${table} WHERE id = ?`).get(id) !== undefined;
      const dayAfter = (date: string) => new Date(Date.parse(`${date}T12:00:00Z`) + 86_400_000).toISOString();

      assert.deepEqual((await purge(`${billing2026}T12:00:00.000Z`)).purges, [], 'kept on its last day');
      const first = await purge(dayAfter(billing2026));
      assert.deepEqual(
        first.purges.map((p) => p.purged),
        [{ documents: 1, billing: 3 }],
      );
      assert.equal(exists('invoices', ids.invoice2026!), false);
      assert.equal(exists('documents', ids.invoiceDocument!), false);
      assert.equal(existsSync(documentFilePath(data.dataDir, patientId, ids.invoiceDocument!)), false, 'its file is deleted');
      assert.equal(exists('invoices', ids.invoiceLate!), true);
      await assertCheckAndVerify(data.dataDir);

      const second = await purge(dayAfter(billing2027));
      assert.deepEqual(
        second.purges.map((p) => p.purged),
        [{ billing: 3 }],
      );
      if (records !== null) {
        assert.deepEqual(
          (await purge(dayAfter(records.completed))).purges.map((p) => p.purged),
          [{ appointments: 1 }],
        );
        assert.deepEqual(
          (await purge(dayAfter(records.xrays))).purges.map((p) => p.purged),
          [{ documents: 1 }],
        );
      }
      assert.equal(exists('patients', patientId), true, 'the row stays while something is kept');
      const last = await purge(dayAfter(deRecords));
      assert.deepEqual(
        last.purges.map((p) => [p.purged, p.whole]),
        [[records !== null ? { contact: 4, appointments: 1 } : { contact: 4, appointments: 2, documents: 1 }, true]],
      );
      assert.equal(exists('patients', patientId), false, 'the kept fields and the row go with the last item');
      const purges = data.db.prepare("SELECT actor_type, actor_name FROM audit_events WHERE action = 'patient.purge'").all();
      assert.equal(purges.length, records !== null ? 5 : 3);
      assert.deepEqual(purges[0], { actor_type: 'system', actor_name: 'clinic serve' });
      assert.deepEqual((await purge(dayAfter('2040-01-01'))).purges, [], 'nothing is left to purge');
      await assertCheckAndVerify(data.dataDir);
    });
  });
}

describe('erasing without retention rules', () => {
  const data = useTestDatabase();
  it('is refused with 422 SETTING_REQUIRED (retention) and changes nothing', () => {
    const patient = createTestPatient(data.db, { first_name: 'Ohne', last_name: 'Regel' });
    assert.throws(
      () => erase(data.db, patient.id, true),
      (error: { code?: string; status?: number }) => error.code === 'SETTING_REQUIRED' && error.status === 422,
    );
    assert.equal((data.db.prepare('SELECT erased_at FROM patients WHERE id = ?').get(patient.id) as { erased_at: null }).erased_at, null);
  });

  it('deletes the row of a patient of whom nothing is kept but the trail', () => {
    setClinicRetention(data.db, 'AT', 30);
    const patient = createTestPatient(data.db, { first_name: 'Nur', last_name: 'Angelegt' });
    const result = erase(data.db, patient.id, false);
    assert.deepEqual(
      result.summary.map((g) => [g.category, g.decision]),
      [
        ['contact', 'erase_now'],
        ['change_feed', 'erase_now'],
        ['audit', 'keep'],
      ],
    );
    assert.equal(data.db.prepare('SELECT 1 FROM patients WHERE id = ?').get(patient.id), undefined);
    const feed = data.db.prepare('SELECT type, data FROM change_events WHERE patient_id = ? ORDER BY seq').all(patient.id);
    assert.deepEqual(feed, [
      { type: 'patient.created', data: '{}' },
      { type: 'patient.erased', data: '{}' },
    ]);
  });
});

describe('a purged document whose file will not go', () => {
  const data = useTestDatabase();
  afterEach(() => mock.timers.reset());

  it('is tried again at the next purge, and clinic check names it until then', async () => {
    setClinicRetention(data.db, 'AT', undefined);
    const patient = createTestPatient(data.db, { first_name: 'Sture', last_name: 'Datei' });
    const documentId = storeDocument(data.db, data.dataDir, patient.id, 'invoices', '2020-01-10T08:00:00.000Z');
    at('2026-11-30T10:00:00Z');
    erase(data.db, patient.id, false);
    mock.timers.reset();
    // A folder where the file was: what no plain delete removes (as a file held open on Windows).
    const path = documentFilePath(data.dataDir, patient.id, documentId);
    rmSync(path);
    mkdirSync(path, { mode: 0o700 });
    writeFileSync(join(path, 'held'), 'x', { mode: 0o600 });
    const runner = connectionRunner(data.db);
    const first = await purgeErasedPatients(data.db, data.dataDir, runner, '2028-01-01T12:00:00.000Z');
    assert.deepEqual([first.purges.map((p) => [p.purged, p.whole]), first.filesLeft], [[[{ documents: 1, contact: 2 }, true]], 1]);
    const check = await runClinic(['check', '--data', data.dataDir]);
    assert.equal(check.code, 1);
    assert.match(check.stdout, new RegExp(`document ${documentId} was purged on 2028-01-01T12:00:00.000Z; its file is still there`));
    rmSync(path, { recursive: true });
    const again = await purgeErasedPatients(data.db, data.dataDir, runner, '2028-01-01T13:00:00.000Z');
    assert.deepEqual([again.purges, again.filesLeft], [[], 0]);
    await assertCheckAndVerify(data.dataDir);
  });
});
