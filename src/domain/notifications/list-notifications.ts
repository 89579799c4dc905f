import { listNotificationRows, type NotificationRow } from '../../db/notifications.js';
import type { Db } from '../../db/open-database.js';
import { NOTIFICATION_QUERY_FIELDS, type NotificationStatus } from '../../fields/notification-fields.js';
import { fieldsValidator, throwIfIssues } from '../validation/validate.js';

/**
 * A notification as `clinic notifications list` shows it (decisions.md §8). The recipient's
 * address is left out: the ids lead to it for those allowed to see patient data.
 */
export interface Notification {
  id: string;
  patient_id: string;
  invoice_id: string;
  channel: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

const listQuery = fieldsValidator(NOTIFICATION_QUERY_FIELDS, 'query');

function presentNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    patient_id: row.patient_id,
    invoice_id: row.invoice_id,
    channel: row.channel,
    status: row.status,
    attempts: row.attempts,
    // Only a pending row will be attempted again.
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_error: row.last_error,
    created_at: row.created_at,
    sent_at: row.sent_at,
  };
}

/** The notification outbox, oldest first, optionally only the rows in one status. */
export function listNotifications(db: Db, query: { status?: unknown } = {}): Notification[] {
  throwIfIssues(listQuery.issues(query));
  return listNotificationRows(db, query.status as NotificationStatus | undefined).map(presentNotification);
}
