// The outbox of patient notifications (decisions.md §7, "Notifications"; clinic-public-api.md: "the
// patient is notified"): which row a delivery worker takes, how it is leased so no two workers send
// it, and what a delivery, a retry or giving up leaves in it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  claimDueNotification,
  insertNotification,
  listNotificationRows,
  markNotificationFailed,
  markNotificationSent,
  scheduleNotificationRetry,
  type NotificationRow,
} from '../../src/db/notifications.js';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import type { NotificationChannel } from '../../src/fields/notification-fields.js';
import { createTestInvoice } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

const NOW = '2026-11-30T10:00:00.000Z';
const LEASE_END = '2026-11-30T10:02:00.000Z';

/** Queues a pending notification of `channel`, due at `dueAt`, for a new invoice's patient; returns its id. */
function queue(db: Db, channel: NotificationChannel, dueAt: string): string {
  const invoice = createTestInvoice(db);
  const row: NotificationRow = {
    id: randomUUID(),
    patient_id: invoice.patient_id,
    invoice_id: invoice.id,
    channel,
    recipient: channel === 'email' ? 'ada@example.org' : '+436601234567',
    status: 'pending',
    attempts: 0,
    next_attempt_at: dueAt,
    last_error: null,
    created_at: '2026-11-30T09:00:00.000Z',
    sent_at: null,
  };
  insertNotification(db, row);
  return row.id;
}

/** The row a worker of `channel` claims at `now` in its read-then-write transaction, leased for two minutes. */
function claim(db: Db, channel: NotificationChannel, now = NOW, sendingNote: string | null = null) {
  const leaseUntil = new Date(Date.parse(now) + 2 * 60_000).toISOString();
  return db.transaction(() => claimDueNotification(db, { channel, now, leaseUntil, sendingNote })).immediate();
}

describe('the notification outbox (db)', () => {
  const data = useTestDatabase({ each: true });

  it('takes the most overdue pending row of the channel due by now, its due instant included, counting the attempt and leasing it', () => {
    const later = queue(data.db, 'email', '2026-11-30T09:30:00.000Z');
    const overdue = queue(data.db, 'email', '2026-11-30T09:00:00.000Z');
    const dueNow = queue(data.db, 'email', NOW);
    queue(data.db, 'email', '2026-11-30T10:00:00.001Z');
    queue(data.db, 'sms', '2026-11-30T08:00:00.000Z');
    const taken = [claim(data.db, 'email'), claim(data.db, 'email'), claim(data.db, 'email'), claim(data.db, 'email')];
    assert.deepEqual(
      taken.map((claimed) => claimed?.row.id),
      [overdue, later, dueNow, undefined],
    );
    assert.deepEqual(
      [taken[0]!.row.attempts, taken[0]!.row.next_attempt_at, taken[0]!.row.status, taken[0]!.previousError],
      [1, LEASE_END, 'pending', null],
    );
  });

  it('refuses to claim outside a read-then-write transaction', () => {
    queue(data.db, 'email', NOW);
    assert.throws(
      () => claimDueNotification(data.db, { channel: 'email', now: NOW, leaseUntil: LEASE_END, sendingNote: null }),
      /inside a read-then-write transaction/,
    );
    assert.equal(listNotificationRows(data.db)[0]?.attempts, 0);
  });

  it('never gives two workers on one database the same row; a worker that died leaves it to be taken again once its lease ends', () => {
    const id = queue(data.db, 'sms', NOW);
    const second = openDatabase(data.dataDir);
    try {
      assert.equal(claim(data.db, 'sms', NOW, 'sending')?.row.id, id);
      assert.equal(claim(second, 'sms', NOW), undefined);
      assert.equal(claim(second, 'sms', '2026-11-30T10:01:59.999Z'), undefined);
      // The first worker died mid-send: the note it left says so to whoever takes the row next.
      const again = claim(second, 'sms', LEASE_END);
      assert.deepEqual([again?.row.id, again?.row.attempts, again?.previousError], [id, 2, 'sending']);
    } finally {
      second.close();
    }
  });

  it('keeps the last error while a row is sent without a note, and clears it once delivered', () => {
    const id = queue(data.db, 'email', NOW);
    scheduleNotificationRetry(data.db, id, NOW, 'SMTP 451: try again later');
    const claimed = claim(data.db, 'email');
    assert.deepEqual([claimed?.previousError, claimed?.row.last_error], ['SMTP 451: try again later', 'SMTP 451: try again later']);
    markNotificationSent(data.db, id, '2026-11-30T10:00:05.000Z');
    const [sent] = listNotificationRows(data.db, 'sent');
    assert.deepEqual([sent?.id, sent?.sent_at, sent?.last_error, sent?.attempts], [id, '2026-11-30T10:00:05.000Z', null, 1]);
    assert.equal(claim(data.db, 'email', '2027-01-01T00:00:00.000Z'), undefined, 'a delivered row is never sent again');
  });

  it('leaves a retried row pending until its next attempt, and a row given up on failed for good', () => {
    const retried = queue(data.db, 'email', NOW);
    const failed = queue(data.db, 'email', NOW);
    scheduleNotificationRetry(data.db, retried, '2026-11-30T10:05:00.000Z', 'connection refused');
    markNotificationFailed(data.db, failed, 'mailbox unavailable');
    assert.equal(claim(data.db, 'email', '2026-11-30T10:04:59.999Z'), undefined);
    assert.equal(claim(data.db, 'email', '2026-11-30T10:05:00.000Z')?.row.id, retried);
    assert.deepEqual(
      listNotificationRows(data.db, 'failed').map((row) => [row.id, row.last_error, row.attempts]),
      [[failed, 'mailbox unavailable', 0]],
    );
    assert.equal(claim(data.db, 'email', '2027-01-01T00:00:00.000Z')?.row.id, retried, 'the failed row is never taken');
    assert.equal(claim(data.db, 'email', '2027-01-01T00:00:00.000Z'), undefined);
  });

  it('lists every row oldest first, or those of one status', () => {
    const ids = [queue(data.db, 'sms', NOW), queue(data.db, 'email', NOW), queue(data.db, 'email', NOW)];
    markNotificationSent(data.db, ids[1]!, NOW);
    assert.deepEqual(
      listNotificationRows(data.db).map((row) => row.id),
      ids,
    );
    assert.deepEqual(
      listNotificationRows(data.db, 'pending').map((row) => row.id),
      [ids[0], ids[2]],
    );
    assert.deepEqual(listNotificationRows(data.db, 'failed'), []);
  });
});
