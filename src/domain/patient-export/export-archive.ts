import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { openDocumentFile } from '../../db/document-files.js';
import type { DocumentRow } from '../../db/documents.js';
import { errors } from '../../errors.js';
import { PROGRAM_VERSION } from '../../version.js';
import type { PatientExportContents } from './export-contents.js';
import { exportReadme } from './export-readme.js';
import { exportSummaryHtml } from './export-summary.js';
import { documentArchivePath, patientBundle } from './fhir-bundle.js';

/** A file of the archive and what the manifest says of it. */
interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The files the copy makes of the records, in the archive's order (the documents and the manifest follow). */
function recordFiles(contents: PatientExportContents): [string, Buffer][] {
  return [
    ['README.txt', Buffer.from(exportReadme(), 'utf8')],
    ['bundle.json', json(patientBundle(contents))],
    ['records/patient.json', json(contents.patient)],
    ['records/appointments.json', json(contents.appointments)],
    ['records/invoices.json', json(contents.invoices)],
    ['records/documents.json', json(contents.documents)],
    ['records/reminders.json', json(contents.reminders)],
    ['access-log.json', json(contents.accessLog)],
    ['recipients.json', json(contents.recipients)],
    ['summary.html', Buffer.from(exportSummaryHtml(contents), 'utf8')],
  ];
}

/**
 * Passes a document's bytes on while hashing them; at their end, a size or SHA-256 other than
 * the upload's calls `damaged` instead of ending, so the archive is never completed.
 */
function checkedBytes(document: DocumentRow, damaged: (error: Error) => void): Transform {
  const hash = createHash('sha256');
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      if (size === document.size && hash.digest('hex') === document.sha256) done();
      else damaged(errors.documentFileDamaged());
    },
  });
}

/**
 * The patient's copy as a ZIP, streamed (clinic-api-1.3.md, "The patient's copy"): the records
 * first (built in memory: their size is the records', not the documents'), then each document's
 * original, stored uncompressed and read from its file a chunk at a time as the reader takes
 * them, then `manifest.json` with the size and SHA-256 of every file before it. Memory does not
 * grow with the documents' sizes. A document whose bytes are not those stored, or a file that
 * fails to read, destroys the stream with that error before the archive's end: a reader is left
 * with an archive missing its central directory, never one that looks whole.
 */
export function patientExportArchive(dataDir: string, contents: PatientExportContents): Readable {
  const zip = new ZipFile();
  const mtime = new Date(contents.createdAt);
  const output = zip.outputStream as Readable;
  const fail = (error: Error) => {
    output.destroy(error);
  };
  zip.on('error', fail);
  const files: ManifestFile[] = [];
  for (const [path, bytes] of recordFiles(contents)) {
    zip.addBuffer(bytes, path, { mtime, mode: 0o100644 });
    files.push({ path, size: bytes.length, sha256: sha256(bytes) });
  }
  for (const document of contents.documentRows) {
    const path = documentArchivePath(document);
    zip.addReadStreamLazy(path, { mtime, mode: 0o100644, compress: false, size: document.size }, (give) => {
      openDocumentFile(dataDir, document.patient_id, document.id).then(
        (file) => {
          const bytes = file.createReadStream();
          bytes.on('error', fail);
          give(null, bytes.pipe(checkedBytes(document, fail)));
        },
        (error: unknown) => fail(error as Error),
      );
    });
    files.push({ path, size: document.size, sha256: document.sha256 });
  }
  const manifest = {
    format: 'clinic-patient-export',
    format_version: 1,
    created_at: contents.createdAt,
    clinic_version: PROGRAM_VERSION,
    patient_id: contents.patient.id,
    patient_number: contents.patient.patient_number,
    files,
  };
  zip.addBuffer(json(manifest), 'manifest.json', { mtime, mode: 0o100644 });
  zip.end();
  return output;
}
