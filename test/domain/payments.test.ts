import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { findInvoice } from '../../src/db/invoices.js';
import { listNotificationRows } from '../../src/db/notifications.js';
import { openDatabase } from '../../src/db/open-database.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { listPaymentRows } from '../../src/db/payments.js';
import { AppError } from '../../src/errors.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { recordPayment, type PaymentRequest } from '../../src/domain/payments/record-payment.js';
import { buildInvoice, buildPatient, buildPayment, createTestInvoice } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runNode } from '../helpers/run-cli.js';

describe('recording payments (domain)', () => {
  const data = useTestDatabase();

  const pay = (invoiceId: string, body: Record<string, unknown> = {}, key?: string): ReturnType<typeof recordPayment> =>
    recordPayment(data.db, request(invoiceId, body, key));
  const request = (invoiceId: string, body: Record<string, unknown> = {}, key?: string): PaymentRequest => ({
    path: { invoice_id: invoiceId },
    headers: key === undefined ? {} : { 'idempotency-key': key },
    body: buildPayment(body),
  });

  it('moves an invoice issued → partially_paid → paid, and queues one email notification when paid', () => {
    const invoice = createTestInvoice(data.db, { total: '30.00' });
    const first = pay(invoice.id, { amount: 10 }).payment;
    assert.deepEqual([first.invoice_status, first.invoice_amount_paid, first.invoice_balance], ['partially_paid', 10, 20]);
    assert.equal(listNotificationRows(data.db).filter((n) => n.invoice_id === invoice.id).length, 0);
    const second = pay(invoice.id, { amount: '19.99' }).payment;
    assert.deepEqual([second.invoice_status, second.invoice_amount_paid, second.invoice_balance], ['partially_paid', 29.99, 0.01]);
    const last = pay(invoice.id, { amount: 0.01 }).payment;
    assert.deepEqual([last.invoice_status, last.invoice_amount_paid, last.invoice_balance], ['paid', 30, 0]);
    const notifications = listNotificationRows(data.db).filter((n) => n.invoice_id === invoice.id);
    assert.equal(notifications.length, 1);
    assert.deepEqual(
      [notifications[0]?.channel, notifications[0]?.recipient, notifications[0]?.status, notifications[0]?.attempts],
      ['email', 'ada@example.org', 'pending', 0],
    );
  });

  it('notifies by SMS to the mobile when the patient has no email address', () => {
    const invoice = createTestInvoice(data.db, { total: '5' });
    data.db.prepare('UPDATE patients SET email = NULL WHERE id = ?').run(invoice.patient_id);
    pay(invoice.id, { amount: 5 });
    const [row] = listNotificationRows(data.db).filter((n) => n.invoice_id === invoice.id);
    assert.deepEqual([row?.channel, row?.recipient, row?.status], ['sms', '+43 660 1234567', 'pending']);
  });

  it('refuses any amount on a paid invoice and more than the balance, changing nothing', () => {
    const invoice = createTestInvoice(data.db, { total: '10' });
    for (const amount of ['10.01', 11]) {
      assert.throws(
        () => pay(invoice.id, { amount }),
        (e) => e instanceof AppError && e.code === 'PAYMENT_EXCEEDS_BALANCE',
      );
    }
    assert.equal(findInvoice(data.db, invoice.id)?.status, 'issued');
    pay(invoice.id, { amount: 10 });
    assert.throws(
      () => pay(invoice.id, { amount: 0.01 }),
      (e) => e instanceof AppError && e.code === 'PAYMENT_EXCEEDS_BALANCE',
    );
    assert.equal(listPaymentRows(data.db, invoice.id).length, 1);
  });

  it('commits all of a payment or none of it: a failing outbox insert leaves no payment and no used key', () => {
    const invoice = createTestInvoice(data.db, { total: '10' });
    data.db.exec(`CREATE TEMP TRIGGER outbox_down BEFORE INSERT ON notification_outbox BEGIN SELECT RAISE(ABORT, 'outbox down'); END`);
    try {
      assert.throws(() => pay(invoice.id, { amount: 10 }, 'atomic-1'), /outbox down/);
    } finally {
      data.db.exec('DROP TRIGGER temp.outbox_down');
    }
    const row = findInvoice(data.db, invoice.id)!;
    assert.deepEqual([row.status, row.amount_paid_cents, row.balance_cents], ['issued', 0, 1000]);
    assert.equal(listPaymentRows(data.db, invoice.id).length, 0);
    // The key was not consumed: the same request now records the payment, not a replay.
    assert.equal(pay(invoice.id, { amount: 10 }, 'atomic-1').replayed, false);
  });

  it('treats 10, 10.0 and "10.00" as the same request for an Idempotency-Key', () => {
    const invoice = createTestInvoice(data.db, { total: '100' });
    const original = pay(invoice.id, { amount: 10 }, 'same-amount');
    for (const amount of [10.0, '10.00', '010.0']) {
      const again = pay(invoice.id, { amount }, 'same-amount');
      assert.equal(again.replayed, true);
      assert.deepEqual(again.payment, original.payment);
    }
    assert.equal(listPaymentRows(data.db, invoice.id).length, 1);
  });

  it('refuses a key reused for another amount, method, note or invoice, before looking the invoice up', () => {
    const invoice = createTestInvoice(data.db, { total: '100' });
    pay(invoice.id, { amount: 10, note: 'n' }, 'reuse');
    const reused = (e: unknown) => e instanceof AppError && e.code === 'IDEMPOTENCY_KEY_REUSED';
    assert.throws(() => pay(invoice.id, { amount: 11, note: 'n' }, 'reuse'), reused);
    assert.throws(() => pay(invoice.id, { amount: 10, note: 'n', method: 'card' }, 'reuse'), reused);
    assert.throws(() => pay(invoice.id, { amount: 10 }, 'reuse'), reused);
    assert.throws(() => pay('00000000-0000-4000-8000-000000000000', { amount: 10, note: 'n' }, 'reuse'), reused);
  });

  it('replays the original result even after later payments changed the invoice', () => {
    const invoice = createTestInvoice(data.db, { total: '100' });
    const original = pay(invoice.id, { amount: 10 }, 'early').payment;
    pay(invoice.id, { amount: 90 });
    const replay = pay(invoice.id, { amount: 10 }, 'early');
    assert.equal(replay.replayed, true);
    assert.deepEqual(replay.payment, original);
    assert.deepEqual([replay.payment.invoice_status, replay.payment.invoice_balance], ['partially_paid', 90]);
  });

  it('replays a key through another connection (another process) to the same database', () => {
    const invoice = createTestInvoice(data.db, { total: '100' });
    const original = pay(invoice.id, { amount: 25 }, 'cross-connection').payment;
    const other = openDatabase(data.dataDir);
    try {
      const replay = recordPayment(other, request(invoice.id, { amount: 25 }, 'cross-connection'));
      assert.deepEqual(replay, { payment: original, replayed: true });
    } finally {
      other.close();
    }
  });

  it('stores the request fingerprint with the payment', () => {
    const invoice = createTestInvoice(data.db, { total: '100' });
    pay(invoice.id, { amount: 1 }, 'fp');
    const [row] = listPaymentRows(data.db, invoice.id);
    assert.match(row?.request_fingerprint ?? '', /^[0-9a-f]{64}$/);
    assert.equal(row?.idempotency_key, 'fp');
  });
});

