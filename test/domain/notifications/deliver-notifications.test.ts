import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimDueNotification, listNotificationRows, type NotificationRow } from '../../../src/db/notifications.js';
import { ValidationError } from '../../../src/errors.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import type { Invoice } from '../../../src/domain/invoices/present-invoice.js';
import {
  DEFAULT_RETRY_POLICY,
  SMS_SENDING,
  deliverDueNotifications,
  retryDelayMs,
  type Mailer,
  type RetryPolicy,
} from '../../../src/domain/notifications/deliver-notifications.js';
import { listNotifications } from '../../../src/domain/notifications/list-notifications.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { startDeliveryWorker } from '../../../src/server/workers/notification-worker.js';
import { connectionRunner } from '../../../src/domain/use-case.js';
import { createSmtpMailer } from '../../../src/adapters/smtp-mailer.js';
import { silentLogger } from '../../../src/logger.js';
import { sendSms } from '../../../src/adapters/sms-gateway-client.js';
import { writeSmsGateway } from '../../../src/domain/reminders/sms-gateway.js';
import { setClinicCountry } from '../../../src/domain/settings.js';
import { startGateway } from '../../helpers/local-sms-gateway.js';
import { genericSmsGateway } from '../../helpers/sms-gateways.js';
import { buildInvoice, buildPatient, buildPayment } from '../../helpers/builders.js';
import { closedPort, startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

describe('notification delivery', () => {
  const data = useTestDatabase();
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
  });
  after(async () => {
    await smtp.close();
  });

  /** Pays a new invoice of a new patient in full, which queues its notification. */
  function paidInvoice(
    patient: Record<string, unknown> = {},
    { withoutEmail = false } = {},
  ): { invoice: Invoice; notification: NotificationRow } {
    const patientId = createPatient(data.db, buildPatient(patient)).id;
    // The API insists on an email; a patient without one (imported, say) can only be made by hand.
    if (withoutEmail) data.db.prepare('UPDATE patients SET email = NULL WHERE id = ?').run(patientId);
    const invoice = createInvoice(data.db, buildInvoice(patientId, { total: '42.00' }));
    recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment({ amount: '42.00' }) });
    const notification = listNotificationRows(data.db).find((n) => n.invoice_id === invoice.id)!;
    return { invoice, notification };
  }
  const rowOf = (id: string) => listNotificationRows(data.db).find((n) => n.id === id)!;
  /** Leaves only this row due, so a pass touches nothing else. */
  const onlyDue = (id: string) =>
    data.db
      .prepare(
        `UPDATE notification_outbox SET next_attempt_at = CASE WHEN id = ? THEN '2000-01-01T00:00:00.000Z' ELSE '9999-01-01T00:00:00.000Z' END`,
      )
      .run(id);

  it('delivers a pending email through SMTP, naming the invoice and nothing more sensitive', async () => {
    const { invoice, notification } = paidInvoice({ first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.org' });
    onlyDue(notification.id);
    const outcomes = await deliverDueNotifications(data.db, connectionRunner(data.db), {
      mailer: createSmtpMailer(smtp.url, 'clinic@example.org'),
      sendSms: null,
    });
    assert.deepEqual(outcomes, [{ notification_id: notification.id, outcome: 'sent', attempts: 1 }]);
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail?.from, 'clinic@example.org');
    assert.deepEqual(mail?.to, ['grace@example.org']);
    assert.match(mail?.raw ?? '', new RegExp(`^Subject: Invoice ${invoice.invoice_number} is paid\\r?$`, 'm'));
    assert.match(mail?.raw ?? '', new RegExp(`invoice ${invoice.invoice_number} is now paid in full`));
    for (const secret of ['Grace', 'Hopper', '42'])
      assert.ok(
        !mail?.raw
          .split(/\r?\n\r?\n/)
          .slice(1)
          .join('')
          .includes(secret),
        secret,
      );
    const row = rowOf(notification.id);
    assert.deepEqual([row.status, row.attempts, row.last_error], ['sent', 1, null]);
    assert.ok(row.sent_at !== null);
  });

  it('leaves the row pending with the attempt counted and a later retry when the SMTP server is unreachable', async () => {
    const { notification } = paidInvoice();
    onlyDue(notification.id);
    const started = Date.now();
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${await closedPort()}`, 'clinic@example.org');
    const [outcome] = await deliverDueNotifications(data.db, connectionRunner(data.db), { mailer, sendSms: null });
    assert.equal(outcome?.outcome, 'retry');
    const row = rowOf(notification.id);
    assert.deepEqual([row.status, row.attempts, row.sent_at], ['pending', 1, null]);
    assert.match(row.last_error ?? '', /ECONNREFUSED|connect/i);
    const wait = Date.parse(row.next_attempt_at) - started;
    assert.ok(wait >= DEFAULT_RETRY_POLICY.firstDelayMs - 1000 && wait <= DEFAULT_RETRY_POLICY.firstDelayMs + 5000, `waits ${wait} ms`);
    // Not due again yet: a second pass leaves it alone.
    assert.deepEqual(await deliverDueNotifications(data.db, connectionRunner(data.db), { mailer, sendSms: null }), []);
    assert.equal(rowOf(notification.id).attempts, 1);
  });

  it('backs off exponentially and marks the row failed after the last attempt', async () => {
    const { notification } = paidInvoice();
    onlyDue(notification.id);
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 };
    const failing: Mailer = { send: () => Promise.reject(new Error('550 mailbox unavailable')) };
    let clock = Date.now();
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [outcome] = await deliverDueNotifications(
        data.db,
        connectionRunner(data.db),
        { mailer: failing, sendSms: null },
        policy,
        () => clock,
      );
      assert.equal(outcome?.outcome, attempt < 3 ? 'retry' : 'failed');
      const row = rowOf(notification.id);
      assert.equal(row.attempts, attempt);
      if (attempt < 3) waits.push(Date.parse(row.next_attempt_at) - clock);
      clock = Date.parse(row.next_attempt_at) + 1;
    }
    assert.deepEqual(waits, [30_000, 60_000]);
    const row = rowOf(notification.id);
    assert.deepEqual([row.status, row.last_error], ['failed', '550 mailbox unavailable']);
  });

  it('doubles the wait from 30 s up to an hour', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 8, 9, 20].map((attempts) => retryDelayMs(DEFAULT_RETRY_POLICY, attempts)),
      [30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000, 3_600_000],
    );
  });

  it("leaves SMS rows pending without a gateway, and sends them through the clinic's gateway once one is set", async () => {
    const { invoice, notification } = paidInvoice({ mobile: '0664 123 45 67' }, { withoutEmail: true });
    assert.equal(notification.channel, 'sms');
    onlyDue(notification.id);
    const channels = { mailer: { send: () => assert.fail('no SMS by email') }, sendSms };
    assert.deepEqual(await deliverDueNotifications(data.db, connectionRunner(data.db), channels), [], 'no gateway yet');
    assert.deepEqual([rowOf(notification.id).status, rowOf(notification.id).attempts], ['pending', 0]);
    const gateway = await startGateway();
    try {
      setClinicCountry(data.db, 'AT');
      writeSmsGateway(data.db, {
        preset: 'generic',
        url: `${gateway.url}/send`,
        headers: [],
        bodyTemplate: '{"to":"{to}","text":"{text}","ref":"{reference}"}',
        from: null,
        idPointer: '/id',
        errorPointer: '/error',
        inboundUrl: null,
      });
      gateway.answer(200, { id: 'm-1' });
      const outcomes = await deliverDueNotifications(data.db, connectionRunner(data.db), { mailer: null, sendSms });
      assert.deepEqual(
        outcomes.map((o) => o.outcome),
        ['sent'],
      );
      assert.equal(gateway.received.length, 1);
      const sent = JSON.parse(gateway.received[0]!.body) as { to: string; text: string; ref: string };
      assert.deepEqual(sent, {
        to: '+436641234567',
        text: `invoice ${invoice.invoice_number} is now paid in full. Thank you.`,
        ref: notification.id,
      });
      assert.equal(rowOf(notification.id).status, 'sent');
    } finally {
      writeSmsGateway(data.db, null);
      await gateway.close();
    }
  });

  it('repeats an SMS cut off mid-send only through a gateway that drops repeats by reference, else fails it', async () => {
    const gateway = await startGateway();
    const genericGateway = (bodyTemplate: string) =>
      writeSmsGateway(data.db, {
        preset: 'generic',
        url: `${gateway.url}/send`,
        headers: [],
        bodyTemplate,
        from: null,
        idPointer: '/id',
        errorPointer: '/error',
        inboundUrl: null,
      });
    /** A pass that took the row and died before it knew (kill -9): the claim as the worker makes it, nothing after. */
    const cutOff = (id: string) => {
      onlyDue(id);
      connectionRunner(data.db).run('read-then-write', () =>
        claimDueNotification(data.db, {
          channel: 'sms',
          now: new Date().toISOString(),
          leaseUntil: new Date(Date.now() + 60_000).toISOString(),
          sendingNote: SMS_SENDING,
        }),
      );
    };
    const afterLease = () => Date.now() + DEFAULT_RETRY_POLICY.leaseMs + 120_000;
    try {
      setClinicCountry(data.db, 'AT');
      genericGateway('{"to":"{to}","text":"{text}"}');
      const lost = paidInvoice({ mobile: '0664 123 45 67' }, { withoutEmail: true }).notification;
      cutOff(lost.id);
      const [outcome] = await deliverDueNotifications(
        data.db,
        connectionRunner(data.db),
        { mailer: null, sendSms },
        DEFAULT_RETRY_POLICY,
        afterLease,
      );
      assert.equal(outcome?.outcome, 'failed');
      assert.equal(gateway.received.length, 0, 'not sent again');
      assert.match(rowOf(lost.id).last_error ?? '', /may have gone out; it is not sent again/);

      genericGateway('{"to":"{to}","text":"{text}","ref":"{reference}"}');
      gateway.answer(200, { id: 'm-2' });
      const repeated = paidInvoice({ mobile: '0664 123 45 68' }, { withoutEmail: true }).notification;
      cutOff(repeated.id);
      const [again] = await deliverDueNotifications(
        data.db,
        connectionRunner(data.db),
        { mailer: null, sendSms },
        DEFAULT_RETRY_POLICY,
        afterLease,
      );
      assert.equal(again?.outcome, 'sent');
      assert.equal((JSON.parse(gateway.received[0]!.body) as { ref: string }).ref, repeated.id, 'with the same reference');
    } finally {
      writeSmsGateway(data.db, null);
      await gateway.close();
    }
  });

  it('fails an SMS row at once when its mobile is no usable number', async () => {
    const gateway = await startGateway();
    try {
      const { notification } = paidInvoice({ mobile: '0664 123 45 67' }, { withoutEmail: true });
      onlyDue(notification.id);
      data.db.prepare("DELETE FROM settings WHERE key = 'country'").run();
      writeSmsGateway(data.db, genericSmsGateway(`${gateway.url}/send`));
      const [outcome] = await deliverDueNotifications(data.db, connectionRunner(data.db), { mailer: null, sendSms });
      assert.equal(outcome?.outcome, 'failed');
      assert.equal(gateway.received.length, 0);
      assert.match(rowOf(notification.id).last_error ?? '', /not a usable international number/);
    } finally {
      writeSmsGateway(data.db, null);
      await gateway.close();
    }
  });

  it('never sends one row twice when two passes run at once', async () => {
    const { notification } = paidInvoice();
    onlyDue(notification.id);
    let sends = 0;
    const slow: Mailer = { send: () => new Promise((resolve) => setTimeout(() => resolve(void sends++), 50)) };
    const [a, b] = await Promise.all([
      deliverDueNotifications(data.db, connectionRunner(data.db), { mailer: slow, sendSms: null }),
      deliverDueNotifications(data.db, connectionRunner(data.db), { mailer: slow, sendSms: null }),
    ]);
    assert.equal(sends, 1);
    assert.equal((a?.length ?? 0) + (b?.length ?? 0), 1);
    assert.equal(rowOf(notification.id).status, 'sent');
  });

  it('runs in the background and stops cleanly', async () => {
    const { notification } = paidInvoice({ email: 'worker@example.org' });
    onlyDue(notification.id);
    const before = smtp.messages.length;
    const worker = startDeliveryWorker(
      data.db,
      connectionRunner(data.db),
      { mailer: createSmtpMailer(smtp.url, 'clinic@example.org'), sendSms: null },
      {
        logger: silentLogger,
        intervalMs: 50,
      },
    );
    try {
      const messages = await smtp.waitFor(before + 1);
      assert.deepEqual(messages.at(-1)?.to, ['worker@example.org']);
    } finally {
      await worker.stop();
    }
    assert.equal(rowOf(notification.id).status, 'sent');
  });
});

describe('listing notifications', () => {
  const data = useTestDatabase();
  before(() => {
    for (let i = 0; i < 2; i++) {
      const invoice = createInvoice(data.db, buildInvoice(createPatient(data.db, buildPatient()).id, { total: 1 }));
      recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment({ amount: 1 }) });
    }
  });

  it("lists every row with its delivery state, without the recipient's address", () => {
    const rows = listNotifications(data.db);
    assert.equal(rows.length, 2);
    assert.deepEqual(Object.keys(rows[0]!), [
      'id',
      'patient_id',
      'invoice_id',
      'channel',
      'status',
      'attempts',
      'next_attempt_at',
      'last_error',
      'created_at',
      'sent_at',
    ]);
    assert.ok(!JSON.stringify(rows).includes('ada@example.org'));
  });

  it('filters by status and refuses an unknown one', () => {
    assert.equal(listNotifications(data.db, { status: 'pending' }).length, 2);
    assert.equal(listNotifications(data.db, { status: 'sent' }).length, 0);
    assert.throws(
      () => listNotifications(data.db, { status: 'lost' }),
      (e) => e instanceof ValidationError && e.issues[0]?.type === 'literal_error' && e.issues[0].loc.join('.') === 'query.status',
    );
  });
});
