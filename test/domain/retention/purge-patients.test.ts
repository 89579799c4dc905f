import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { ERASE_PATIENT } from '../../../src/domain/retention/erase-patient.js';
import { purgeErasedPatients } from '../../../src/domain/retention/purge-patients.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { connectionRunner, performUseCase } from '../../../src/domain/use-case.js';
import { buildPayment, createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { DESK_USER } from '../../helpers/use-case-scenarios.js';

// `serve`'s purge, at start and hourly (clinic-api-1.3.md, "Restriction"): each kept item of an
// erased patient the day after its `keep_until`, the kept fields and the row with the last, one
// `patient.purge` per patient and run.

/** Sets the program's clock (Date) to `iso`. */
function at(iso: string): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
}

interface Kept {
  patientId: string;
  documentFile: string;
}

describe('purgeErasedPatients', () => {
  const data = useTestDatabase({ each: true });
  afterEach(() => mock.timers.reset());
  let kept: Kept;
  let bystander: string;

  /**
   * In Vienna under AT rules: a patient with a visit of 10.03.2026 and an x-ray of 01.04.2026
   * (kept until 2036), an invoice of 2026 paid that year (kept until 31.12.2033), erased on
   * 30.11.2026; and a patient never erased, with a visit as old.
   */
  beforeEach(() => {
    const { db, dataDir } = data;
    at('2026-01-05T09:00:00Z');
    setClinicTimeZone(db, 'Europe/Vienna');
    const patient = createTestPatient(db);
    bystander = createTestPatient(db, { first_name: 'Otto' }).id;
    for (const patientId of [patient.id, bystander]) {
      bookAppointment(
        db,
        { patient_id: patientId, start_at: '2026-03-10T09:00:00Z', end_at: '2026-03-10T10:00:00Z', status: 'completed' },
        'api',
      );
    }
    at('2026-04-01T08:00:00Z');
    const documentId = addDocument(db, dataDir, patient.id, Buffer.from('x-ray'));
    const invoice = createInvoice(db, { patient_id: patient.id, total: '80.00' });
    recordPayment(db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment({ amount: '80.00' }) });
    setClinicRetention(db, 'AT', undefined);
    at('2026-11-30T10:00:00Z');
    performUseCase(ERASE_PATIENT, db, { path: { patient_id: patient.id }, body: { dry_run: false } }, DESK_USER);
    kept = { patientId: patient.id, documentFile: join(dataDir, 'documents', patient.id, documentId) };
  });

  /** The purge run at `now`, on the clock at `now`. */
  const purgeAt = (now: string) => {
    at(now);
    return purgeErasedPatients(data.db, data.dataDir, connectionRunner(data.db), new Date(now).toISOString());
  };
  /** The patient.purge events: who recorded them, whose, and what they name as purged. */
  const purgeEvents = (db: Db) => {
    const rows = db
      .prepare("SELECT actor_type, patient_id, detail FROM audit_events WHERE action = 'patient.purge' ORDER BY seq")
      .all() as { actor_type: string; patient_id: string; detail: string }[];
    return rows.map((event) => ({ ...event, detail: JSON.parse(event.detail) as unknown }));
  };
  const count = (table: string, patientId: string) =>
    (data.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE patient_id = ?`).get(patientId) as { n: number }).n;

  it("purges nothing on an item's last day, to its last second in the clinic's time, and records nothing", async () => {
    assert.deepEqual(await purgeAt('2033-12-31T22:59:59.999Z'), { purges: [], filesLeft: 0 });
    assert.deepEqual(purgeEvents(data.db), []);
    assert.equal(count('invoices', kept.patientId), 1);
  });

  it("purges an item at the clinic's midnight after its last day, with one patient.purge by the system, and nothing on the next run", async () => {
    const first = await purgeAt('2033-12-31T23:00:00.000Z');
    assert.deepEqual(first, {
      purges: [{ patient_id: kept.patientId, patient_number: 'P-000001', purged: { billing: 2 }, whole: false }],
      filesLeft: 0,
    });
    assert.equal(count('invoices', kept.patientId), 0);
    assert.equal(count('appointments', kept.patientId), 1, 'the records are kept until 2036');
    assert.deepEqual(purgeEvents(data.db), [{ actor_type: 'system', patient_id: kept.patientId, detail: { purged: { billing: 2 } } }]);
    assert.deepEqual(await purgeAt('2034-01-01T10:00:00.000Z'), { purges: [], filesLeft: 0 });
    assert.equal(purgeEvents(data.db).length, 1);
  });

  it('purges the kept fields and the row with the last item, and deletes the purged files, leaving the patients never erased', async () => {
    await purgeAt('2034-01-01T10:00:00.000Z');
    assert.ok(existsSync(kept.documentFile), 'the x-ray is kept until 2036');
    const last = await purgeAt('2036-04-02T10:00:00.000Z');
    assert.equal(last.filesLeft, 0);
    assert.equal(last.purges.length, 1);
    const [purge] = last.purges;
    assert.deepEqual([purge!.whole, purge!.purged.appointments, purge!.purged.documents], [true, 1, 1]);
    assert.ok(purge!.purged.contact! > 0, `the kept fields are counted: ${JSON.stringify(purge!.purged)}`);
    assert.equal(existsSync(kept.documentFile), false, 'the file went with its row');
    assert.equal((data.db.prepare('SELECT count(*) AS n FROM patients WHERE id = ?').get(kept.patientId) as { n: number }).n, 0);
    assert.equal(count('audit_events', kept.patientId) > 0, true, 'the audit trail stays whole');
    assert.equal(count('appointments', bystander), 1, 'a patient never erased keeps every record');
  });
});
