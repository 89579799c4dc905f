import type { NotificationChannel, NotificationStatus } from '../fields/notification-fields.js';
import { preparedFor, type Db } from './open-database.js';

/** A `notification_outbox` row. */
export interface NotificationRow {
  id: string;
  patient_id: string;
  invoice_id: string;
  channel: NotificationChannel;
  recipient: string | null;
  status: NotificationStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

const COLUMNS = 'id, patient_id, invoice_id, channel, recipient, status, attempts, next_attempt_at, last_error, created_at, sent_at';

const statements = preparedFor((db) => ({
  insert: db.prepare<NotificationRow>(
    `INSERT INTO notification_outbox (${COLUMNS})
     VALUES (@id, @patient_id, @invoice_id, @channel, @recipient, @status, @attempts, @next_attempt_at, @last_error,
             @created_at, @sent_at)`,
  ),
  dueId: db.prepare<{ channel: NotificationChannel; now: string }, { id: string; last_error: string | null }>(
    `SELECT id, last_error FROM notification_outbox
     WHERE status = 'pending' AND channel = @channel AND next_attempt_at <= @now
     ORDER BY next_attempt_at LIMIT 1`,
  ),
  lease: db.prepare<{ id: string; lease_until: string; sending_note: string | null }>(
    `UPDATE notification_outbox SET attempts = attempts + 1, next_attempt_at = @lease_until,
            last_error = COALESCE(@sending_note, last_error) WHERE id = @id`,
  ),
  byId: db.prepare<[string], NotificationRow>(`SELECT ${COLUMNS} FROM notification_outbox WHERE id = ?`),
  markSent: db.prepare<{ id: string; sent_at: string }>(
    `UPDATE notification_outbox SET status = 'sent', sent_at = @sent_at, last_error = NULL WHERE id = @id`,
  ),
  scheduleRetry: db.prepare<{ id: string; next_attempt_at: string; last_error: string }>(
    `UPDATE notification_outbox SET next_attempt_at = @next_attempt_at, last_error = @last_error WHERE id = @id`,
  ),
  markFailed: db.prepare<{ id: string; last_error: string }>(
    `UPDATE notification_outbox SET status = 'failed', last_error = @last_error WHERE id = @id`,
  ),
  all: db.prepare<[], NotificationRow>(`SELECT ${COLUMNS} FROM notification_outbox ORDER BY seq`),
  byStatus: db.prepare<[NotificationStatus], NotificationRow>(`SELECT ${COLUMNS} FROM notification_outbox WHERE status = ? ORDER BY seq`),
}));

/** Queues a notification. */
export function insertNotification(db: Db, row: NotificationRow): void {
  statements(db).insert.run(row);
}

/**
 * Takes the most overdue pending row of `channel` due at `now`, counting the attempt and leasing
 * the row until `leaseUntil`; undefined when none is due. The caller runs it as a read-then-write
 * (BEGIN IMMEDIATE), so that find, lease and read back see no other connection's write: two
 * workers on one database can never take the same row, since the winner pushes next_attempt_at
 * past `now` before anyone else can look. A worker that dies mid-send leaves the row to be retried
 * once the lease ends. `sendingNote`, when given, stands in last_error while the row is sent: a row
 * found again with it was cut off mid-send (`previousError` says so).
 */
export function claimDueNotification(
  db: Db,
  claim: { channel: NotificationChannel; now: string; leaseUntil: string; sendingNote: string | null },
): { row: NotificationRow; previousError: string | null } | undefined {
  if (!db.inTransaction) throw new Error('a notification is claimed inside a read-then-write transaction');
  const { dueId, lease, byId } = statements(db);
  const due = dueId.get({ channel: claim.channel, now: claim.now });
  if (due === undefined) return undefined;
  lease.run({ id: due.id, lease_until: claim.leaseUntil, sending_note: claim.sendingNote });
  return { row: byId.get(due.id)!, previousError: due.last_error };
}

/** Records a delivery. */
export function markNotificationSent(db: Db, id: string, sentAt: string): void {
  statements(db).markSent.run({ id, sent_at: sentAt });
}

/** Leaves a row pending for another attempt at `nextAttemptAt`, noting why this one failed. */
export function scheduleNotificationRetry(db: Db, id: string, nextAttemptAt: string, lastError: string): void {
  statements(db).scheduleRetry.run({ id, next_attempt_at: nextAttemptAt, last_error: lastError });
}

/** Gives up on a row. */
export function markNotificationFailed(db: Db, id: string, lastError: string): void {
  statements(db).markFailed.run({ id, last_error: lastError });
}

/** Every notification, or those in `status`, oldest first. */
export function listNotificationRows(db: Db, status?: NotificationStatus): NotificationRow[] {
  return status === undefined ? statements(db).all.all() : statements(db).byStatus.all(status);
}
