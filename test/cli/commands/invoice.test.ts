import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { readInvoice } from '../../../src/domain/invoices/read-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { buildInvoice, buildPatient, buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { assertMatchesSchema } from '../../helpers/contract.js';
import { useTestDatabase, useTestServer } from '../../helpers/fixtures.js';
import { assertLedgerConsistent } from '../../helpers/ledger.js';
import { runClinic } from '../../helpers/run-cli.js';
import { jsonOf, refusalOf } from '../../helpers/desk-output.js';

/**
 * `clinic invoice credit` and `clinic refund --goodwill` (clinic-api-1.3.md, "Credit notes"), and
 * what `invoice show`, `report day`, `patient find` and `clinic check` make of credit notes. Issue
 * 42, finding 8: a goodwill refund made the patient a debtor.
 */
describe('clinic invoice credit and clinic refund --goodwill', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const pay = (invoiceId: string, amount: string) =>
    recordPayment(data.db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount }) }).payment;
  const year = new Date().getUTCFullYear();

  it('keeps a paid invoice paid through a goodwill refund, so patient find no longer says the patient owes (finding 8)', async () => {
    const patient = createTestPatient(data.db, { first_name: 'Gudrun', last_name: 'Kulanz' });
    const invoice = createTestInvoice(data.db, { total: '60.00', patient_id: patient.id });
    pay(invoice.id, '60.00');
    const result = await clinic(
      'refund',
      '--invoice',
      invoice.invoice_number,
      '--amount',
      '10',
      '--reason',
      'Lange Wartezeit',
      '--goodwill',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(
        `^Refunded 10\\.00 EUR cash of payment 1 on ${invoice.invoice_number}\\.\nAs goodwill: credit note CN-${year}-\\d{6}`,
        'm',
      ),
    );
    assert.match(result.stdout, /^Status +paid$/m);
    assert.match(result.stdout, /^Credited +10\.00 EUR$/m);
    assert.match(result.stdout, /^Balance +0\.00 EUR$/m);
    assert.match(result.stdout, /^Credit notes$/m);

    const found = await clinic('patient', 'find', 'kulanz');
    assert.equal(found.code, 0, found.stderr);
    assert.doesNotMatch(found.stdout, /10\.00 EUR/, 'owes nothing');
    assert.equal(
      jsonOf<{ outstanding_balance: string }[]>(await clinic('patient', 'find', 'kulanz', '--json'))[0]!.outstanding_balance,
      '0',
    );
    assertLedgerConsistent(data.db);
  });

  it('credits an invoice by its number: the printout, --json as the API answers, and the refusals', async () => {
    const invoice = createTestInvoice(data.db, { total: '90.00' });
    pay(invoice.id, '20.00');
    const printed = await clinic('invoice', 'credit', invoice.invoice_number, '--amount', '15', '--reason', 'Röntgen doppelt verrechnet');
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, new RegExp(`^Credit note CN-${year}-\\d{6}: ${invoice.invoice_number} asks 15\\.00 EUR less\\.$`, 'm'));
    assert.match(printed.stdout, /^Total +90\.00 EUR\nCredited +15\.00 EUR\nPaid +20\.00 EUR\nBalance +55\.00 EUR$/m);
    assert.match(printed.stdout, /^\S+ +\d\d:\d\d +CN-\d{4}-\d{6} +-15\.00 EUR +Röntgen doppelt verrechnet$/m);

    const answered = jsonOf<{ amount_credited: number; balance: number; credit_notes: unknown[] }>(
      await clinic('invoice', 'credit', invoice.id, '--amount', '5.00', '--reason', 'Kulanz', '--json'),
    );
    assert.deepEqual(answered, readInvoice(data.db, invoice.id));
    assert.deepEqual([answered.amount_credited, answered.balance, answered.credit_notes.length], [20, 50, 2]);
    const shown = await clinic('invoice', 'show', invoice.invoice_number);
    assert.match(shown.stdout, /^Credit notes$/m);

    const tooMuch = refusalOf(await clinic('invoice', 'credit', invoice.invoice_number, '--amount', '50.01', '--reason', 'x', '--json'));
    assert.deepEqual([tooMuch.code, tooMuch.balance], ['CREDIT_EXCEEDS_BALANCE', 50]);
    const unpaid = createTestInvoice(data.db, { total: '30.00' });
    assert.equal(
      refusalOf(await clinic('invoice', 'credit', unpaid.invoice_number, '--amount', '30', '--reason', 'x', '--json')).code,
      'INVOICE_FULLY_CREDITED',
    );
    assert.equal((await clinic('invoice', 'credit', unpaid.invoice_number, '--reason', 'x')).code, 2, '--amount is required');
    const people = await clinic('invoice', 'credit', unpaid.invoice_number, '--amount', '30', '--reason', 'x');
    assert.match(people.stderr.replace(/\s+/g, ' '), /INVOICE_FULLY_CREDITED: .*void the invoice instead/);
    assert.deepEqual(readInvoice(data.db, unpaid.id).credit_notes, []);
  });

  it('replays a repeated --idempotency-key, saying so', async () => {
    const invoice = createTestInvoice(data.db, { total: '40.00' });
    const args = ['invoice', 'credit', invoice.invoice_number, '--amount', '4', '--reason', 'Rabatt', '--idempotency-key', 'desk-credit-1'];
    const first = jsonOf(await clinic(...args, '--json'));
    const again = await clinic(...args);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^This key was already used for this credit note: nothing new was recorded\.$/m);
    assert.deepEqual(jsonOf(await clinic(...args, '--json')), first);
    assert.equal(readInvoice(data.db, invoice.id).credit_notes.length, 1);
  });

  it("lists the day's credit notes in report day in a section of their own, in no total", async () => {
    const before = jsonOf<{ total: number; credit_notes: unknown[] }>(await clinic('report', 'day', '--json'));
    const invoice = createTestInvoice(data.db, { total: '70.00' });
    jsonOf(await clinic('invoice', 'credit', invoice.invoice_number, '--amount', '7.50', '--reason', 'Kulanz', '--json'));
    const report = jsonOf<{ total: number; credit_notes: Record<string, unknown>[] }>(await clinic('report', 'day', '--json'));
    assert.deepEqual(Object.keys(report), ['date', 'time_zone', 'currency', 'payments', 'refunds', 'totals', 'total', 'credit_notes']);
    assert.equal(report.total, before.total, 'no money moved');
    const line = report.credit_notes.at(-1)!;
    assert.deepEqual(Object.keys(line), [
      'credit_note_id',
      'credit_note_number',
      'created_at',
      'invoice_number',
      'patient_number',
      'patient_name',
      'amount',
      'reason',
    ]);
    assert.deepEqual(
      [line.invoice_number, line.amount, line.reason, line.patient_name],
      [invoice.invoice_number, 7.5, 'Kulanz', 'Ada Lovelace'],
    );
    const human = await clinic('report', 'day');
    assert.match(human.stdout, /^Credit notes \(not money taken or given back: not in the totals\)$/m);
    assert.match(human.stdout, new RegExp(`CN-\\d{4}-\\d{6} +${invoice.invoice_number} +P-\\d{6} Ada Lovelace +7\\.50 EUR +Kulanz$`, 'm'));
  });

  it('has clinic check account for credit notes: it passes, and names an amount credited its credit notes do not add up to', async () => {
    const passed = await clinic('check');
    assert.equal(passed.code, 0, passed.stdout + passed.stderr);
    const invoice = createTestInvoice(data.db, { total: '25.00' });
    jsonOf(await clinic('invoice', 'credit', invoice.invoice_number, '--amount', '5', '--reason', 'x', '--json'));
    // Altered outside the program, within the invoices' CHECKs: 1.00 more credited, 1.00 less owed.
    data.db
      .prepare('UPDATE invoices SET amount_credited_cents = amount_credited_cents + 100, balance_cents = balance_cents - 100 WHERE id = ?')
      .run(invoice.id);
    const check = await clinic('check');
    assert.equal(check.code, 1);
    assert.match(
      check.stdout + check.stderr,
      new RegExp(`invoice ${invoice.id}: amount credited is 600 cents, its credit notes add up to 500 cents`),
    );
  });
});

describe('clinic invoice create and list, and the billing and payments modules', () => {
  const server = useTestServer();
  let patientId: string;
  before(async () => {
    patientId = createPatient(server.db, buildPatient()).id;
  });

  const clinic = (...args: string[]) => runClinic([...args, '--data', server.dataDir]);

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
      const created = jsonOf(await clinic('invoice', 'create', '--patient-id', patientId, '--total', '120.50', '--json'));
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
      const created = jsonOf(
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
      jsonOf(await clinic('record-payment', '--invoice-id', paid.id, '--amount', '10', '--method', 'cash', '--json'));
      for (const [args, query] of [
        [[], ''],
        [['--patient-id', listed], `?patient_id=${listed}`],
        [['--patient-id', listed, '--unpaid'], `?patient_id=${listed}&unpaid=true`],
        [['--unpaid'], '?unpaid=1'],
      ] as const) {
        const fromCli = jsonOf(await clinic('invoice', 'list', ...args, '--json'));
        const fromApi = await server.request('GET', `/invoices${query}`);
        assert.deepEqual(fromCli, fromApi.body, `invoice list ${args.join(' ')}`);
      }
      const unpaid = jsonOf(await clinic('invoice', 'list', '--patient-id', listed, '--unpaid', '--json'));
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
});
