import { insertAuditEvents, lastAuditEvent, patientNumberOf, type AuditEventRow } from '../../db/audit-events.js';
import type { Db } from '../../db/open-database.js';
import { nowIso } from '../clock.js';
import type { WorkRunner } from '../use-case-context.js';
import { canonicalJson, eventHash, FIRST_PREV_HASH, subjectTypeOf, type Actor, type AuditRecord } from './audit-event.js';

/**
 * Appends one event per record to the audit trail, each chained to the one before. Must run
 * inside the transaction of what it records (a write's own, or the read's), which must hold the
 * write lock before it reads the last event: so two connections can never give out the same
 * `seq`, and events commit, or vanish, with what they record.
 */
export function appendAuditEvents(db: Db, actor: Actor, records: readonly AuditRecord[]): void {
  if (records.length === 0) return;
  if (!db.inTransaction) throw new Error('audit events are appended inside the transaction of what they record');
  const at = nowIso();
  const head = lastAuditEvent(db);
  let last = head ?? { seq: 0, hash: FIRST_PREV_HASH };
  const rows: AuditEventRow[] = [];
  for (const record of records) {
    const event = {
      seq: last.seq + 1,
      at,
      action: record.action,
      patient_id: record.patientId,
      patient_number: record.patientId === null ? null : (record.patientNumber ?? patientNumberOf(db, record.patientId) ?? null),
      subject_type: subjectTypeOf(record.action),
      subject_id: record.subjectId,
      actor_type: actor.type,
      actor_id: actor.id,
      actor_name: actor.name,
      source: actor.source,
      request_id: actor.requestId,
      detail: record.detail ?? null,
      prev_hash: last.hash,
    };
    const hash = eventHash(event);
    rows.push({ ...event, detail: event.detail === null ? null : canonicalJson(event.detail), hash });
    last = { seq: event.seq, hash };
  }
  insertAuditEvents(db, head, rows);
}

/** One record per distinct patient of `items`, in the order they first appear (a list read); an item of no patient records nothing. */
export function perDistinctPatient<T>(
  items: readonly T[],
  patientIdOf: (item: T) => string | null,
  record: Omit<AuditRecord, 'patientId' | 'subjectId'>,
): AuditRecord[] {
  const seen = new Set<string>();
  const records: AuditRecord[] = [];
  for (const item of items) {
    const patientId = patientIdOf(item);
    if (patientId === null || seen.has(patientId)) continue;
    seen.add(patientId);
    records.push({ ...record, patientId, subjectId: null });
  }
  return records;
}

/** The one record of an action on one record of a patient; none when it belongs to no patient (an appointment blocking a doctor's time). */
export function onRecordOf(action: AuditRecord['action'], patientId: string | null, subjectId: string): AuditRecord[] {
  return patientId === null ? [] : [{ action, patientId, subjectId }];
}

/** A backup written (`clinic backup`, a scheduled one): one event, no patient. */
export const DATA_EXPORT: AuditRecord = { action: 'data.export', patientId: null, subjectId: null };
/** A backup restored: one event, appended to the restored trail. */
export const DATA_IMPORT: AuditRecord = { action: 'data.import', patientId: null, subjectId: null };

/** Records a backup written, through the front end's runner (the server's commit groups, or a connection of its own). */
export async function recordDataExport(runner: WorkRunner, db: Db, actor: Actor): Promise<void> {
  await runner.run('read-then-write', () => appendAuditEvents(db, actor, [DATA_EXPORT]));
}
