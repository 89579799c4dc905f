// The Invoice item and the credit note as the API and `--json` show them (clinic-public-api.md §2.8; decisions.md §3: money "is a JSON number in responses"; clinic-api-1.3.md, "Credit notes").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreditNoteRow } from '../../../src/db/credit-notes.js';
import {
  invoiceItemOf,
  presentCreditNote,
  presentInvoice,
  type Invoice,
  type PresentedInvoiceRow,
} from '../../../src/domain/invoices/present-invoice.js';

const AT = '2026-11-02T09:00:00.000Z';

/** A stored invoice as the database reads it: 120.50 EUR, 20.50 paid, 10.00 credited. */
function invoiceRow(overrides: Partial<PresentedInvoiceRow> = {}): PresentedInvoiceRow {
  return {
    id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    invoice_number: 'INV-2026-000001',
    patient_id: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f',
    status: 'partially_paid',
    currency: 'EUR',
    total_cents: 12050,
    amount_paid_cents: 2050,
    balance_cents: 9000,
    issued_at: AT,
    created_at: AT,
    updated_at: AT,
    amount_credited_cents: 1000,
    ...overrides,
  };
}

describe('an invoice as the API shows it', () => {
  it("has the fields of spec 2.8 in its order, then 1.3.0's amount_credited, money as JSON numbers", () => {
    const shown = presentInvoice(invoiceRow());
    assert.deepEqual(Object.entries(shown), [
      ['id', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'],
      ['invoice_number', 'INV-2026-000001'],
      ['patient_id', '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f'],
      ['status', 'partially_paid'],
      ['currency', 'EUR'],
      ['total', 120.5],
      ['amount_paid', 20.5],
      ['balance', 90],
      ['issued_at', AT],
      ['amount_credited', 10],
    ]);
  });

  it('shows nothing as 0, and the largest amount to the cent', () => {
    const shown = presentInvoice(
      invoiceRow({ total_cents: 9_999_999_999, amount_paid_cents: 0, balance_cents: 1, amount_credited_cents: 0 }),
    );
    assert.deepEqual([shown.total, shown.amount_paid, shown.balance, shown.amount_credited], [99_999_999.99, 0, 0.01, 0]);
    assert.equal(JSON.stringify(shown.total), '99999999.99');
  });

  it('makes of an invoice read by id the very item GET /invoices lists of it', () => {
    const item = presentInvoice(invoiceRow());
    const detail = {
      ...item,
      patient_number: 'P-000042',
      patient_first_name: 'Ada',
      patient_last_name: 'Lovelace',
      payments: [],
      voided_at: null,
      void_reason: null,
      refunds: [],
      credit_notes: [],
    } as Invoice;
    assert.deepEqual(Object.entries(invoiceItemOf(detail)), Object.entries(item));
  });

  it('shows a credit note by its number and amount, without the invoice or refund it belongs to', () => {
    const row: CreditNoteRow = {
      id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
      credit_note_number: 'CN-2026-000002',
      invoice_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      amount_cents: 1550,
      reason: 'X-ray billed twice',
      refund_id: null,
      created_at: AT,
    };
    assert.deepEqual(Object.entries(presentCreditNote(row)), [
      ['id', '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f'],
      ['credit_note_number', 'CN-2026-000002'],
      ['amount', 15.5],
      ['reason', 'X-ray billed twice'],
      ['created_at', AT],
    ]);
  });
});
