// src/domain/documents/save-document.ts: `clinic document save`, a checked copy of a stored document (clinic-api-1.3.md).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { documentFilePath } from '../../../src/db/document-files.js';
import { findDocument, type DocumentRow } from '../../../src/db/documents.js';
import { saveDocumentCopy } from '../../../src/domain/documents/save-document.js';
import { AppError } from '../../../src/errors.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useDataDirs, useTestDatabase } from '../../helpers/fixtures.js';
import { uploadTestPdf } from '../../helpers/uploads.js';

// `clinic document save D-17 FILE` (clinic-api-1.3.md, "Patients without e-mail, and documents by
// number"): a copy of a stored document, checked against the size and SHA-256 of its upload, whole
// or not at all, never over a file it was not told to replace.

const SCAN = Buffer.from('%PDF-1.7 a consent form, signed');

/** Asserts that `promise` is refused with `code` (and `status`). */
const refusedWith = (promise: Promise<unknown>, code: string, status = 500) =>
  assert.rejects(promise, (error: unknown) => error instanceof AppError && error.code === code && error.status === status);

describe('saving a copy of a document', () => {
  const data = useTestDatabase();
  const folder = useDataDirs();
  let document: DocumentRow;

  before(async () => {
    const patientId = createTestPatient(data.db).id;
    document = findDocument(data.db, await uploadTestPdf(data, patientId, 'consent', 'consent.pdf', SCAN))!;
  });

  /** The stored file of the document, as `clinic check` would find it. */
  const storedFile = () => documentFilePath(data.dataDir, document.patient_id, document.id);

  it('writes the bytes as uploaded, readable by this user only, leaving nothing else beside them', async () => {
    const dir = folder();
    const target = join(dir, 'consent.pdf');
    await saveDocumentCopy(data.dataDir, document, target, { replace: false });
    assert.ok(readFileSync(target).equals(SCAN), 'the bytes as uploaded');
    assert.equal(statSync(target).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['consent.pdf']);
  });

  it('refuses a taken name without replace (409 FILE_EXISTS), and replaces it with replace', async () => {
    const dir = folder();
    const target = join(dir, 'consent.pdf');
    writeFileSync(target, 'an older copy');
    await refusedWith(saveDocumentCopy(data.dataDir, document, target, { replace: false }), 'FILE_EXISTS', 409);
    assert.equal(readFileSync(target, 'utf8'), 'an older copy');
    await saveDocumentCopy(data.dataDir, document, target, { replace: true });
    assert.ok(readFileSync(target).equals(SCAN), 'replaced');
  });

  it('refuses a stored file changed since its upload, same size or not (500 DOCUMENT_FILE_DAMAGED), writing nothing', async () => {
    const damaged = Buffer.from(SCAN);
    damaged[5] = damaged[5]! ^ 1;
    for (const bytes of [damaged, SCAN.subarray(0, SCAN.length - 1)]) {
      writeFileSync(storedFile(), bytes);
      const dir = folder();
      await refusedWith(saveDocumentCopy(data.dataDir, document, join(dir, 'consent.pdf'), { replace: false }), 'DOCUMENT_FILE_DAMAGED');
      assert.deepEqual(readdirSync(dir), [], 'no copy and no temporary file');
    }
    writeFileSync(storedFile(), SCAN);
  });

  it('keeps a file it was to replace when the stored one turns out damaged', async () => {
    writeFileSync(storedFile(), Buffer.concat([SCAN, Buffer.from('appended')]));
    const dir = folder();
    const target = join(dir, 'consent.pdf');
    writeFileSync(target, 'an older copy');
    await refusedWith(saveDocumentCopy(data.dataDir, document, target, { replace: true }), 'DOCUMENT_FILE_DAMAGED');
    assert.equal(readFileSync(target, 'utf8'), 'an older copy');
    assert.deepEqual(readdirSync(dir), ['consent.pdf']);
    writeFileSync(storedFile(), SCAN);
  });
});
