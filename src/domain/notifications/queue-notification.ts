import type { InvoiceRow } from '../../db/invoices.js';
import { insertNotification, type NotificationRow } from '../../db/notifications.js';
import type { Db } from '../../db/open-database.js';
import { findPatientContact } from '../../db/patients.js';
import { newId } from '../clock.js';

const present = (text: string | null | undefined) => (text?.trim() ? text.trim() : null);

/**
 * Queues "your invoice is paid" for the invoice's patient: by email when they have one, else by
 * SMS to their mobile (decisions.md §7). Called inside the payment's transaction, so the
 * notification exists if and only if the payment that paid the invoice does. A patient with
 * no contact at all (registered while the clinic's contact rule was `none`) gets a failed row
 * saying so, which `clinic notifications list` shows. An erased patient gets none.
 */
export function queuePaidInvoiceNotification(db: Db, invoice: InvoiceRow, now: string): void {
  const contact = findPatientContact(db, invoice.patient_id);
  // An erased patient (1.3.0) is sent nothing, and the desk's list would name them.
  if (contact?.erased_at !== null && contact?.erased_at !== undefined) return;
  const email = present(contact?.email);
  const recipient = email ?? present(contact?.mobile);
  const row: NotificationRow = {
    id: newId(),
    patient_id: invoice.patient_id,
    invoice_id: invoice.id,
    channel: email === null ? 'sms' : 'email',
    recipient,
    status: recipient === null ? 'failed' : 'pending',
    attempts: 0,
    next_attempt_at: now,
    last_error: recipient === null ? 'the patient has neither an email address nor a mobile number' : null,
    created_at: now,
    sent_at: null,
  };
  insertNotification(db, row);
}
