import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DATABASE_FILE } from '../../../src/db/data-directory.js';
import { HAS_MODES } from '../../../src/db/file-modes.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { CHECKS, checkDataDirectory, permissionFindings, runChecks } from '../../../src/domain/maintenance/check.js';
import type { Progress } from '../../../src/domain/maintenance/progress.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { AppError } from '../../../src/errors.js';
import { buildPayment, createTestPatient } from '../../helpers/builders.js';
import { copyReleaseFixture, useDataDirs, useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { readDatabase } from '../../helpers/release-database.js';
import { DESK_USER } from '../../helpers/use-case-scenarios.js';

// `clinic check` (clinic-api-1.0 "Command line", clinic-api-1.2.md "Audit trail"): every check
// over a data directory, each named with what it found; nothing changed. The desk's printout and
// each finding's words are test/cli/commands/check.test.ts.

const newDir = useDataDirs();

describe('runChecks', () => {
  const data = useTestDatabase({ each: true });

  it('runs every check in its order over a sound data directory, each ok', async () => {
    createTestPatient(data.db);
    const outcomes = await runChecks(data.db, data.dataDir);
    assert.deepEqual(
      outcomes.map((outcome) => [outcome.name, outcome.status, outcome.findings]),
      CHECKS.map((check) => [check.name, 'ok', []]),
    );
    assert.ok(
      outcomes.every((outcome) => outcome.description.length > 0),
      'each check says what it looked at',
    );
  });

  it('tells a listener of each check as a step, and of the documents read by their bytes', async () => {
    const patient = createTestPatient(data.db);
    addDocument(data.db, data.dataDir, patient.id, Buffer.alloc(70_000, 1));
    addDocument(data.db, data.dataDir, patient.id, Buffer.alloc(30_000, 2));
    const reports: Progress[] = [];
    await runChecks(data.db, data.dataDir, (progress) => reports.push(progress));
    const starts = reports.filter((report) => report.bytes === 0 && report.files === 0 && report.totalBytes === 0);
    assert.deepEqual(
      [...new Set(starts.map((report) => `${report.stepNumber}/${report.steps} ${report.step}`))],
      CHECKS.map((check, i) => `${i + 1}/${CHECKS.length} ${check.name}`),
    );
    const documents = reports.filter((report) => report.step === 'document_files').at(-1);
    assert.deepEqual(documents && [documents.bytes, documents.totalBytes, documents.files, documents.totalFiles], [100_000, 100_000, 2, 2]);
  });

  it('notes a patient owing in two currencies without failing, and fails a document file that no longer matches', async () => {
    const patient = createTestPatient(data.db);
    const euro = createInvoice(data.db, { patient_id: patient.id, total: '40.00' });
    const paid = recordPayment(data.db, { path: { invoice_id: euro.id }, headers: {}, body: buildPayment({ amount: '40.00' }) });
    createInvoice(data.db, { patient_id: patient.id, total: '4000.00', currency: 'JPY' });
    performUseCase(REFUND_PAYMENT, data.db, { path: { payment_id: paid.payment.payment_id }, body: { reason: 'paid twice' } }, DESK_USER);
    const documentId = addDocument(data.db, data.dataDir, patient.id, Buffer.from('scan'));
    writeFileSync(join(data.dataDir, 'documents', patient.id, documentId), 'SCAN');
    const outcomes = await runChecks(data.db, data.dataDir);
    const failed = outcomes.filter((outcome) => outcome.status !== 'ok').map((outcome) => [outcome.name, outcome.status, outcome.findings]);
    assert.equal(failed.length, 2, JSON.stringify(failed));
    assert.deepEqual(failed[1], ['balances_in_several_currencies', 'note', [`${patient.patient_number} owes 40.00 EUR + 4000.00 JPY`]]);
    assert.equal(failed[0]![0], 'document_files');
    assert.equal(failed[0]![1], 'failed');
    assert.match(
      String(failed[0]![2]),
      new RegExp(`^document ${documentId} of patient ${patient.id}: file's SHA-256 is [0-9a-f]{64}, the database records`),
    );
  });
});

describe('checkDataDirectory', () => {
  it('names a database it cannot open in every check that needs it, and still runs the others', async () => {
    const dataDir = newDir();
    writeFileSync(join(dataDir, DATABASE_FILE), Buffer.alloc(8192, 0x5a));
    if (HAS_MODES) chmodSync(join(dataDir, DATABASE_FILE), 0o660);
    const outcomes = await checkDataDirectory(dataDir);
    for (const outcome of outcomes) {
      const check = CHECKS.find((named) => named.name === outcome.name)!;
      if (check.needsDatabase) {
        // A check that notes fails too when it could not run: nothing was looked at.
        assert.equal(outcome.status, 'failed', outcome.name);
        assert.match(outcome.findings.join(), /^not run: the database cannot be opened: /, outcome.name);
      } else assert.deepEqual([outcome.name, outcome.status], [check.name, 'ok'], outcome.findings.join('\n'));
    }
  });

  it('refuses a database of an older program as SCHEMA_UPGRADE_REQUIRED, the way on being clinic upgrade, and leaves it as it was', async () => {
    const dataDir = copyReleaseFixture('test/fixtures/release-1.0.0', newDir());
    await assert.rejects(checkDataDirectory(dataDir), (error) => error instanceof AppError && error.code === 'SCHEMA_UPGRADE_REQUIRED');
    assert.equal(
      readDatabase(dataDir, (db) => db.pragma('user_version', { simple: true })),
      1,
    );
  });
});

describe('permissionFindings', { skip: !HAS_MODES && 'no modes on Windows' }, () => {
  it("looks at every document's file only when asked (check), not at serve's start", () => {
    // 0700, one user's (a new folder's mode here): what closes a file in it is o-rwx.
    const dataDir = newDir();
    const db = openDatabase(dataDir);
    try {
      const patient = createTestPatient(db);
      const documentId = addDocument(db, dataDir, patient.id, Buffer.from('scan'));
      const file = join(dataDir, 'documents', patient.id, documentId);
      chmodSync(file, 0o664);
      assert.deepEqual(permissionFindings(dataDir), []);
      assert.deepEqual(permissionFindings(dataDir, { documents: true }), [
        `${file} has mode 0664: other users of this computer can read it; run chmod o-rwx on it`,
      ]);
    } finally {
      db.close();
    }
  });
});
