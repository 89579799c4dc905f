import { rm } from 'node:fs/promises';
import { documentFilePath } from '../../db/document-files.js';
import {
  deleteAppointmentWhole,
  deleteDocumentRow,
  deleteInvoiceWhole,
  deletePatientRow,
  forgetPurgedDocumentFile,
  listErasedPatientIds,
  listPurgedDocumentFiles,
} from '../../db/erasure.js';
import type { Db } from '../../db/open-database.js';
import { findPatient } from '../../db/patients.js';
import { appendAuditEvents } from '../audit/record-audit.js';
import { serverActor } from '../audit/system-user.js';
import { clinicTimeZone } from '../settings.js';
import type { WorkRunner } from '../use-case.js';
import { clinicDate, ERASURE_CATEGORIES, erasureItems } from './erasure-plan.js';
import { clinicRetention } from './retention-rules.js';

/** What one patient's purge took, by category. */
export interface PatientPurge {
  patient_id: string;
  patient_number: string;
  purged: Record<string, number>;
  /** Whether the patient's row went too: nothing of it is kept now but the audit trail. */
  whole: boolean;
}

/**
 * Purges, in its own transaction, each kept item of one erased patient whose `keep_until` is
 * before `today` (the day after its last day, or later); with the last of them the kept fields
 * and the row go. Records one `patient.purge` (actor system, `detail.purged` by category) when
 * anything went. Undefined when nothing was due.
 */
function purgePatient(db: Db, patientId: string, now: string): PatientPurge | undefined {
  const retention = clinicRetention(db);
  const row = findPatient(db, patientId);
  if (retention === null || row === undefined || row.erased_at === null) return undefined;
  const timeZone = clinicTimeZone(db);
  const today = clinicDate(now, timeZone);
  const items = erasureItems(db, row, retention, now, timeZone).filter(
    (item) => item.category !== 'contact' || item.decision === 'keep_until',
  );
  const kept = items.filter((item) => item.decision === 'keep_until');
  const due = kept.filter((item) => item.category !== 'contact' && item.keep_until! < today);
  if (due.length === 0) return undefined;
  const counts: Record<string, number> = {};
  const count = (category: string, n = 1) => (counts[category] = (counts[category] ?? 0) + n);
  for (const item of due) {
    if (item.kind === 'appointment') deleteAppointmentWhole(db, item.id!);
    else if (item.kind === 'document') deleteDocumentRow(db, { id: item.id!, patient_id: row.id }, now);
    else if (item.kind === 'invoice') deleteInvoiceWhole(db, item.id!);
    count(item.category);
  }
  // The kept fields and the row go with the last kept item.
  const whole = kept.every((item) => item.category === 'contact' || due.includes(item));
  if (whole) {
    const fields = kept.filter((item) => item.category === 'contact').length;
    deletePatientRow(db, row.id);
    if (fields > 0) count('contact', fields);
  }
  const purged = Object.fromEntries(ERASURE_CATEGORIES.filter((c) => counts[c] !== undefined).map((c) => [c, counts[c]!]));
  appendAuditEvents(db, serverActor(), [
    { action: 'patient.purge', patientId: row.id, patientNumber: row.patient_number, subjectId: row.id, detail: { purged } },
  ]);
  return { patient_id: row.id, patient_number: row.patient_number, purged, whole };
}

/** Deletes the files of purged documents; one that will not go stays named, for the next run and `clinic check`. */
async function deletePurgedFiles(db: Db, dataDir: string, runner: WorkRunner): Promise<number> {
  let left = 0;
  for (const file of listPurgedDocumentFiles(db)) {
    try {
      await rm(documentFilePath(dataDir, file.patient_id, file.document_id), { force: true });
      await runner.run('write', () => forgetPurgedDocumentFile(db, file.document_id));
    } catch {
      left += 1;
    }
  }
  return left;
}

/**
 * `serve`'s purge, at start and hourly (clinic-api-1.3.md, "Restriction"): every erased patient's
 * kept items whose retention has ended, one transaction per patient, then the files of the
 * purged documents. What each patient lost, and how many files are still to be deleted.
 */
export async function purgeErasedPatients(
  db: Db,
  dataDir: string,
  runner: WorkRunner,
  now: string,
): Promise<{ purges: PatientPurge[]; filesLeft: number }> {
  const purges: PatientPurge[] = [];
  for (const patientId of listErasedPatientIds(db)) {
    const purge = await runner.run('write', () => purgePatient(db, patientId, now));
    if (purge !== undefined) purges.push(purge);
  }
  return { purges, filesLeft: await deletePurgedFiles(db, dataDir, runner) };
}
