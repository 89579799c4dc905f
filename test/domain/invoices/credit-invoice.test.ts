import assert from 'node:assert/strict';
import { wasReplayed } from '../../../src/domain/idempotent-answers.js';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, it, mock } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { CREATE_CREDIT_NOTE } from '../../../src/domain/invoices/credit-invoice.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, idempotencyHeader } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import type { Db } from '../../../src/db/open-database.js';
import { VOID_INVOICE } from '../../../src/domain/invoices/void-invoice.js';
import {
  describeScenarios,
  DESK_USER,
  givenInvoice,
  type GivenInvoice,
  type Outcome,
  type Scenario,
} from '../../helpers/use-case-scenarios.js';

/**
 * CREATE_CREDIT_NOTE (POST /invoices/{invoice_id}/credit-notes, `clinic invoice credit`), rule by
 * rule (clinic-api-1.3.md, "Credit notes"), and what a table cannot show: numbers per calendar
 * year in clinic time and a stored answer's 24 hours, on the program's clock moved by the test.
 * The goodwill refund's credit note: REFUND_PAYMENT's table. The wiring of each front end:
 * test/server/routes/invoices.test.ts and test/cli/commands/invoice.test.ts.
 */

const request = (body: Record<string, unknown>, key?: string) => (given: Pick<GivenInvoice, 'invoiceId'>) => ({
  path: { invoice_id: given.invoiceId },
  header: idempotencyHeader(key),
  body,
});

const creditIt = (db: Db, invoiceId: string, body: Record<string, unknown>, key?: string) =>
  performUseCase(CREATE_CREDIT_NOTE, db, request(body, key)({ invoiceId }), DESK_USER);

const pay = (db: Db, invoiceId: string, amount: string, key?: string) =>
  recordPayment(db, { path: { invoice_id: invoiceId }, headers: idempotencyHeader(key), body: buildPayment({ amount }) });

/** Credited by `amount`: the invoice's fields named, invoice.credit, and invoice.credited with the credit note and the invoice as it left it. */
const credited =
  (amount: number, invoice: Record<string, unknown>) =>
  (given: GivenInvoice): Outcome => ({
    result: { id: given.invoiceId, ...invoice },
    audit: [{ action: 'invoice.credit', patient_id: given.patientId, subject_type: 'invoice', subject_id: given.invoiceId, detail: null }],
    changes: (answer: { status: string; balance: number; credit_notes: { id: string; credit_note_number: string }[] }) => [
      {
        type: 'invoice.credited',
        patient_id: given.patientId,
        data: {
          invoice_id: given.invoiceId,
          credit_note_id: answer.credit_notes.at(-1)!.id,
          credit_note_number: answer.credit_notes.at(-1)!.credit_note_number,
          amount,
          invoice_status: answer.status,
          invoice_balance: answer.balance,
        },
      },
    ],
  });

const paidNotifications = (db: Db, invoiceId: string) =>
  (db.prepare('SELECT count(*) AS n FROM notification_outbox WHERE invoice_id = ?').get(invoiceId) as { n: number }).n;

