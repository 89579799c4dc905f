// src/domain/notifications/queue-notification.ts: the paid-invoice notification queued with its payment (decisions.md §7).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findInvoice } from '../../../src/db/invoices.js';
import type { Db } from '../../../src/db/open-database.js';
import { queuePaidInvoiceNotification } from '../../../src/domain/notifications/queue-notification.js';
import { ERASE_PATIENT } from '../../../src/domain/retention/erase-patient.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicContactRule } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { createTestInvoice, createTestPatient, type PatientBody } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { DESK_USER } from '../../helpers/use-case-scenarios.js';

// "Your invoice is paid" queued in the payment's transaction (decisions.md §7): by email when the
// patient has one, else by SMS to their mobile; a row that says why when they have neither
// (clinic-api-1.3.md, "Patients without e-mail"); nothing for an erased patient ("Restriction").

const PAID_AT = '2026-11-30T09:15:00.000Z';

/** Queues the notification of an invoice of a new patient with `contact`, in a transaction as a payment does; returns the outbox. */
function queueFor(db: Db, contact: PatientBody): Record<string, unknown>[] {
  const patient = createTestPatient(db, contact);
  const invoice = findInvoice(db, createTestInvoice(db, { patient_id: patient.id }).id)!;
  db.transaction(() => queuePaidInvoiceNotification(db, invoice, PAID_AT))();
  return db.prepare('SELECT * FROM notification_outbox WHERE patient_id = ?').all(patient.id) as Record<string, unknown>[];
}

describe('queuing a paid invoice notification', () => {
  const data = useTestDatabase({ each: true });

  it('writes to the patient by email when they have one, to be sent at once', () => {
    const [row, ...more] = queueFor(data.db, { email: 'ada@example.org', mobile: '+43 660 1234567' });
    assert.deepEqual(more, []);
    assert.deepEqual(
      [row?.channel, row?.recipient, row?.status, row?.attempts, row?.next_attempt_at, row?.created_at, row?.last_error, row?.sent_at],
      ['email', 'ada@example.org', 'pending', 0, PAID_AT, PAID_AT, null, null],
    );
  });

  it('sends an SMS to the mobile of a patient without email', () => {
    setClinicContactRule(data.db, 'email-or-mobile');
    const [row] = queueFor(data.db, { email: null, mobile: '+43 660 1234567' });
    assert.deepEqual([row?.channel, row?.recipient, row?.status], ['sms', '+43 660 1234567', 'pending']);
  });

  it('queues a failed row saying why for a patient who can be reached neither way, for `notifications list` to show', () => {
    setClinicContactRule(data.db, 'none');
    const [row] = queueFor(data.db, { email: null, mobile: null });
    assert.deepEqual(
      [row?.channel, row?.recipient, row?.status, row?.last_error],
      ['sms', null, 'failed', 'the patient has neither an email address nor a mobile number'],
    );
  });

  it('queues nothing for an erased patient, whose kept invoice is still paid off', () => {
    setClinicRetention(data.db, 'AT', undefined);
    const invoice = createTestInvoice(data.db);
    performUseCase(ERASE_PATIENT, data.db, { path: { patient_id: invoice.patient_id }, body: { dry_run: false } }, DESK_USER);
    const kept = findInvoice(data.db, invoice.id);
    assert.ok(kept !== undefined, 'the invoice is kept under the billing rule');
    data.db.transaction(() => queuePaidInvoiceNotification(data.db, kept, PAID_AT))();
    assert.deepEqual(data.db.prepare('SELECT * FROM notification_outbox').all(), []);
  });
});
