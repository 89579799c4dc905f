import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readInvoice } from '../../src/domain/invoices/read-invoice.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { buildPayment, createTestInvoice } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { assertLedgerConsistent } from '../helpers/ledger.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';

/** `clinic invoice void` and `clinic refund` (clinic-api-1.2.md, "The desk's corrections"). */
describe('clinic invoice void and clinic refund', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const json = (result: CliResult) => {
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const refusal = (result: CliResult) => {
    assert.equal(result.code, 1, result.stdout + result.stderr);
    return (JSON.parse(result.stderr) as { detail: { code: string; message: string } }).detail;
  };
  const pay = (invoiceId: string, amount: string) =>
    recordPayment(data.db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount }) }).payment;

  it('voids an unpaid invoice by its number, printing it void with the reason', async () => {
    const invoice = createTestInvoice(data.db, { total: '70.00' });
    const result = await clinic('invoice', 'void', invoice.invoice_number, '--reason', 'Issued to the wrong patient');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^Invoice ${invoice.invoice_number} is void\\.$`, 'm'));
    assert.match(result.stdout, /^Status +void$/m);
    assert.match(result.stdout, /^Voided +\w{3} \d\d\.\d\d\.\d{4} \d\d:\d\d: Issued to the wrong patient$/m);
    assert.match(result.stdout, /^Balance +0\.00 EUR$/m);
    assert.equal(readInvoice(data.db, invoice.id).status, 'void');
  });

  it('refuses to void a paid invoice, and without --reason', async () => {
    const invoice = createTestInvoice(data.db, { total: '70.00' });
    pay(invoice.id, '10.00');
    assert.equal(refusal(await clinic('invoice', 'void', invoice.invoice_number, '--reason', 'x', '--json')).code, 'INVOICE_HAS_PAYMENTS');
    assert.equal((await clinic('invoice', 'void', invoice.invoice_number)).code, 2);
    assert.equal(readInvoice(data.db, invoice.id).status, 'partially_paid');
  });

  it('refunds the one payment of an invoice without --payment, in full without --amount', async () => {
    const invoice = createTestInvoice(data.db, { total: '60.00' });
    pay(invoice.id, '60.00');
    const refund = json(await clinic('refund', '--invoice', invoice.invoice_number, '--reason', 'treatment cancelled', '--json'));
    assert.deepEqual([refund.amount, refund.method, refund.invoice_status, refund.invoice_balance], [60, 'cash', 'issued', 60]);
    assertLedgerConsistent(data.db);
  });

  it('needs --payment N when the invoice has several payments, listing them (exit 2), and refunds payment N', async () => {
    const invoice = createTestInvoice(data.db, { total: '100.00' });
    pay(invoice.id, '30.00');
    const second = pay(invoice.id, '20.00');
    const usage = await clinic('refund', '--invoice', invoice.invoice_number, '--reason', 'twice');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /has 2 payments: say which with --payment N/);
    assert.match(usage.stderr, /^ {2}2 .* cash +20\.00$/m);
    const result = await clinic(
      'refund',
      '--invoice',
      invoice.invoice_number,
      '--payment',
      '2',
      '--amount',
      '5',
      '--reason',
      'twice',
      '--method',
      'bank',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^Refunded 5\\.00 EUR bank of payment 2 on ${invoice.invoice_number}\\.$`, 'm'));
    assert.match(result.stdout, /^Refunds$/m);
    const shown = readInvoice(data.db, invoice.id);
    assert.deepEqual(
      shown.refunds.map((r) => [r.payment_id, r.amount, r.method]),
      [[second.payment_id, 5, 'bank']],
    );
    assert.equal(
      refusal(await clinic('refund', '--invoice', invoice.invoice_number, '--payment', '3', '--reason', 'x', '--json')).code,
      'PAYMENT_NOT_FOUND',
    );
  });

  it('refuses more than can be refunded, and replays a repeated --idempotency-key', async () => {
    const invoice = createTestInvoice(data.db, { total: '30.00' });
    pay(invoice.id, '30.00');
    assert.equal(
      refusal(await clinic('refund', '--invoice', invoice.invoice_number, '--amount', '31', '--reason', 'x', '--json')).code,
      'REFUND_EXCEEDS_PAYMENT',
    );
    const args = ['refund', '--invoice', invoice.invoice_number, '--amount', '10', '--reason', 'x', '--idempotency-key', 'desk-refund-1'];
    const first = json(await clinic(...args, '--json'));
    const again = await clinic(...args);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^This key was already used for this refund: nothing new was refunded\.$/m);
    assert.equal(readInvoice(data.db, invoice.id).refunds.length, 1);
    assert.equal(first.invoice_amount_paid, 20);
  });

  it("lists the day's refunds in report day as negative lines, its totals net of them", async () => {
    const before = json(await clinic('report', 'day', '--json')) as { total: number; totals: Record<string, number> };
    const invoice = createTestInvoice(data.db, { total: '45.00' });
    pay(invoice.id, '45.00');
    json(await clinic('refund', '--invoice', invoice.invoice_number, '--amount', '12.50', '--reason', 'partly cancelled', '--json'));
    const report = json(await clinic('report', 'day', '--json')) as {
      refunds: { invoice_number: string; amount: number; method: string }[];
      totals: Record<string, number>;
      total: number;
    };
    assert.deepEqual(report.refunds.at(-1), {
      ...report.refunds.at(-1),
      invoice_number: invoice.invoice_number,
      amount: 12.5,
      method: 'cash',
    });
    assert.equal(Math.round((report.totals.cash! - before.totals.cash!) * 100), 3250);
    assert.equal(Math.round((report.total - before.total) * 100), 3250);
    const human = await clinic('report', 'day');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`${invoice.invoice_number} .* cash +-12\\.50 EUR$`, 'm'));
  });
});
