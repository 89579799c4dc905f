import assert from 'node:assert/strict';
import { before, describe, it, mock } from 'node:test';
import { findInvoice } from '../../../src/db/invoices.js';
import { listPaymentRows } from '../../../src/db/payments.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { readInvoice } from '../../../src/domain/invoices/read-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildInvoice, buildPatient, buildPayment, createTestInvoice } from '../../helpers/builders.js';
import { assertMatchesSchema } from '../../helpers/contract.js';
import { useTestDatabase, useTestServer } from '../../helpers/fixtures.js';
import { assertLedgerConsistent } from '../../helpers/ledger.js';
import { runClinic } from '../../helpers/run-cli.js';
import { jsonOf, refusalOf } from '../../helpers/desk-output.js';

/** `clinic invoice void` and `clinic refund` (clinic-api-1.2.md, "The desk's corrections"). */
describe('clinic invoice void and clinic refund', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
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
    assert.equal(
      refusalOf(await clinic('invoice', 'void', invoice.invoice_number, '--reason', 'x', '--json')).code,
      'INVOICE_HAS_PAYMENTS',
    );
    assert.equal((await clinic('invoice', 'void', invoice.invoice_number)).code, 2);
    assert.equal(readInvoice(data.db, invoice.id).status, 'partially_paid');
  });

  it('refunds the one payment of an invoice without --payment, in full without --amount', async () => {
    const invoice = createTestInvoice(data.db, { total: '60.00' });
    pay(invoice.id, '60.00');
    const refund = jsonOf(await clinic('refund', '--invoice', invoice.invoice_number, '--reason', 'treatment cancelled', '--json'));
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
      refusalOf(await clinic('refund', '--invoice', invoice.invoice_number, '--payment', '3', '--reason', 'x', '--json')).code,
      'PAYMENT_NOT_FOUND',
    );
  });

  it('refuses more than can be refunded, and replays a repeated --idempotency-key', async () => {
    const invoice = createTestInvoice(data.db, { total: '30.00' });
    pay(invoice.id, '30.00');
    assert.equal(
      refusalOf(await clinic('refund', '--invoice', invoice.invoice_number, '--amount', '31', '--reason', 'x', '--json')).code,
      'REFUND_EXCEEDS_PAYMENT',
    );
    const args = ['refund', '--invoice', invoice.invoice_number, '--amount', '10', '--reason', 'x', '--idempotency-key', 'desk-refund-1'];
    const first = jsonOf(await clinic(...args, '--json'));
    const again = await clinic(...args);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^This key was already used for this refund: nothing new was refunded\.$/m);
    assert.equal(readInvoice(data.db, invoice.id).refunds.length, 1);
    assert.equal(first.invoice_amount_paid, 20);
  });

  it("lists the day's refunds in report day as negative lines, its totals net of them", async () => {
    const before = jsonOf(await clinic('report', 'day', '--json')) as { total: number; totals: Record<string, number> };
    const invoice = createTestInvoice(data.db, { total: '45.00' });
    pay(invoice.id, '45.00');
    jsonOf(await clinic('refund', '--invoice', invoice.invoice_number, '--amount', '12.50', '--reason', 'partly cancelled', '--json'));
    const report = jsonOf(await clinic('report', 'day', '--json')) as {
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
  it("lists a day's payments and refunds in the order of the clock, a refund between the payments it came between", async () => {
    const invoice = createTestInvoice(data.db, { total: '90.00' });
    const caller = { source: 'cli', actor: { type: 'cli', id: 'test', name: 'test', source: 'test', requestId: null } } as const;
    // A day of its own, its hours in the middle of it wherever the machine's zone is.
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-03-10T10:05:00Z') });
    try {
      const first = pay(invoice.id, '20.00');
      mock.timers.setTime(Date.parse('2026-03-10T11:15:00Z'));
      pay(invoice.id, '30.00');
      mock.timers.setTime(Date.parse('2026-03-10T10:40:00Z'));
      const refund = { path: { payment_id: first.payment_id }, header: {}, body: { amount: '7.00', reason: 'overcharged' } };
      performUseCase(REFUND_PAYMENT, data.db, refund, caller);
    } finally {
      mock.timers.reset();
    }
    const human = await clinic('report', 'day', '--date', '2026-03-10');
    assert.equal(human.code, 0, human.stderr);
    const amounts = human.stdout
      .split('\n')
      .filter((line) => line.includes(invoice.invoice_number))
      .map((line) => /(-?\d+\.\d\d) EUR$/.exec(line)?.[1]);
    assert.deepEqual(amounts, ['20.00', '-7.00', '30.00']);
  });
});

describe('clinic record-payment', () => {
  const server = useTestServer();
  let patientId: string;
  before(async () => {
    patientId = createPatient(server.db, buildPatient()).id;
  });

  const clinic = (...args: string[]) => runClinic([...args, '--data', server.dataDir]);

  describe('record-payment', () => {
    it('prints the Payment result of the shared recording function', async () => {
      const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '20' }));
      const payment = jsonOf(
        await clinic('record-payment', '--invoice-id', invoice.id, '--amount', '5.25', '--method', 'other', '--note', 'voucher', '--json'),
      );
      assertMatchesSchema('PaymentResult', payment);
      assert.deepEqual(
        [payment.invoice_id, payment.amount, payment.method, payment.invoice_status, payment.invoice_balance],
        [invoice.id, 5.25, 'other', 'partially_paid', 14.75],
      );
      assert.equal(listPaymentRows(server.db, invoice.id)[0]?.note, 'voucher');
    });

    it("refuses an overpayment with exit 1 and the API's error body", async () => {
      const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '5' }));
      const result = await clinic('record-payment', '--invoice-id', invoice.id, '--amount', '6', '--method', 'cash', '--json');
      assert.equal(result.code, 1);
      assert.deepEqual(JSON.parse(result.stderr).detail.code, 'PAYMENT_EXCEEDS_BALANCE');
      const human = await clinic('record-payment', '--invoice-id', invoice.id, '--amount', '6', '--method', 'cash');
      assert.match(human.stderr, /^error: PAYMENT_EXCEEDS_BALANCE: /);
    });

    it('reports invalid options as the API would, and missing ones as bad usage', async () => {
      const invalid = await clinic(
        'record-payment',
        '--invoice-id',
        'x',
        '--amount',
        '1e3',
        '--method',
        'wire',
        '--idempotency-key',
        'a b',
        '--json',
      );
      assert.equal(invalid.code, 1);
      assert.deepEqual(
        JSON.parse(invalid.stderr).detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc.join('.')]),
        [
          ['uuid_parsing', 'path.invoice_id'],
          ['string_pattern_mismatch', 'header.idempotency-key'],
          ['decimal_parsing', 'body.amount'],
          ['literal_error', 'body.method'],
        ],
      );
      assert.equal((await clinic('record-payment', '--invoice-id', 'x', '--method', 'cash')).code, 2);
    });

    it('refuses --invoice and --invoice-id together as bad usage, and records nothing', async () => {
      const first = createInvoice(server.db, buildInvoice(patientId, { total: '30' }));
      const second = createInvoice(server.db, buildInvoice(patientId, { total: '30' }));
      const both = await clinic(
        'record-payment',
        '--invoice',
        first.invoice_number,
        '--invoice-id',
        second.id,
        '--amount',
        '1',
        '--method',
        'cash',
      );
      assert.equal(both.code, 2);
      assert.match(both.stderr, /--invoice or --invoice-id, not both/);
      assert.deepEqual(
        [first.id, second.id].map((id) => listPaymentRows(server.db, id).length),
        [0, 0],
      );
    });

    it('shares Idempotency-Keys with the API: a key used by the CLI replays over HTTP, and the other way round', async () => {
      const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '100' }));
      const fromCli = jsonOf(
        await clinic(
          'record-payment',
          '--invoice-id',
          invoice.id,
          '--amount',
          '40',
          '--method',
          'card',
          '--idempotency-key',
          'cli-first',
          '--json',
        ),
      );
      const overHttp = await server.request('POST', `/invoices/${invoice.id}/payments`, {
        body: buildPayment({ amount: 40, method: 'card' }),
        headers: { 'Idempotency-Key': 'cli-first' },
      });
      assert.deepEqual([overHttp.status, overHttp.headers.get('idempotent-replayed'), overHttp.body], [200, 'true', fromCli]);

      const fromHttp = await server.request('POST', `/invoices/${invoice.id}/payments`, {
        body: buildPayment({ amount: 10 }),
        headers: { 'Idempotency-Key': 'http-first' },
      });
      assert.equal(fromHttp.status, 200);
      const replayedByCli = await clinic(
        'record-payment',
        '--invoice-id',
        invoice.id,
        '--amount',
        '10.00',
        '--method',
        'cash',
        '--idempotency-key',
        'http-first',
      );
      assert.equal(replayedByCli.code, 0, replayedByCli.stderr);
      assert.match(replayedByCli.stdout, /already used for this payment: nothing new was recorded/);
      const reused = await clinic(
        'record-payment',
        '--invoice-id',
        invoice.id,
        '--amount',
        '11',
        '--method',
        'cash',
        '--idempotency-key',
        'http-first',
      );
      assert.deepEqual([reused.code, /IDEMPOTENCY_KEY_REUSED/.test(reused.stderr)], [1, true]);
      assert.equal(listPaymentRows(server.db, invoice.id).length, 2);
    });

    it('never overpays when CLI processes and HTTP requests pay one invoice at once', async () => {
      // 8 processes pay 10.00 by card; from the moment the first of them has paid, 4 HTTP lanes
      // pay 2.50 in cash each until refused, so the server's writes race the other processes'.
      // Every round must keep the ledger whole. Which writer wins the lock when is up to the
      // scheduler (the server backs off while another process holds the lock), so a round may
      // see every card payment land before the first cash one; the rounds go on until one shows
      // the two kinds of writer interleaved, a cash payment between two card payments.
      const race = async () => {
        const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '100.00' }));
        const payments = () => listPaymentRows(server.db, invoice.id);
        const cliRuns = Promise.all(
          Array.from({ length: 8 }, () =>
            runClinic(
              ['record-payment', '--invoice-id', invoice.id, '--amount', '10.00', '--method', 'card', '--json', '--data', server.dataDir],
              {
                ownProcess: true,
              },
            ),
          ),
        );
        while (!payments().some((p) => p.method === 'card')) await new Promise((resolve) => setTimeout(resolve, 2));
        const lane = async () => {
          const statuses: number[] = [];
          for (;;) {
            const response = await server.request('POST', `/invoices/${invoice.id}/payments`, { body: buildPayment({ amount: '2.50' }) });
            statuses.push(response.status);
            if (response.status !== 200) {
              assert.equal(response.body.detail.code, 'PAYMENT_EXCEEDS_BALANCE');
              return statuses;
            }
          }
        };
        const [cliResults, ...lanes] = await Promise.all([cliRuns, lane(), lane(), lane(), lane()]);

        for (const result of cliResults) {
          if (result.code !== 0) assert.match(result.stderr, /PAYMENT_EXCEEDS_BALANCE/);
        }
        const recorded = payments();
        assert.equal(recorded.filter((p) => p.method === 'card').length, cliResults.filter((r) => r.code === 0).length);
        assert.equal(recorded.filter((p) => p.method === 'cash').length, lanes.flat().filter((status) => status === 200).length);
        const row = findInvoice(server.db, invoice.id)!;
        assert.equal(
          row.amount_paid_cents,
          recorded.reduce((sum, p) => sum + p.amount_cents, 0),
        );
        // 2.50 divides every balance the 10.00 payments can leave, so the lanes fill the invoice exactly.
        assert.deepEqual([row.amount_paid_cents, row.balance_cents, row.status], [10000, 0, 'paid']);
        assertLedgerConsistent(server.db);
        return recorded.map((p) => p.method).join(' ');
      };
      const interleaved = (methods: string) => /card .*cash.* card/.test(methods);
      const rounds: string[] = [];
      while (rounds.length < 10 && !rounds.some(interleaved)) rounds.push(await race());
      assert.ok(rounds.some(interleaved), `no round interleaved the writers:\n${rounds.join('\n')}`);
    });
  });

  describe('errors for people', () => {
    it('names the option and says what to type instead', async () => {
      const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '50' }));
      const result = await clinic('record-payment', '--invoice-id', invoice.id, '--amount', '40 EUR', '--method', 'cash');
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /^ {2}--amount "40 EUR": Input should be a valid decimal \(decimal_parsing\)\n {4}hint: write the amount with digits, e\.g\. 85\.50 or 85,50; with thousands 1\.234,50$/m,
      );
    });
  });
});
