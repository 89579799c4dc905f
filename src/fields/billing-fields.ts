import { field, type FieldSpec } from './field-spec.js';

/**
 * The digits of every amount of money (spec 2.9, section 8): at most 8 integer and 2 fraction
 * digits, so the largest amount, 99,999,999.99, is 9,999,999,999 cents and stays an exact
 * integer in JavaScript and SQLite.
 */
export const MONEY_DIGITS = { maxWholeDigits: 8, maxFractionDigits: 2 } as const;

/** Money limits shared by invoice totals and payment amounts: above zero, with MONEY_DIGITS. */
const MONEY_LIMITS = { exclusiveMinimum: 0, ...MONEY_DIGITS } as const;

/** The payment method keys of GET /payment-methods, in the order the specification lists them. */
export const PAYMENT_METHOD_KEYS = ['cash', 'card', 'bank', 'other'] as const;
export type PaymentMethodKey = (typeof PAYMENT_METHOD_KEYS)[number];

/** The states of spec 3 an invoice passes through, in order, and `void` (1.2.0), an invoice issued in error. */
export const INVOICE_STATUSES = ['issued', 'partially_paid', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** An ISO 4217 currency code. */
const currency = (description?: string) => field.string('currency', { pattern: '^[A-Z]{3}$', ...(description ? { description } : {}) });

/** Money in a response: a JSON number in the invoice's currency, never negative (decisions.md §3). */
const amount = <const N extends string>(name: N, description?: string) =>
  field.money(name, { minimum: 0, ...MONEY_DIGITS, ...(description ? { description } : {}) });

/**
 * `clinic invoice create`: staff issue invoices from the command line only (decisions.md §7).
 * The currency defaults to the clinic setting and `issued_at` to now, both decided at creation.
 */
export const INVOICE_INPUT_FIELDS = [
  field.uuid('patient_id', { required: true, description: 'The patient the invoice is for' }),
  field.money('total', { required: true, ...MONEY_LIMITS, description: 'Amount due, e.g. 120.50' }),
  currency('ISO 4217 code (default: the clinic currency)'),
  field.datetime('issued_at', {
    description: 'When it was issued, a date-time (default: now); the desk also takes a date, as its midnight in clinic time',
  }),
] as const satisfies readonly FieldSpec[];

/** The Invoice item of spec 2.8 as interface 1.2.0 gave it. */
const INVOICE_ITEM_FIELDS = [
  field.uuid('id', { description: 'Used to record a payment' }),
  field.string('invoice_number', { description: 'Unique, never reused, e.g. INV-2026-000001' }),
  field.uuid('patient_id'),
  field.string('status', { description: `One of ${INVOICE_STATUSES.join(', ')}` }),
  currency(),
  amount('total'),
  amount('amount_paid'),
  amount('balance', 'What remains to be paid: the total less what credit notes took off, less what is paid and kept'),
  field.datetime('issued_at', { nullable: true }),
] as const satisfies readonly FieldSpec[];

/** What the invoice's credit notes took off its total (1.3.0): 0 without credit notes. */
const amountCredited = amount('amount_credited', 'What its credit notes took off the total (1.3.0); 0 without credit notes');

/** The Invoice item of spec 2.8, as GET /invoices and `clinic invoice list --json` give it; `amount_credited` appended (1.3.0). */
export const INVOICE_FIELDS = [...INVOICE_ITEM_FIELDS, amountCredited] as const satisfies readonly FieldSpec[];

/** A credit note (1.3.0) as an invoice lists it and a goodwill refund answers it. */
export const CREDIT_NOTE_FIELDS = [
  field.uuid('id'),
  field.string('credit_note_number', { description: 'CN-<year>-NNNNNN: a series of its own per calendar year, never reused' }),
  amount('amount', 'What it took off the invoice'),
  field.string('reason'),
  field.datetime('created_at'),
] as const satisfies readonly FieldSpec[];

/** The path of GET /invoices/{invoice_id}. */
export const INVOICE_PATH_FIELDS = [field.uuid('invoice_id', { required: true })] as const satisfies readonly FieldSpec[];

/** One payment of an invoice as GET /invoices/{invoice_id} lists it (clinic-api-1.1.md). */
export const INVOICE_PAYMENT_FIELDS = [
  field.uuid('payment_id'),
  amount('amount'),
  field.literal('method', { values: PAYMENT_METHOD_KEYS }),
  field.string('note', { nullable: true }),
  field.datetime('created_at'),
  amount('refunded_amount', 'How much of it has been refunded (1.2.0)'),
] as const satisfies readonly FieldSpec[];

/** One refund of an invoice as GET /invoices/{invoice_id} lists it (1.2.0). */
export const INVOICE_REFUND_FIELDS = [
  field.uuid('refund_id'),
  field.uuid('payment_id', { description: 'The payment it gives back' }),
  amount('amount'),
  field.literal('method', { values: PAYMENT_METHOD_KEYS }),
  field.string('reason'),
  field.datetime('created_at'),
] as const satisfies readonly FieldSpec[];

/**
 * GET /invoices/{invoice_id}: the Invoice item, its patient's number and name, its payments and
 * (1.2.0) its refunds in the order recorded, and when and why it was voided.
 */
export const INVOICE_DETAIL_FIELDS = [
  ...INVOICE_ITEM_FIELDS,
  field.string('patient_number'),
  field.string('patient_first_name'),
  field.string('patient_last_name'),
  field.objectList('payments', { fields: INVOICE_PAYMENT_FIELDS, description: 'In the order recorded' }),
  field.objectList('refunds', { fields: INVOICE_REFUND_FIELDS, description: 'In the order recorded (1.2.0)' }),
  field.datetime('voided_at', { nullable: true, description: 'When it was voided (1.2.0); null unless it is void' }),
  field.string('void_reason', { nullable: true, description: 'Why it was voided (1.2.0); null unless it is void' }),
  amountCredited,
  field.objectList('credit_notes', { fields: CREDIT_NOTE_FIELDS, description: 'In the order recorded (1.3.0)' }),
] as const satisfies readonly FieldSpec[];

/** A reason a correction gives: 1–500 characters, and not only spaces (1.2.0). */
const reason = (description: string) => field.string('reason', { required: true, minLength: 1, maxLength: 500, description });

/** The body of POST /invoices/{invoice_id}/void (1.2.0). */
export const VOID_INPUT_FIELDS = [
  reason('Why the invoice is void, e.g. issued to the wrong patient'),
] as const satisfies readonly FieldSpec[];

/** The body of POST /invoices/{invoice_id}/credit-notes (1.3.0). */
export const CREDIT_NOTE_INPUT_FIELDS = [
  field.money('amount', { required: true, ...MONEY_LIMITS, description: 'What the invoice asks less, at most its balance' }),
  reason('Why, e.g. billed twice for the X-ray, or goodwill'),
] as const satisfies readonly FieldSpec[];

/** Query parameters of GET /invoices (spec 4); `limit` and `after` are added by the use case (1.1.0). */
export const INVOICE_QUERY_FIELDS = [
  field.uuid('patient_id', { description: "Only this patient's invoices" }),
  field.boolean('unpaid', { default: false, acceptsText: true, description: 'Only invoices with a balance' }),
] as const satisfies readonly FieldSpec[];

/** Path of POST /invoices/{invoice_id}/payments. */
export const PAYMENT_PATH_FIELDS = [field.uuid('invoice_id', { required: true })] as const satisfies readonly FieldSpec[];

/** The Payment request of spec 2.9. */
export const PAYMENT_INPUT_FIELDS = [
  field.money('amount', { required: true, ...MONEY_LIMITS, description: 'Amount paid, at most the invoice balance' }),
  // A literal check also refuses anything longer than the spec's 16 characters.
  field.literal('method', { required: true, values: PAYMENT_METHOD_KEYS, description: 'How it was paid' }),
  field.string('note', { nullable: true, maxLength: 500, description: 'Recommended when method is other' }),
] as const satisfies readonly FieldSpec[];

/** The invoice's state as a payment or a refund left it, in both results. */
const INVOICE_AFTER_FIELDS = [
  field.string('invoice_status', { description: `One of ${INVOICE_STATUSES.join(', ')}` }),
  amount('invoice_total'),
  amount('invoice_amount_paid'),
  amount('invoice_balance'),
] as const satisfies readonly FieldSpec[];

/** The Payment result of spec 2.10: the payment and the invoice's state as the payment left it. */
export const PAYMENT_RESULT_FIELDS = [
  field.uuid('payment_id'),
  field.uuid('invoice_id'),
  field.uuid('patient_id'),
  amount('amount'),
  field.literal('method', { values: PAYMENT_METHOD_KEYS }),
  currency(),
  field.datetime('created_at'),
  ...INVOICE_AFTER_FIELDS,
] as const satisfies readonly FieldSpec[];

/** Path of POST /payments/{payment_id}/refunds (1.2.0). */
export const REFUND_PATH_FIELDS = [field.uuid('payment_id', { required: true })] as const satisfies readonly FieldSpec[];

/** The Refund request (1.2.0): how much of the payment, why, and how it is given back. */
export const REFUND_INPUT_FIELDS = [
  field.money('amount', { ...MONEY_LIMITS, description: 'Amount given back (default: all that can still be refunded of the payment)' }),
  reason('Why the payment is given back, e.g. charged twice'),
  field.literal('method', { values: PAYMENT_METHOD_KEYS, description: "How it is given back (default: the payment's method)" }),
  field.boolean('goodwill', {
    default: false,
    description:
      'Goodwill (1.3.0): a credit note of the same amount and reason comes with the refund, so what the invoice asks falls with it and a paid invoice stays paid',
  }),
] as const satisfies readonly FieldSpec[];

/** The Refund result (1.2.0): the refund and the invoice's state as the refund left it. */
export const REFUND_RESULT_FIELDS = [
  field.uuid('refund_id'),
  field.uuid('payment_id'),
  field.uuid('invoice_id'),
  field.uuid('patient_id'),
  amount('amount'),
  field.literal('method', { values: PAYMENT_METHOD_KEYS }),
  field.string('reason'),
  currency(),
  field.datetime('created_at'),
  ...INVOICE_AFTER_FIELDS,
  field.object('credit_note', {
    fields: CREDIT_NOTE_FIELDS,
    nullable: true,
    description: 'The credit note of a goodwill refund (1.3.0); null for any other refund',
  }),
] as const satisfies readonly FieldSpec[];
