import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { findInvoice } from '../../src/db/invoices.js';
import { listPaymentRows } from '../../src/db/payments.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildInvoice, buildPatient, buildPayment } from '../helpers/builders.js';
import { assertLedgerConsistent } from '../helpers/ledger.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';
import { useTestServer } from '../helpers/fixtures.js';
import { assertMatchesSchema } from '../helpers/contract.js';

describe('clinic invoice, record-payment and notifications', () => {
  const server = useTestServer();
  let patientId: string;
  before(async () => {
    patientId = createPatient(server.db, buildPatient()).id;
  });

  const clinic = (...args: string[]) => runClinic([...args, '--data', server.dataDir]);
  const json = (result: CliResult) => {
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  };

  describe('invoice create', () => {
    it('says in its help that --patient-id takes the number on paper', async () => {
      const help = await clinic('invoice', 'create', '--help');
      assert.equal(help.code, 0, help.stderr);
      assert.match(
        help.stdout.replace(/\s+/g, ' '),
        /--patient-id <id> the patient the invoice is for: its number \(P-000042, P-42\) or its id/,
      );
    });

    it('prints the new invoice as GET /invoices lists it', async () => {
      const created = json(await clinic('invoice', 'create', '--patient-id', patientId, '--total', '120.50', '--json'));
      assertMatchesSchema('Invoice', created);
      assert.match(created.invoice_number, /^INV-\d{4}-\d{6}$/);
      assert.deepEqual(
        [created.status, created.currency, created.total, created.amount_paid, created.balance],
        ['issued', 'EUR', 120.5, 0, 120.5],
      );
      const listed = await server.request('GET', `/invoices?patient_id=${patientId}`);
      assert.deepEqual(
        listed.body.find((i: { id: string }) => i.id === created.id),
        created,
      );
    });

    it('takes --currency and --issued-at', async () => {
      const other = createPatient(server.db, buildPatient()).id;
      const created = json(
        await clinic(
          'invoice',
          'create',
          '--patient-id',
          other,
          '--total',
          '9',
          '--currency',
          'CHF',
          '--issued-at',
          '2025-05-04T10:00:00Z',
          '--json',
        ),
      );
      assert.deepEqual(
        [created.currency, created.issued_at, created.invoice_number],
        ['CHF', '2025-05-04T10:00:00.000Z', 'INV-2025-000001'],
      );
    });

    it('prints the invoice for people: its number, the patient by number and name, money with its currency', async () => {
      const result = await clinic('invoice', 'create', '--patient-id', patientId, '--total', '7.5');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Invoice INV-\d{4}-\d{6}$/m);
      assert.match(result.stdout, /^Patient\s+P-\d{6} \S+/m);
      assert.match(result.stdout, /^Total\s+7\.50 EUR$/m);
      assert.doesNotMatch(result.stdout, /[0-9a-f]{8}-[0-9a-f]{4}-/, 'no UUIDs');
    });

    it('exits 2 without --total, 1 with an invalid one or an unknown patient', async () => {
      const usage = await clinic('invoice', 'create', '--patient-id', patientId);
      assert.equal(usage.code, 2);
      const invalid = await clinic('invoice', 'create', '--patient-id', patientId, '--total', '0.001', '--json');
      assert.equal(invalid.code, 1);
      assert.deepEqual(
        JSON.parse(invalid.stderr).detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
        [['decimal_max_places', ['body', 'total']]],
      );
      const unknown = await clinic('invoice', 'create', '--patient-id', '00000000-0000-4000-8000-000000000000', '--total', '1');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /PATIENT_NOT_FOUND/);
    });
  });

  describe('invoice list', () => {
    it('prints exactly what GET /invoices returns, with the same filters', async () => {
      const listed = createPatient(server.db, buildPatient()).id;
      const open = createInvoice(server.db, buildInvoice(listed, { total: 10 }));
      const paid = createInvoice(server.db, buildInvoice(listed, { total: 10 }));
      json(await clinic('record-payment', '--invoice-id', paid.id, '--amount', '10', '--method', 'cash', '--json'));
      for (const [args, query] of [
        [[], ''],
        [['--patient-id', listed], `?patient_id=${listed}`],
        [['--patient-id', listed, '--unpaid'], `?patient_id=${listed}&unpaid=true`],
        [['--unpaid'], '?unpaid=1'],
      ] as const) {
        const fromCli = json(await clinic('invoice', 'list', ...args, '--json'));
        const fromApi = await server.request('GET', `/invoices${query}`);
        assert.deepEqual(fromCli, fromApi.body, `invoice list ${args.join(' ')}`);
      }
      const unpaid = json(await clinic('invoice', 'list', '--patient-id', listed, '--unpaid', '--json'));
      assert.deepEqual(
        unpaid.map((i: { id: string }) => i.id),
        [open.id],
      );
    });

    it('refuses a malformed --patient-id', async () => {
      const result = await clinic('invoice', 'list', '--patient-id', 'abc');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /--patient-id "abc": .*uuid_parsing/);
    });
  });

  describe('record-payment', () => {
    it('prints the Payment result of the shared recording function', async () => {
      const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '20' }));
      const payment = json(
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
      const fromCli = json(
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

  describe('the modules', () => {
    it('refuse billing and payment commands as the API does while the module is off, and allow them once it is on', async () => {
      const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '20' }));
      const commands: [string, string[]][] = [
        ['billing', ['invoice', 'create', '--patient-id', patientId, '--total', '10']],
        ['billing', ['invoice', 'list']],
        ['payments', ['record-payment', '--invoice-id', invoice.id, '--amount', '1', '--method', 'cash']],
      ];
      const invoices = () => (server.db.prepare('SELECT count(*) AS n FROM invoices').get() as { n: number }).n;
      const payments = () => (server.db.prepare('SELECT count(*) AS n FROM payments').get() as { n: number }).n;
      const before = [invoices(), payments()];
      for (const [module, args] of commands) {
        assert.equal((await clinic('module', 'disable', module)).code, 0);
        try {
          const refused = await clinic(...args, '--json');
          assert.equal(refused.code, 1, args.join(' '));
          assert.deepEqual(JSON.parse(refused.stderr), {
            detail: { code: 'MODULE_DISABLED', message: `The ${module} module is disabled for this clinic.` },
          });
          assert.match((await clinic(...args)).stderr, /^error: MODULE_DISABLED: /);
        } finally {
          assert.equal((await clinic('module', 'enable', module)).code, 0);
        }
      }
      assert.deepEqual([invoices(), payments()], before);
      for (const [, args] of commands) assert.equal((await clinic(...args)).code, 0, args.join(' '));
    });
  });

  describe('notifications list', () => {
    it('prints the outbox rows, filtered by status', async () => {
      const invoice = createInvoice(server.db, buildInvoice(patientId, { total: '3' }));
      json(await clinic('record-payment', '--invoice-id', invoice.id, '--amount', '3', '--method', 'cash', '--json'));
      const rows = json(await clinic('notifications', 'list', '--json'));
      const row = rows.find((r: { invoice_id: string }) => r.invoice_id === invoice.id);
      for (const field of ['id', 'patient_id', 'invoice_id', 'channel', 'status', 'attempts', 'created_at', 'sent_at', 'last_error']) {
        assert.ok(field in row, field);
      }
      assert.deepEqual([row.patient_id, row.channel, row.status, row.attempts, row.sent_at], [patientId, 'email', 'pending', 0, null]);
      assert.ok(json(await clinic('notifications', 'list', '--status', 'pending', '--json')).some((r: { id: string }) => r.id === row.id));
      assert.deepEqual(json(await clinic('notifications', 'list', '--status', 'sent', '--json')), []);
      // For people: the patient's number and name, the invoice's number, clinic time; no ids.
      const table = await clinic('notifications', 'list');
      assert.match(
        table.stdout,
        new RegExp(
          `^\\d{2}\\.\\d{2}\\.\\d{4} \\d{2}:\\d{2}\\s+P-\\d{6} \\S+.*\\s+${invoice.invoice_number}\\s+email\\s+pending\\s+0$`,
          'm',
        ),
      );
      assert.doesNotMatch(table.stdout, /[0-9a-f]{8}-[0-9a-f]{4}-/, 'no UUIDs');
      for (const line of table.stdout.split('\n')) assert.ok(line.length <= 100, line);
      assert.equal((await clinic('notifications', 'list', '--status', 'sent')).stdout, 'No notifications.\n');
    });

    it('refuses an unknown status', async () => {
      const result = await clinic('notifications', 'list', '--status', 'lost');
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /--status "lost": is not one of the choices \(literal_error\)\n {4}hint: one of: pending, sent, failed$/m,
      );
    });
  });
});
