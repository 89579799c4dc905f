import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { documentFilePath } from '../../db/document-files.js';
import { PATIENT_PATH_FIELDS } from '../../fields/patient-fields.js';
import { errors } from '../../errors.js';
import { nowIso } from '../clock.js';
import { ROLE_ROWS } from '../people/roles.js';
import { clinicDate } from '../retention/erasure-plan.js';
import { defineUseCase } from '../use-case.js';
import { patientExportArchive } from './export-archive.js';
import { readPatientExport, type PatientExportContents } from './export-contents.js';

/** A patient's copy, read and ready to be streamed: its file name and its records. */
export interface PatientExport {
  contents: PatientExportContents;
  /** `P-000042-2026-11-30.zip`: the patient's number and the clinic's day it was made. */
  filename: string;
}

/**
 * The patient's copy (GDPR Art. 15, 20; clinic-api-1.3.md, "The patient's copy"): every record
 * read in one transaction; 404 PATIENT_NOT_FOUND. Its `patient.export` is recorded when the copy
 * is delivered (`openPatientExport` found every document's file), before its first byte.
 */
export const EXPORT_PATIENT = defineUseCase({
  roles: ROLE_ROWS.exportPatients,
  summary: "A patient's copy of their data",
  input: { path: PATIENT_PATH_FIELDS },
  refusals: [errors.patientNotFound(404)],
  access: 'read',
  run(db, { path }): PatientExport {
    const contents = readPatientExport(db, path.patient_id, nowIso());
    const day = clinicDate(contents.createdAt, contents.clinic.timeZone);
    return { contents, filename: `${contents.patient.patient_number}-${day}.zip` };
  },
  audit: ({ contents }) => [{ action: 'patient.export', patientId: contents.patient.id, subjectId: contents.patient.id }],
  recorded: 'delivery',
});

/**
 * Checks that each document's file is there at its recorded size (else 500 STORAGE_FAILED, as a
 * download of a missing file is), then records the export (`recordExport`), then starts the
 * archive: nothing is streamed of a copy that could not be whole, or that the trail does not hold.
 */
export async function openPatientExport(dataDir: string, exported: PatientExport, recordExport: () => Promise<void>): Promise<Readable> {
  for (const document of exported.contents.documentRows) {
    const found = await stat(documentFilePath(dataDir, document.patient_id, document.id)).catch(() => undefined);
    if (found === undefined || !found.isFile() || found.size !== document.size) throw errors.storageFailed();
  }
  await recordExport();
  return patientExportArchive(dataDir, exported.contents);
}
