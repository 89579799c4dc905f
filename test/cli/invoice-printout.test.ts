// An invoice printed for people (src/cli/invoice-printout.ts): `invoice show`, and `invoice create`, `record-payment`, `refund` and `invoice credit` after they changed it; clinic-api-1.1.md's desk printouts, 1.2.0's refunds and voiding, 1.3.0's credit notes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatInvoice, issuedOn } from '../../src/cli/invoice-printout.js';
import type { InvoiceDetail } from '../../src/domain/invoices/read-invoice.js';
import { untouchedInvoiceDetail } from '../helpers/api-shapes.js';

const VIENNA = { timeZone: 'Europe/Vienna', doctorNames: new Map<string, string>() };

const PAYMENT_1 = '0a0a0a0a-0000-4000-8000-000000000001';
const PAYMENT_2 = '0a0a0a0a-0000-4000-8000-000000000002';

/** An invoice of 120.50 EUR issued on Monday 23.11.2026 at 09:15 Vienna time, as GET /invoices/{id} gives it; `changes` on top. */
function invoiceDetail(changes: Partial<InvoiceDetail> = {}): InvoiceDetail {
  return {
    id: '0b0b0b0b-0000-4000-8000-000000000001',
    invoice_number: 'INV-2026-000042',
    patient_id: '0c0c0c0c-0000-4000-8000-000000000001',
    status: 'issued',
    currency: 'EUR',
    total: 120.5,
    amount_paid: 0,
    balance: 120.5,
    issued_at: '2026-11-23T08:15:00.000Z',
    patient_number: 'P-000007',
    patient_first_name: 'Ada',
    patient_last_name: 'Lovelace',
    ...untouchedInvoiceDetail(),
    ...changes,
  };
}

const payment = (payment_id: string, amount: number, created_at: string, note: string | null = null) => ({
  payment_id,
  amount,
  method: 'cash' as const,
  note,
  created_at,
  refunded_amount: 0,
});

/** The printout from the line `heading` on, as lines. */
function linesFrom(printed: string, heading: string): string[] {
  const lines = printed.split('\n');
  return lines.slice(lines.indexOf(heading));
}

describe('an invoice printed for people (invoice-printout)', () => {
  it('prints the patient, the issue in clinic time, the status in words, money with its currency, and says when nothing is paid', () => {
    assert.equal(
      formatInvoice(invoiceDetail(), VIENNA),
      [
        'Invoice INV-2026-000042',
        'Patient  P-000007 Ada Lovelace',
        'Issued   Mon 23.11.2026 09:15',
        'Status   issued',
        'Total    120.50 EUR',
        'Paid     0.00 EUR',
        'Balance  120.50 EUR',
        '',
        'Payments',
        'No payments yet.',
        '',
      ].join('\n'),
    );
  });

  it('lists a single payment unnumbered, its note on its line', () => {
    const printed = formatInvoice(
      invoiceDetail({
        status: 'partially_paid',
        amount_paid: 50,
        balance: 70.5,
        payments: [payment(PAYMENT_1, 50, '2026-11-23T08:20:00.000Z', 'Anzahlung\nbar')],
      }),
      VIENNA,
    );
    assert.match(printed, /^Status {3}partially paid$/m);
    assert.deepEqual(linesFrom(printed, 'Payments'), [
      'Payments',
      'Date        Time   Method     Amount  Note',
      '23.11.2026  09:20  cash    50.00 EUR  Anzahlung bar',
      '',
    ]);
  });

  it('numbers several payments in the order recorded, as `refund --payment N` takes them, on the night clocks go back too', () => {
    // 25.10.2026: 02:30 summer time, then an hour later 02:30 winter time.
    const printed = formatInvoice(
      invoiceDetail({
        status: 'partially_paid',
        amount_paid: 30,
        balance: 90.5,
        payments: [
          { ...payment(PAYMENT_1, 20, '2026-10-25T00:30:00.000Z'), method: 'card' },
          { ...payment(PAYMENT_2, 20, '2026-10-25T01:30:00.000Z'), refunded_amount: 10 },
        ],
        refunds: [
          {
            refund_id: '0d0d0d0d-0000-4000-8000-000000000001',
            payment_id: PAYMENT_2,
            amount: 10,
            method: 'cash',
            reason: 'doppelt kassiert',
            created_at: '2026-10-25T02:00:00.000Z',
          },
        ],
      }),
      VIENNA,
    );
    assert.deepEqual(linesFrom(printed, 'Payments'), [
      'Payments',
      '#  Date        Time   Method     Amount   Refunded  Note',
      '1  25.10.2026  02:30  card    20.00 EUR',
      '2  25.10.2026  02:30  cash    20.00 EUR  10.00 EUR',
      '',
      'Refunds',
      'Date        Time   Payment  Method      Amount  Reason',
      '25.10.2026  03:00       #2  cash    -10.00 EUR  doppelt kassiert',
      '',
    ]);
  });

  it('says when and why a void invoice was voided, and shows credit notes, and what they credited, only where there are some', () => {
    const voided = formatInvoice(
      invoiceDetail({ status: 'void', voided_at: '2026-11-24T07:00:00.000Z', void_reason: 'falscher Patient' }),
      VIENNA,
    );
    assert.match(voided, /^Status +void\nVoided +Tue 24\.11\.2026 08:00: falscher Patient\n/m);
    assert.doesNotMatch(voided, /Credit/, 'no credit notes, no word of them');

    const credited = formatInvoice(
      invoiceDetail({
        balance: 100.5,
        amount_credited: 20,
        credit_notes: [
          {
            id: '0e0e0e0e-0000-4000-8000-000000000001',
            credit_note_number: 'CN-2026-000003',
            amount: 20,
            reason: 'Röntgen doppelt verrechnet',
            created_at: '2026-12-31T23:30:00.000Z',
          },
        ],
      }),
      VIENNA,
    );
    assert.deepEqual(linesFrom(credited, 'Total     120.50 EUR'), [
      'Total     120.50 EUR',
      'Credited  20.00 EUR',
      'Paid      0.00 EUR',
      'Balance   100.50 EUR',
      '',
      'Payments',
      'No payments yet.',
      '',
      'Credit notes',
      'Date        Time   Credit note         Amount  Reason',
      // Half past midnight on New Year's Day in Vienna, though still 2026 in UTC.
      '01.01.2027  00:30  CN-2026-000003  -20.00 EUR  Röntgen doppelt verrechnet',
      '',
    ]);
  });

  it('gives the day an invoice was issued in clinic time, and nothing for one not issued', () => {
    assert.equal(issuedOn(invoiceDetail({ issued_at: '2026-11-22T23:30:00.000Z' }), 'Europe/Vienna'), '23.11.2026');
    assert.equal(issuedOn(invoiceDetail({ issued_at: '2026-11-22T23:30:00.000Z' }), 'UTC'), '22.11.2026');
    assert.equal(issuedOn(invoiceDetail({ issued_at: null }), 'Europe/Vienna'), '');
  });
});