const scenarios: Scenario<GivenInvoice>[] = [
  {
    title: 'lowers what a partly paid invoice asks: partially_paid, the credit note numbered and listed',
    given: givenInvoice('100.00', (db, given) => pay(db, given.invoiceId, '60.00')),
    request: request({ amount: '15.50', reason: 'X-ray billed twice' }),
    expect: credited(15.5, { status: 'partially_paid', total: 100, amount_paid: 60, amount_credited: 15.5, balance: 24.5 }),
  },
  {
    title: 'leaves an unpaid invoice issued, asking the rest',
    given: givenInvoice('100.00'),
    request: request({ amount: 30, reason: 'discount' }),
    expect: credited(30, { status: 'issued', amount_paid: 0, amount_credited: 30, balance: 70 }),
  },
  {
    title: 'makes an invoice paid once money covers the rest, and tells the patient, as a payment that pays it does',
    given: givenInvoice('100.00', (db, given) => {
      pay(db, given.invoiceId, '60.00');
      creditIt(db, given.invoiceId, { amount: 15.5, reason: 'X-ray billed twice' });
    }),
    request: request({ amount: 24.5, reason: 'Goodwill' }),
    expect: (given) => ({
      ...credited(24.5, { status: 'paid', balance: 0, amount_credited: 40 })(given),
      then: (db) => {
        const notes = db.prepare('SELECT credit_note_number FROM credit_notes ORDER BY credit_note_number').all() as {
          credit_note_number: string;
        }[];
        const serials = notes.map((note) => Number(note.credit_note_number.slice(-6)));
        assert.deepEqual(serials, [serials[0], serials[0]! + 1], 'one series, never reused');
        assert.equal(paidNotifications(db, given.invoiceId), 1, 'the patient is told once that the invoice is paid');
      },
    }),
  },
  {
    title: 'refuses an unknown invoice (404 INVOICE_NOT_FOUND)',
    given: givenInvoice('50.00'),
    request: () => request({ amount: 1, reason: 'x' })({ invoiceId: randomUUID() }),
    expect: () => ({ refused: 'INVOICE_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses a void invoice (409 INVOICE_VOID)',
    given: givenInvoice('50.00', (db, given) =>
      performUseCase(VOID_INVOICE, db, { path: { invoice_id: given.invoiceId }, body: { reason: 'wrong patient' } }, DESK_USER),
    ),
    request: request({ amount: 1, reason: 'x' }),
    expect: () => ({ refused: 'INVOICE_VOID', status: 409 }),
  },
  {
    title: 'refuses a credit of all an unpaid invoice asks: it is voided instead (409 INVOICE_FULLY_CREDITED)',
    given: givenInvoice('50.00'),
    request: request({ amount: 50, reason: 'all of it' }),
    expect: () => ({ refused: 'INVOICE_FULLY_CREDITED', status: 409, message: /void the invoice/ }),
  },
  {
    title: 'refuses more than the balance, saying what it still asks (422 CREDIT_EXCEEDS_BALANCE)',
    given: givenInvoice('50.00'),
    request: request({ amount: '50.01', reason: 'too much' }),
    expect: () => ({ refused: 'CREDIT_EXCEEDS_BALANCE', status: 422, message: /50\.00 EUR/ }),
  },
  {
    title: 'refuses any credit of a paid invoice, which asks nothing: money paid goes back by a refund (422 CREDIT_EXCEEDS_BALANCE)',
    given: givenInvoice('20.00', (db, given) => pay(db, given.invoiceId, '20.00')),
    request: request({ amount: 1, reason: 'nothing asked' }),
    expect: () => ({ refused: 'CREDIT_EXCEEDS_BALANCE', status: 422, message: /0\.00 EUR/ }),
  },
  ...(
    [
      [{ reason: 'x' }, 'amount', 'missing'],
      [{ amount: 0, reason: 'x' }, 'amount', 'greater_than'],
      [{ amount: '1.005', reason: 'x' }, 'amount', 'decimal_max_places'],
      [{ amount: 1 }, 'reason', 'missing'],
      [{ amount: 1, reason: '   ' }, 'reason', 'value_error'],
      [{ amount: 1, reason: 'x'.repeat(501) }, 'reason', 'string_too_long'],
    ] as const
  ).map(([body, field, type]): Scenario<GivenInvoice> => ({
    title: `refuses ${JSON.stringify(body).slice(0, 40)} (${type} at ${field})`,
    given: givenInvoice('50.00'),
    request: request(body),
    expect: () => ({ invalid: [`body.${field}`], types: [type] }),
  })),
  {
    title: 'refuses an Idempotency-Key that is no token (invalid at the header)',
    given: givenInvoice('50.00'),
    request: request({ amount: 1, reason: 'x' }, 'has space'),
    expect: () => ({ invalid: ['header.idempotency-key'] }),
  },
  {
    title: 'answers a repeated request under its key with the first answer, recording nothing',
    given: givenInvoice('80.00', (db, given) => creditIt(db, given.invoiceId, { amount: 10, reason: 'discount' }, 'credit-1')),
    request: request({ amount: '10.00', reason: 'discount' }, 'credit-1'),
    expect: () => ({
      result: { amount_credited: 10, balance: 70 },
      audit: [],
      changes: [],
      then: (db) => assert.equal((db.prepare('SELECT count(*) AS n FROM credit_notes').get() as { n: number }).n, 1, 'made once'),
    }),
  },
  {
    title: "refuses a key used for another credit note, or a payment's key (422 IDEMPOTENCY_KEY_REUSED)",
    given: givenInvoice('80.00', (db, given) => creditIt(db, given.invoiceId, { amount: 10, reason: 'discount' }, 'credit-1')),
    request: request({ amount: 11, reason: 'discount' }, 'credit-1'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: "refuses a payment's key (422 IDEMPOTENCY_KEY_REUSED): one key space",
    given: givenInvoice('80.00', (db, given) => pay(db, given.invoiceId, '1.00', 'pay-1')),
    request: request({ amount: 1, reason: 'x' }, 'pay-1'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: 'takes the key of a refused request: a refusal uses no key',
    given: givenInvoice('80.00', (db, given) => {
      try {
        creditIt(db, given.invoiceId, { amount: 1000, reason: 'x' }, 'spare-1');
      } catch {
        // Refused: CREDIT_EXCEEDS_BALANCE.
      }
    }),
    request: request({ amount: 1, reason: 'x' }, 'spare-1'),
    expect: credited(1, { amount_credited: 1, balance: 79 }),
  },
];

describeScenarios('CREATE_CREDIT_NOTE', CREATE_CREDIT_NOTE, scenarios);

describe('credit notes on the clock', () => {
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
