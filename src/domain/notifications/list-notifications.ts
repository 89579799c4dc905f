import { listNotificationRows, type NotificationRow } from '../../db/notifications.js';
import type { Db } from '../../db/open-database.js';
import type { PatientNameRow } from '../../db/patient-names.js';
import { NOTIFICATION_QUERY_FIELDS } from '../../fields/notification-fields.js';
import { perDistinctPatient } from '../audit/record-audit.js';
import { readDeskContext, type DeskContext } from '../desk/desk-context.js';
import { invoiceNumbers, patientNames } from '../desk/desk-records.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { ROLE_ROWS } from '../people/roles.js';

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

/** The outbox as `notifications list --json` prints it, and what its printout shows instead of ids. */
export interface NotificationList {
  notifications: Notification[];
  /** The number and name of each patient the rows name. */
  patients: ReadonlyMap<string, PatientNameRow>;
  /** The number of each invoice the rows name. */
  invoiceNumbers: ReadonlyMap<string, string>;
  context: DeskContext;
}

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

/**
 * `clinic notifications list`: the notification outbox, oldest first, optionally only the rows in
 * one status, with the number and name of each patient and the number of each invoice it names,
 * so that people read no ids. Each row is a patient's invoice being paid, so the list records one
 * invoice.read per patient it shows, as GET /invoices does (no subject: it is a list).
 */
export const LIST_NOTIFICATIONS = defineUseCase({
  roles: ROLE_ROWS.readInvoices,
  summary: 'List the patient notifications (the outbox) and how their delivery went, oldest first',
  input: { query: NOTIFICATION_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  run(db, { query }): NotificationList {
    const notifications = listNotificationRows(db, query.status).map(presentNotification);
    return {
      notifications,
      patients: patientNames(
        db,
        notifications.map((notification) => notification.patient_id),
      ),
      invoiceNumbers: invoiceNumbers(
        db,
        notifications.map((notification) => notification.invoice_id),
      ),
      context: readDeskContext(db),
    };
  },
  audit: ({ notifications }) => perDistinctPatient(notifications, (notification) => notification.patient_id, { action: 'invoice.read' }),
});

/** LIST_NOTIFICATIONS's rows on a connection of its own, recording nothing. */
export function listNotifications(db: Db, query: { status?: unknown } = {}): Notification[] {
  return performUseCase(LIST_NOTIFICATIONS, db, { query }, { source: 'cli', actor: null }).notifications;
}
