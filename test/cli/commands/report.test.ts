import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { insertPayment } from '../../../src/db/payments.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { formatDate, localDateOf } from '../../../src/domain/validation/calendar.js';
import { buildInvoice, createTestPatient } from '../../helpers/builders.js';
import { forPeople, jsonOf } from '../../helpers/desk-output.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';

/**
 * `clinic report day` (clinic-api-1.1.md, "Staff references on the command line"): the clinic
 * day's payments and their totals per method, a day in clinic time (here the 23 hours of the day
 * Vienna moves to summer time), with --json as the API would answer it.
 */

const ZONE = 'Europe/Vienna';

describe('clinic report day', () => {
  const server = useTestServer();
  const clinic = (...args: string[]) => runClinic([...args, '--data', server.dataDir]);
  let juergen: Patient;
  let march: Record<string, string>;
  before(() => {
    const db = server.db;
    setClinicTimeZone(db, ZONE);
    juergen = createTestPatient(db, { first_name: 'Jürgen', last_name: 'Müller-Lüdenscheidt', date_of_birth: '1961-07-23' });
    const payer = createTestPatient(db, { first_name: 'Paula', last_name: 'Payer' });
    const invoice = createInvoice(db, buildInvoice(payer.id, { total: '5000', issued_at: '2026-03-01T09:00:00Z' }));
    const swiss = createTestPatient(db, { first_name: 'Urs', last_name: 'Schweizer' });
    const francs = createInvoice(db, buildInvoice(swiss.id, { total: '300', currency: 'CHF', issued_at: '2026-03-01T09:00:00Z' }));
    march = {};
    // 29 March 2026 is the day Vienna moves to summer time: 23 hours, from 23:00 UTC on the
    // 28th to 22:00 UTC on the 29th. Payments are written as recorded at chosen instants.
    const pay = (name: string, invoiceId: string, cents: number, method: 'cash' | 'card' | 'bank' | 'other', at: string) => {
      const id = randomUUID();
      march[name] = id;
      insertPayment(db, {
        id,
        invoice_id: invoiceId,
        amount_cents: cents,
        method,
        note: null,
        idempotency_key: null,
        request_fingerprint: id,
        invoice_status: 'partially_paid',
        invoice_amount_paid_cents: cents,
        invoice_balance_cents: 1,
        created_at: at,
      });
    };
    pay('dayBefore', invoice.id, 700, 'cash', '2026-03-28T22:59:59.999Z');
    pay('midnight', invoice.id, 1000, 'cash', '2026-03-28T23:00:00.000Z');
    pay('morning', invoice.id, 8550, 'card', '2026-03-29T08:15:00.000Z');
    pay('dime', invoice.id, 10, 'cash', '2026-03-29T09:00:00.000Z');
    pay('francs', francs.id, 2000, 'cash', '2026-03-29T10:00:00.000Z');
    pay('twoDimes', invoice.id, 20, 'cash', '2026-03-29T12:00:00.000Z');
    pay('late', invoice.id, 500, 'bank', '2026-03-29T21:59:00.000Z');
    pay('nextDay', invoice.id, 900, 'other', '2026-03-29T22:00:00.000Z');
  });

  it("prints the clinic day's payments in the order recorded and the totals per method as JSON numbers", async () => {
    const report = jsonOf(await clinic('report', 'day', '--date', '2026-03-29', '--json'));
    const payment = (name: string, created_at: string, method: string, amount: number) => ({
      payment_id: march[name],
      created_at,
      invoice_number: 'INV-2026-000001',
      patient_number: report.payments[0]?.patient_number,
      patient_name: 'Paula Payer',
      method,
      amount,
    });
    assert.match(report.payments[0].patient_number, /^P-\d{6}$/);
    assert.deepEqual(report, {
      date: '2026-03-29',
      time_zone: ZONE,
      currency: 'EUR',
      payments: [
        payment('midnight', '2026-03-28T23:00:00.000Z', 'cash', 10),
        payment('morning', '2026-03-29T08:15:00.000Z', 'card', 85.5),
        payment('dime', '2026-03-29T09:00:00.000Z', 'cash', 0.1),
        payment('twoDimes', '2026-03-29T12:00:00.000Z', 'cash', 0.2),
        payment('late', '2026-03-29T21:59:00.000Z', 'bank', 5),
      ],
      refunds: [],
      // Summed in cents: 10 + 0.1 + 0.2 in floating point would be 10.299999999999999.
      totals: { cash: 10.3, card: 85.5, bank: 5, other: 0 },
      total: 100.8,
    });
  });

  it('prints the cash count for people in clinic time, keeping other currencies out of the totals', async () => {
    const text = forPeople(await clinic('report', 'day', '--date', '2026-03-29'));
    assert.match(text, /^Payments Sun 29\.03\.2026 {2}\(times in Europe\/Vienna\)$/m);
    assert.match(text, /^00:00 {2}INV-2026-000001 {2}P-\d{6} Paula Payer +cash +10\.00 EUR$/m);
    assert.match(text, /^10:15 {2}INV-2026-000001 .* card +85\.50 EUR$/m);
    assert.match(text, /^23:59 {2}.* bank +5\.00 EUR$/m);
    assert.match(text, /^cash +10\.30 EUR$/m);
    assert.match(text, /^card +85\.50 EUR$/m);
    assert.match(text, /^bank +5\.00 EUR$/m);
    assert.match(text, /^other +0\.00 EUR$/m);
    assert.match(text, /^total +100\.80 EUR$/m);
    assert.match(text, /^Not in the totals: paid in another currency than EUR\n.*\n12:00 .*Urs Schweizer +cash +20\.00 CHF$/m);
  });

  it("defaults to today's clinic day and lists a payment just recorded", async () => {
    const invoice = createInvoice(server.db, buildInvoice(juergen.id, { total: '30' }));
    const before = formatDate(localDateOf(Date.now(), ZONE));
    const paid = jsonOf(
      await clinic('record-payment', '--invoice', invoice.invoice_number, '--amount', '12.5', '--method', 'card', '--json'),
    );
    const report = jsonOf(await clinic('report', 'day', '--json'));
    const afterwards = formatDate(localDateOf(Date.now(), ZONE));
    assert.ok([before, afterwards].includes(report.date), report.date);
    if (report.date === formatDate(localDateOf(Date.parse(paid.created_at), ZONE))) {
      assert.deepEqual(
        report.payments.find((item: { payment_id: string }) => item.payment_id === paid.payment_id),
        {
          payment_id: paid.payment_id,
          created_at: paid.created_at,
          invoice_number: invoice.invoice_number,
          patient_number: juergen.patient_number,
          patient_name: 'Jürgen Müller-Lüdenscheidt',
          method: 'card',
          amount: 12.5,
        },
      );
    }
    assert.deepEqual(jsonOf(await clinic('report', 'day', '--date', 'today', '--json')).date, report.date);
  });

  it('prints an empty day with zero totals', async () => {
    const report = jsonOf(await clinic('report', 'day', '--date', '2026-03-31', '--json'));
    assert.deepEqual([report.payments, report.totals, report.total], [[], { cash: 0, card: 0, bank: 0, other: 0 }, 0]);
    assert.match(forPeople(await clinic('report', 'day', '--date', '2026-03-31')), /^No payments\.$/m);
  });

  it('refuses a --date that is no calendar date, naming --date', async () => {
    const result = await clinic('report', 'day', '--date', '2026-13-01');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^ {2}--date "[^"]+": .*date_parsing/m);
  });
});
