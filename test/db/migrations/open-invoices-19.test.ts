import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { sumOpenBalances, sumOpenBalancesOfPatients } from '../../../src/db/invoices.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { readDatabase } from '../../helpers/release-database.js';
import { schemaOf } from '../../helpers/schema-of.js';
import { useDataDirs } from '../../helpers/fixtures.js';

/**
 * Schema 19 (issue 43) adds invoices_open_by_patient, the open invoices' index a patient's balance
 * and a search page's balances are summed from. On a database of schema 18 with open, partly
 * paid and paid invoices in two currencies, the upgrade builds it over every open invoice:
 * each patient owes what they owed before, read through the index, and the schema is a new one's.
 */
describe('upgrading schema 18 to 19: the open invoices by patient', () => {
  const newDataDir = useDataDirs();
  let dataDir: string;
  let fresh: string;
  let patientIds: string[];
  let owedBefore: unknown;

  before(() => {
    dataDir = newDataDir();
    fresh = newDataDir();
    const db = openDatabase(dataDir);
    const [anna, bert, clara, dora] = [createTestPatient(db), createTestPatient(db), createTestPatient(db), createTestPatient(db)];
    createTestInvoice(db, { patient_id: anna.id, total: '100.00' });
    createTestInvoice(db, { patient_id: anna.id, total: '40.00' });
    createTestInvoice(db, { patient_id: dora.id, total: '40.00', currency: 'CHF' });
    const partly = createTestInvoice(db, { patient_id: bert.id, total: '80.00' });
    recordPayment(db, { path: { invoice_id: partly.id }, headers: {}, body: buildPayment({ amount: '30.10' }) });
    const paid = createTestInvoice(db, { patient_id: clara.id, total: '15.25' });
    recordPayment(db, { path: { invoice_id: paid.id }, headers: {}, body: buildPayment({ amount: '15.25' }) });
    patientIds = [anna.id, bert.id, clara.id, dora.id];
    // Back to schema 18: the database as the release before this one left it.
    db.exec('DROP INDEX invoices_open_by_patient; PRAGMA user_version = 18;');
    owedBefore = { page: sumOpenBalancesOfPatients(db, patientIds), each: patientIds.map((id) => sumOpenBalances(db, id)) };
    db.close();
    openDatabase(fresh).close();
  });

  it('indexes every open invoice: each patient owes what they owed, and the schema is a new database’s', () => {
    const db = openDatabase(dataDir);
    try {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      const owed = { page: sumOpenBalancesOfPatients(db, patientIds), each: patientIds.map((id) => sumOpenBalances(db, id)) };
      assert.deepEqual(owed, owedBefore);
      // Anna owes two invoices, Bert what is left of his, Clara nothing, Dora in francs.
      assert.deepEqual(
        owed.each.map((rows) => rows.map((row) => `${row.currency} ${row.balance_cents}`)),
        [['EUR 14000'], ['EUR 4990'], [], ['CHF 4000']],
      );
    } finally {
      db.close();
    }
    assert.deepEqual(schemaOf(dataDir), schemaOf(fresh));
    assert.deepEqual(
      readDatabase(dataDir, (db) =>
        db.prepare('SELECT count(*) AS open FROM invoices INDEXED BY invoices_open_by_patient WHERE balance_cents > 0').get(),
      ),
      { open: 4 },
    );
  });
});
