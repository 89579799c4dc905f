import { insertChangeEvent } from '../../db/change-events.js';
import type { Db } from '../../db/open-database.js';
import { nowIso } from '../clock.js';
import type { ChangeRecord } from './change-event.js';

/**
 * Appends one event per change to the change feed. Must run inside the transaction of the change
 * itself, after its first write (so the write lock is held): the event commits, or vanishes, with
 * it, and its seq, the largest + 1, follows the order in which changes commit.
 */
export function appendChangeEvents(db: Db, records: readonly ChangeRecord[]): void {
  if (records.length === 0) return;
  if (!db.inTransaction) throw new Error('change events are appended inside the transaction of the change');
  const occurredAt = nowIso();
  for (const record of records) {
    insertChangeEvent(db, { type: record.type, occurred_at: occurredAt, patient_id: record.patientId, data: JSON.stringify(record.data) });
  }
}
