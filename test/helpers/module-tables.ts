import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempFilePath } from '../../src/db/document-files.js';
import { HAS_MODES, makeSharedFolderSync, SHARED_FILE_MODE } from '../../src/db/file-modes.js';
import { insertDocument } from '../../src/db/documents.js';
import type { Db } from '../../src/db/open-database.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { buildPatient } from './builders.js';

// Data for the maintenance tests (backup, restore, check), written synchronously through the
// real tables: documents as the upload leaves them, invoices through the billing domain.

/** Writes a file of the data directory with the mode the program gives its files (0660), whatever the umask. */
function writeAsTheProgramDoes(path: string, content: Buffer): void {
  writeFileSync(path, content, { mode: SHARED_FILE_MODE });
  if (HAS_MODES) chmodSync(path, SHARED_FILE_MODE);
}

/** Stores `content` as a document of `patientId`: its file under documents/ and its row. Returns the document id. */
export function addDocument(db: Db, dataDir: string, patientId: string, content: Buffer): string {
  const id = randomUUID();
  makeSharedFolderSync(join(dataDir, 'documents', patientId));
  writeAsTheProgramDoes(join(dataDir, 'documents', patientId, id), content);
  insertDocument(db, {
    id,
    patient_id: patientId,
    filename: `${id}.bin`,
    content_type: 'application/octet-stream',
    size: content.length,
    sha256: createHash('sha256').update(content).digest('hex'),
    title: null,
    type: 'other',
    created_at: new Date().toISOString(),
  });
  return id;
}

/**
 * The state a crash leaves between an upload's commit and its rename: the document's row, and its
 * file still at tmp/<id>.part. Returns the document id.
 */
export function addInterruptedUpload(db: Db, dataDir: string, patientId: string, content: Buffer): string {
  const id = randomUUID();
  makeSharedFolderSync(join(dataDir, 'tmp'));
  writeAsTheProgramDoes(tempFilePath(dataDir, id), content);
  insertDocument(db, {
    id,
    patient_id: patientId,
    filename: 'scan.pdf',
    content_type: 'application/pdf',
    size: content.length,
    sha256: createHash('sha256').update(content).digest('hex'),
    title: null,
    type: 'scans',
    created_at: new Date().toISOString(),
  });
  return id;
}

/**
 * An invoice paid by one payment per entry of `paymentsCents`, whose recorded amount paid is then
 * set to `amountPaidCents` behind the program's back when the two differ (a tampered ledger).
 */
export function addInvoice(db: Db, amountPaidCents: number, paymentsCents: readonly number[]): string {
  const patient = createPatient(db, buildPatient());
  const paid = paymentsCents.reduce((sum, cents) => sum + cents, 0);
  const totalCents = Math.max(amountPaidCents, paid) + 10_000;
  const invoice = createInvoice(db, { patient_id: patient.id, total: (totalCents / 100).toFixed(2) });
  for (const cents of paymentsCents) {
    recordPayment(db, { path: { invoice_id: invoice.id }, headers: {}, body: { amount: (cents / 100).toFixed(2), method: 'cash' } });
  }
  if (amountPaidCents !== paid) {
    db.prepare(
      `UPDATE invoices SET amount_paid_cents = ?, balance_cents = total_cents - ?,
         status = CASE WHEN ? = 0 THEN 'issued' ELSE 'partially_paid' END WHERE id = ?`,
    ).run(amountPaidCents, amountPaidCents, amountPaidCents, invoice.id);
  }
  return invoice.id;
}