describe('the database guards payments', () => {
  const data = useTestDatabase();
  let invoiceId: string;
  before(() => {
    invoiceId = createInvoice(data.db, buildInvoice(createPatient(data.db, buildPatient()).id, { total: 50 })).id;
    recordPayment(data.db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount: 20 }) });
  });

  const sqlRefusals: [string, string, RegExp][] = [
    ["updating a payment's amount", 'UPDATE payments SET amount_cents = 1', /payments are final/],
    ["updating a payment's note", "UPDATE payments SET note = 'changed'", /payments are final/],
    ['deleting a payment', 'DELETE FROM payments', /payments are final/],
    ['a negative balance', 'UPDATE invoices SET balance_cents = -1, amount_paid_cents = 5100', /CHECK constraint failed/],
    ['paid plus balance differing from the total', 'UPDATE invoices SET amount_paid_cents = 0', /CHECK constraint failed/],
    ['a paid status with a balance left', "UPDATE invoices SET status = 'paid'", /CHECK constraint failed/],
  ];
  for (const [name, sql, message] of sqlRefusals) {
    it(`refuses ${name} in hand-run SQL`, () => {
      assert.throws(
        () => data.db.exec(sql),
        (e) => sqliteErrorCode(e) !== undefined && message.test((e as Error).message),
      );
      const [payment] = listPaymentRows(data.db, invoiceId);
      assert.deepEqual([payment?.amount_cents, payment?.note], [2000, null]);
      const invoice = findInvoice(data.db, invoiceId)!;
      assert.deepEqual([invoice.status, invoice.amount_paid_cents, invoice.balance_cents], ['partially_paid', 2000, 3000]);
    });
  }

  it('refuses a second payment row with a used Idempotency-Key', () => {
    data.db
      .prepare(
        `INSERT INTO payments (id, invoice_id, amount_cents, method, idempotency_key, request_fingerprint, invoice_status,
         invoice_amount_paid_cents, invoice_balance_cents, created_at)
       VALUES (?, ?, 1, 'cash', 'dup', 'x', 'partially_paid', 0, 0, 'now')`,
      )
      .run('11111111-1111-4111-8111-111111111111', invoiceId);
    assert.throws(
      () =>
        data.db
          .prepare(
            `INSERT INTO payments (id, invoice_id, amount_cents, method, idempotency_key, request_fingerprint, invoice_status,
             invoice_amount_paid_cents, invoice_balance_cents, created_at)
           VALUES (?, ?, 1, 'cash', 'dup', 'x', 'partially_paid', 0, 0, 'now')`,
          )
          .run('22222222-2222-4222-8222-222222222222', invoiceId),
      (e) => sqliteErrorCode(e) === 'SQLITE_CONSTRAINT_UNIQUE',
    );
  });
});

