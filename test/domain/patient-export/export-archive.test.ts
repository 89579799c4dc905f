import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { patientExportArchive } from '../../../src/domain/patient-export/export-archive.js';
import { readPatientExport, type PatientExportContents } from '../../../src/domain/patient-export/export-contents.js';
import { AppError } from '../../../src/errors.js';
import { PROGRAM_VERSION } from '../../../src/version.js';
import { PATIENT_COPY_RECORD_FILES } from '../../helpers/api-shapes.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { zipEntries } from '../../helpers/zip-entries.js';

// The patient's copy as a ZIP (clinic-api-1.3.md, "The patient's copy"): the records, the
// originals uncompressed, and a manifest last; streamed, and cut short when a document is not
// what was stored. Over HTTP and at the desk: test/server/patient-export.test.ts,
// test/cli/commands/patient-export.test.ts.

const NOW = '2026-11-30T10:00:00.000Z';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What `archive` gave before it ended, and the error it ended with, if any. */
async function drain(archive: Readable): Promise<{ bytes: Buffer; error: unknown }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    return { bytes: Buffer.concat(chunks), error: undefined };
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error };
  }
}

describe('patientExportArchive', () => {
  const data = useTestDatabase({ each: true });

  /** A patient with an invoice and two documents (a 300 KiB scan among them); the copy's contents and the documents' bytes. */
  function patientWithDocuments(): { contents: PatientExportContents; originals: Buffer[] } {
    const patient = createTestPatient(data.db);
    createInvoice(data.db, { patient_id: patient.id, total: '80.00' });
    const originals = [Buffer.alloc(300 * 1024, 'x'), Buffer.from('%PDF-1.7 Befund')];
    for (const bytes of originals) addDocument(data.db, data.dataDir, patient.id, bytes);
    return { contents: readPatientExport(data.db, patient.id, NOW), originals };
  }

  it('holds the records, then each original uncompressed and byte for byte, then the manifest of every file before it', async () => {
    const { contents, originals } = patientWithDocuments();
    const { bytes, error } = await drain(patientExportArchive(data.dataDir, contents));
    assert.equal(error, undefined);
    const entries = await zipEntries(bytes);
    const documentPaths = contents.documents.map((document) => `documents/${document.id}/${document.filename}`);
    assert.deepEqual(
      entries.map((entry) => entry.name),
      [...PATIENT_COPY_RECORD_FILES, ...documentPaths, 'manifest.json'],
    );
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    documentPaths.forEach((path, i) => {
      assert.equal(byName.get(path)?.stored, true, `${path} is stored uncompressed`);
      assert.ok(byName.get(path)?.bytes.equals(originals[i]!), `${path} byte for byte`);
    });
    assert.deepEqual(JSON.parse(byName.get('records/patient.json')!.bytes.toString()), contents.patient);
    assert.deepEqual(JSON.parse(byName.get('records/invoices.json')!.bytes.toString()), contents.invoices);
    const manifest = JSON.parse(byName.get('manifest.json')!.bytes.toString());
    assert.deepEqual(manifest, {
      format: 'clinic-patient-export',
      format_version: 1,
      created_at: NOW,
      clinic_version: PROGRAM_VERSION,
      patient_id: contents.patient.id,
      patient_number: contents.patient.patient_number,
      files: entries.slice(0, -1).map((entry) => ({ path: entry.name, size: entry.bytes.length, sha256: sha256(entry.bytes) })),
    });
  });

  it('says in its README what each of its files is, with the public description of each format', async () => {
    const { contents } = patientWithDocuments();
    const entries = await zipEntries((await drain(patientExportArchive(data.dataDir, contents))).bytes);
    const readme = entries.find((entry) => entry.name === 'README.txt')!.bytes.toString('utf8');
    for (const name of [...PATIENT_COPY_RECORD_FILES.slice(1), 'documents/<document id>/<file name>', 'manifest.json']) {
      assert.ok(readme.includes(name.replace(/^records\//, '')), `README.txt names ${name}`);
    }
    for (const link of [
      'https://hl7.org/fhir/R4/bundle.html',
      'https://www.rfc-editor.org/rfc/rfc8259',
      'https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT',
      'https://csrc.nist.gov/pubs/fips/180-4/upd1/final',
      'https://spec.openapis.org/oas/v3.1.0',
    ]) {
      assert.ok(readme.includes(link), `README.txt links ${link}`);
    }
  });

  it('is cut before its end when a document is no longer the bytes stored: DOCUMENT_FILE_DAMAGED, no archive that looks whole', async () => {
    const { contents } = patientWithDocuments();
    const damaged = contents.documentRows[1]!;
    writeFileSync(join(data.dataDir, 'documents', damaged.patient_id, damaged.id), '%PDF-1.7 BEFUND');
    const { bytes, error } = await drain(patientExportArchive(data.dataDir, contents));
    assert.ok(error instanceof AppError && error.code === 'DOCUMENT_FILE_DAMAGED', String(error));
    await assert.rejects(zipEntries(bytes), 'a reader finds no central directory');
  });

  it('is cut before its end when a document file went missing after it was checked', async () => {
    const { contents } = patientWithDocuments();
    const gone = contents.documentRows[0]!;
    rmSync(join(data.dataDir, 'documents', gone.patient_id, gone.id));
    const { bytes, error } = await drain(patientExportArchive(data.dataDir, contents));
    assert.ok(error !== undefined, 'the stream ends with an error');
    await assert.rejects(zipEntries(bytes), 'a reader finds no central directory');
  });
});
