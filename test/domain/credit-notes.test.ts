import assert from 'node:assert/strict';
import { wasReplayed } from '../../src/domain/idempotent-answers.js';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, it, mock } from 'node:test';
import { AppError } from '../../src/errors.js';
import { CREATE_CREDIT_NOTE } from '../../src/domain/invoices/credit-invoice.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, idempotencyHeader } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/**
 * Credit notes in the domain, on the program's clock moved by the test (clinic-api-1.3.md): their
 * numbers per calendar year in clinic time, and a stored answer's 24 hours.
 */
describe('credit notes (domain)', () => {
  const data = useTestDatabase();
  afterEach(() => mock.timers.reset());

  /** The program's clock (Date) set to `iso`; the rest of the clock runs on. */
  const at = (iso: string) => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  };
  const credit = (invoiceId: string, body: Record<string, unknown>, key?: string) =>
    performUseCase(
      CREATE_CREDIT_NOTE,
      data.db,
      { path: { invoice_id: invoiceId }, header: idempotencyHeader(key), body },
      { source: 'cli', actor: null },
    );
  const numberOf = (answer: ReturnType<typeof credit>) => answer.credit_notes.at(-1)!.credit_note_number;
  const refusedAs = (code: string) => (error: unknown) => error instanceof AppError && error.code === code;

  it('numbers credit notes CN-<year>-NNNNNN, a series per calendar year in clinic time', () => {
    const invoice = createTestInvoice(data.db, { total: '100.00', issued_at: '2026-12-01T10:00Z' });
    // 31 December 2026, 11:00 UTC: already New Year's Day on Kiritimati (UTC+14), not yet in Vienna.
    at('2026-12-31T11:00:00.000Z');
    setClinicTimeZone(data.db, 'Pacific/Kiritimati');
    assert.equal(numberOf(credit(invoice.id, { amount: 1, reason: 'a' })), 'CN-2027-000001');
    setClinicTimeZone(data.db, 'Europe/Vienna');
    assert.equal(numberOf(credit(invoice.id, { amount: 1, reason: 'b' })), 'CN-2026-000001');
    assert.equal(numberOf(credit(invoice.id, { amount: 1, reason: 'c' })), 'CN-2026-000002');
    at('2027-01-01T00:00:00.000Z');
    assert.equal(numberOf(credit(invoice.id, { amount: 1, reason: 'd' })), 'CN-2027-000002');
  });

  it('replays an answer for 24 hours; then the key is free again, for any request and for a payment', () => {
    const invoice = createTestInvoice(data.db, { total: '100.00' });
    const key = `day-${randomUUID()}`;
    at('2026-11-30T09:00:00.000Z');
    const first = credit(invoice.id, { amount: 5, reason: 'discount' }, key);
    assert.equal(wasReplayed(first), false);

    at('2026-12-01T08:59:59.999Z');
    const replay = credit(invoice.id, { amount: '5.00', reason: 'discount' }, key);
    assert.deepEqual(replay, first);
    assert.equal(wasReplayed(replay), true);
    assert.throws(() => credit(invoice.id, { amount: 6, reason: 'discount' }, key), refusedAs('IDEMPOTENCY_KEY_REUSED'));
    const paying = { path: { invoice_id: invoice.id }, headers: { 'idempotency-key': key }, body: buildPayment({ amount: '1.00' }) };
    assert.throws(() => recordPayment(data.db, paying), refusedAs('IDEMPOTENCY_KEY_REUSED'));

    at('2026-12-01T09:00:00.000Z');
    const anew = credit(invoice.id, { amount: 6, reason: 'discount' }, key);
    assert.equal(wasReplayed(anew), false);
    assert.equal(anew.credit_notes.length, 2);

    at('2026-12-02T09:00:00.000Z');
    assert.equal(recordPayment(data.db, paying).replayed, false, 'a payment takes a key whose stored answer is over');
  });
});