describe('payments from several processes at once', () => {
  const data = useTestDatabase();

  it('loses no update and refuses no write: BEGIN IMMEDIATE makes each wait its turn', async () => {
    const invoice = createTestInvoice(data.db, { total: '10.00' });
    const startAt = Date.now() + 2000;
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runNode(['--import', 'tsx', 'test/helpers/write-in-loop.ts', 'pay', data.dataDir, invoice.id, '150', String(startAt)]),
      ),
    );
    const results = runs.map(({ stdout }) => JSON.parse(stdout) as { recorded: number; refused: string[] });
    assert.deepEqual(
      results.flatMap((r) => r.refused),
      [],
      'no process was refused',
    );
    assert.equal(
      results.reduce((sum, r) => sum + r.recorded, 0),
      600,
    );
    const stored = findInvoice(data.db, invoice.id)!;
    assert.deepEqual([stored.amount_paid_cents, stored.balance_cents, listPaymentRows(data.db, invoice.id).length], [600, 400, 600]);
  });

  it('never refunds more than was paid when refunds come from several processes at once', async () => {
    const invoice = createTestInvoice(data.db, { total: '10.00' });
    const { payment } = recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: {}, body: { amount: '3.00', method: 'cash' } });
    const startAt = Date.now() + 2000;
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runNode(['--import', 'tsx', 'test/helpers/write-in-loop.ts', 'refund', data.dataDir, payment.payment_id, '100', String(startAt)]),
      ),
    );
    const results = runs.map(({ stdout, stderr }) => {
      assert.ok(stdout !== '', stderr);
      return JSON.parse(stdout) as { recorded: number; refused: string[] };
    });
    assert.equal(
      results.reduce((sum, r) => sum + r.recorded, 0),
      300,
      'every cent of the payment, and not one more',
    );
    assert.deepEqual(new Set(results.flatMap((r) => r.refused)), new Set(['REFUND_EXCEEDS_PAYMENT']));
    const stored = findInvoice(data.db, invoice.id)!;
    assert.deepEqual([stored.amount_paid_cents, stored.balance_cents, stored.status], [0, 1000, 'issued']);
  });
});
