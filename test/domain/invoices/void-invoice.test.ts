import type { Db } from '../../../src/db/open-database.js';
import { VOID_INVOICE } from '../../../src/domain/invoices/void-invoice.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPayment, idempotencyHeader } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, givenInvoice, type GivenInvoice, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * VOID_INVOICE (POST /invoices/{invoice_id}/void, `clinic invoice void`), rule by rule. The wiring
 * of each front end: test/server/routes/invoices.test.ts and test/cli/commands/payment.test.ts.
 */

type Given = GivenInvoice;

const request = (body: Record<string, unknown>, key?: string) => (given: Pick<Given, 'invoiceId'>) => ({
  path: { invoice_id: given.invoiceId },
  header: idempotencyHeader(key),
  body,
});

const voidIt = (db: Db, invoiceId: string, reason: string, key?: string) =>
  performUseCase(VOID_INVOICE, db, request({ reason }, key)({ invoiceId }), DESK_USER);

const pay = (db: Db, invoiceId: string, amount: string) =>
  recordPayment(db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount }) }).payment;

const voidRecord = (given: Given) => ({
  action: 'invoice.void',
  patient_id: given.patientId,
  subject_type: 'invoice',
  subject_id: given.invoiceId,
  detail: null,
});

const scenarios: Scenario<Given>[] = [
  {
    title: 'voids an unpaid invoice: void, owing nothing, with when and why, and its number kept',
    given: givenInvoice('80.00'),
    request: request({ reason: 'Issued to the wrong patient' }),
    expect: (given) => ({
      result: {
        voided: true,
        invoice: {
          id: given.invoiceId,
          invoice_number: given.invoiceNumber,
          status: 'void',
          total: 80,
          amount_paid: 0,
          balance: 0,
          void_reason: 'Issued to the wrong patient',
        },
      },
      audit: [voidRecord(given)],
      changes: [
        {
          type: 'invoice.voided',
          patient_id: given.patientId,
          data: { invoice_id: given.invoiceId, invoice_number: given.invoiceNumber, total: 80, status: 'void' },
        },
      ],
    }),
  },
  {
    title: 'answers a second void with the invoice as it is: the first reason stays, no change event, the void recorded again',
    given: givenInvoice('80.00', (db, given) => voidIt(db, given.invoiceId, 'first')),
    request: request({ reason: 'second' }),
    expect: (given) => ({
      result: { voided: false, invoice: { status: 'void', void_reason: 'first' } },
      audit: [voidRecord(given)],
      changes: [],
    }),
  },
  {
    title: 'refuses an invoice with payments, saying how much is paid (409 INVOICE_HAS_PAYMENTS)',
    given: givenInvoice('50.00', (db, given) => pay(db, given.invoiceId, '20.00')),
    request: request({ reason: 'wrong patient' }),
    expect: () => ({ refused: 'INVOICE_HAS_PAYMENTS', status: 409, message: /has 20\.00 EUR paid/ }),
  },
  {
    title: 'voids an invoice whose payments were all refunded',
    given: givenInvoice('50.00', (db, given) => {
      const payment = pay(db, given.invoiceId, '20.00');
      performUseCase(
        REFUND_PAYMENT,
        db,
        { path: { payment_id: payment.payment_id }, header: {}, body: { reason: 'cancelled' } },
        DESK_USER,
      );
    }),
    request: request({ reason: 'cancelled treatment' }),
    expect: (given) => ({
      result: { voided: true, invoice: { status: 'void', amount_paid: 0, balance: 0 } },
      audit: [voidRecord(given)],
      changes: [{ type: 'invoice.voided', dataIncludes: { status: 'void', total: 50 } }],
    }),
  },
  ...(
    [
      [{}, 'missing'],
      [{ reason: '   ' }, 'value_error'],
      [{ reason: '' }, 'string_too_short'],
      [{ reason: 'x'.repeat(501) }, 'string_too_long'],
    ] as const
  ).map(([body, type]): Scenario<Given> => ({
    title: `refuses ${JSON.stringify(body).slice(0, 30)} as a reason: ${type}`,
    given: givenInvoice('80.00'),
    request: request(body),
    expect: () => ({ invalid: ['body.reason'], types: [type] }),
  })),
  {
    title: 'refuses an unknown invoice (404 INVOICE_NOT_FOUND)',
    given: givenInvoice('80.00'),
    request: () => ({ path: { invoice_id: '00000000-0000-4000-8000-000000000000' }, header: {}, body: { reason: 'x' } }),
    expect: () => ({ refused: 'INVOICE_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses while billing is off (403 MODULE_DISABLED)',
    given: givenInvoice('80.00', (db) => setModuleEnabled(db, 'billing', false)),
    request: request({ reason: 'x' }),
    expect: () => ({ refused: 'MODULE_DISABLED', status: 403 }),
  },
  {
    title: 'refuses a person at reception: only admin and billing void (403 ROLE_FORBIDDEN)',
    given: givenInvoice('80.00'),
    request: request({ reason: 'x' }),
    caller: { ...DESK_USER, roles: ['reception'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
  {
    title: 'answers a void repeated with its Idempotency-Key as the first time, and records nothing again',
    given: givenInvoice('80.00', (db, given) => voidIt(db, given.invoiceId, 'wrong patient', 'void-1')),
    request: request({ reason: 'wrong patient' }, 'void-1'),
    expect: () => ({ result: { voided: true, invoice: { status: 'void', void_reason: 'wrong patient' } }, audit: [], changes: [] }),
  },
  {
    title: 'refuses the key of a void for another request (422 IDEMPOTENCY_KEY_REUSED)',
    given: givenInvoice('80.00', (db, given) => voidIt(db, given.invoiceId, 'wrong patient', 'void-1')),
    request: request({ reason: 'another reason' }, 'void-1'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
];

describeScenarios('voiding an invoice (VOID_INVOICE)', VOID_INVOICE, scenarios);
