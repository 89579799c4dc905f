import {
  clearPatientColumns,
  deleteAppointmentWhole,
  deletePatientIdempotentAnswers,
  deletePatientMessages,
  deletePatientRow,
  emptyPatientFeedData,
  markPatientErased,
} from '../../db/erasure.js';
import type { Db } from '../../db/open-database.js';
import { findPatient, type PatientRow } from '../../db/patients.js';
import { field } from '../../fields/field-spec.js';
import { PATIENT_PATH_FIELDS } from '../../fields/patient-fields.js';
import { errors } from '../../errors.js';
import { nowIso } from '../clock.js';
import { ROLE_ROWS } from '../people/roles.js';
import { clinicTimeZone } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { ERASED_COLUMNS, ERASURE_CATEGORIES, erasureItems, erasureSummary, type ErasureGroup, type ErasureItem } from './erasure-plan.js';
import { clinicRetention, type Retention } from './retention-rules.js';

/** What `clinic patient erase` prints with --json (clinic-api-1.3.md, "Erasure"). */
export interface ErasureResult {
  patient_id: string;
  patient_number: string;
  country: string;
  records_years: number;
  dry_run: boolean;
  erased_at: string | null;
  summary: ErasureGroup[];
  items: ErasureItem[];
  /** What this run erased, by category (none for a dry run or a repeat): the audit event's detail. */
  erased: Record<string, number> | null;
  /** The patient's name as it stood, for the desk's printout (not in --json: the row may be gone). */
  patient_name: string;
}

/** What `--json` prints: the specification's shape. */
export function erasureJson({
  erased: _erased,
  patient_name: _name,
  ...shown
}: ErasureResult): Omit<ErasureResult, 'erased' | 'patient_name'> {
  return shown;
}

/** The retention the erasure follows: 422 SETTING_REQUIRED (`retention`) before one is set. */
export function requiredRetention(db: Db): Retention {
  const retention = clinicRetention(db);
  if (retention === null) throw errors.settingRequired('retention');
  return retention;
}

/** What each category loses now, by category, in the table's order; only those with some. */
function erasedCounts(summary: readonly ErasureGroup[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const group of summary) {
    if (group.decision === 'erase_now') counts[group.category] = (counts[group.category] ?? 0) + group.count;
  }
  return Object.fromEntries(ERASURE_CATEGORIES.filter((category) => counts[category] !== undefined).map((c) => [c, counts[c]!]));
}

/**
 * Carries out `items` in the caller's transaction: the erasable fields cleared and the patient
 * restricted; the appointments not held, the reminders, replies and notifications deleted; the
 * feed's events emptied of their data; the stored answers that name the patient deleted. When
 * nothing is kept but the audit trail, the row goes too (its number is never reused).
 */
function applyErasure(db: Db, row: PatientRow, items: readonly ErasureItem[], at: string): void {
  const keepsSomething = items.some((item) => item.decision === 'keep_until');
  const erasedFields = items.filter((item) => item.category === 'contact' && item.decision === 'erase_now').map((item) => item.id!);
  clearPatientColumns(
    db,
    row.id,
    Object.fromEntries(erasedFields.filter((name) => name in ERASED_COLUMNS).map((name) => [name, ERASED_COLUMNS[name]])),
  );
  markPatientErased(db, row.id, at);
  for (const item of items) {
    if (item.category === 'appointments' && item.decision === 'erase_now') deleteAppointmentWhole(db, item.id!);
  }
  deletePatientMessages(db, row.id);
  emptyPatientFeedData(db, row.id);
  deletePatientIdempotentAnswers(db, row);
  if (!keepsSomething) deletePatientRow(db, row.id);
}

/**
 * `clinic patient erase REF --dry-run|--confirm` (GDPR Art. 17, 18): the specification's table
 * applied under the clinic's retention, in one transaction. Desk only: erasure is rare,
 * irreversible and deletes files, so no API operation offers it. A repeat changes and records
 * nothing: the patient erased before is shown as it now stands.
 */
export const ERASE_PATIENT = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Erase a patient's data as far as the retention rules allow (GDPR Art. 17)",
  input: {
    path: PATIENT_PATH_FIELDS,
    body: [field.boolean('dry_run', { required: true, description: 'true: show what would be erased and kept, change nothing' })] as const,
  },
  refusals: [errors.patientNotFound(404), errors.settingRequired('retention')],
  access: 'write',
  // A repeat names an erased patient, and changes nothing.
  changesRestricted: true,
  run(db, { path, body }): ErasureResult {
    const retention = requiredRetention(db);
    const row = findPatient(db, path.patient_id);
    if (!row) throw errors.patientNotFound();
    const now = nowIso();
    const items = erasureItems(db, row, retention, now, clinicTimeZone(db));
    // Read before the erasure changes what it counts (the feed's events with data).
    const summary = erasureSummary(db, row.id, items);
    const result = (erasedAt: string | null, erased: Record<string, number> | null): ErasureResult => ({
      patient_id: row.id,
      patient_number: row.patient_number,
      country: retention.country,
      records_years: retention.records_years,
      dry_run: body.dry_run,
      erased_at: erasedAt,
      summary,
      items,
      erased,
      patient_name: `${String(row.first_name)} ${String(row.last_name)}`,
    });
    if (body.dry_run || row.erased_at !== null) return result(row.erased_at, null);
    const shown = result(now, erasedCounts(summary));
    applyErasure(db, row, items, now);
    return shown;
  },
  audit: (result) =>
    result.erased === null
      ? []
      : [
          {
            action: 'patient.erase',
            patientId: result.patient_id,
            patientNumber: result.patient_number,
            subjectId: result.patient_id,
            detail: { erased: result.erased },
          },
        ],
  changes: (result) => (result.erased === null ? [] : [{ type: 'patient.erased', patientId: result.patient_id, data: {} }]),
});
