import { field, type FieldSpec } from './field-spec.js';

/**
 * Money limits shared by invoice totals and payment amounts (spec 2.9, section 8): above zero,
 * at most 8 integer and 2 fraction digits, so the largest amount, 99,999,999.99, is
 * 9,999,999,999 cents and stays an exact integer in JavaScript and SQLite.
 */
const MONEY_LIMITS = { exclusiveMinimum: 0, maxWholeDigits: 8, maxFractionDigits: 2 } as const;

/** The payment method keys of GET /payment-methods, in the order the specification lists them. */
export const PAYMENT_METHOD_KEYS = ['cash', 'card', 'bank', 'other'] as const;

/** The states of spec 3 an invoice passes through, in order. */
export const INVOICE_STATUSES = ['issued', 'partially_paid', 'paid'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * `clinic invoice create`: staff issue invoices from the command line only (decisions.md §7).
 * The currency defaults to the clinic setting and `issued_at` to now, both decided at creation.
 */
export const INVOICE_INPUT_FIELDS: readonly FieldSpec[] = [
  field.uuid('patient_id', { required: true, description: 'The patient the invoice is for' }),
  field.money('total', { required: true, ...MONEY_LIMITS, description: 'Amount due, e.g. 120.50' }),
  field.string('currency', { pattern: '^[A-Z]{3}$', description: 'ISO 4217 code (default: the clinic currency)' }),
  field.datetime('issued_at', { description: 'When it was issued, ISO 8601 date-time or date (default: now)' }),
];

/** Query parameters of GET /invoices (spec 4). */
export const INVOICE_QUERY_FIELDS: readonly FieldSpec[] = [
  field.uuid('patient_id', { description: 'Only this patient\'s invoices' }),
  field.boolean('unpaid', { default: false, acceptsText: true, description: 'Only invoices with a balance' }),
];

/** Path of POST /invoices/{invoice_id}/payments. */
export const PAYMENT_PATH_FIELDS: readonly FieldSpec[] = [field.uuid('invoice_id', { required: true })];

/**
 * Headers of POST /invoices/{invoice_id}/payments, named as HTTP names them (lowercase).
 * An Idempotency-Key is 1–255 visible ASCII characters (decisions.md §7).
 */
export const PAYMENT_HEADER_FIELDS: readonly FieldSpec[] = [
  field.string('idempotency-key', { minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' }),
];

/** The Payment request of spec 2.9. */
export const PAYMENT_INPUT_FIELDS: readonly FieldSpec[] = [
  field.money('amount', { required: true, ...MONEY_LIMITS, description: 'Amount paid, at most the invoice balance' }),
  // A literal check also refuses anything longer than the spec's 16 characters.
  field.literal('method', { required: true, values: PAYMENT_METHOD_KEYS, description: 'How it was paid' }),
  field.string('note', { nullable: true, maxLength: 500, description: 'Recommended when method is other' }),
];

/** How a patient is notified: email when they have an address, else SMS to their mobile. */
export const NOTIFICATION_CHANNELS = ['email', 'sms'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** An outbox row is waiting (or retrying), delivered, or given up on. */
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** Filter of `clinic notifications list`. */
export const NOTIFICATION_QUERY_FIELDS: readonly FieldSpec[] = [
  field.literal('status', { values: NOTIFICATION_STATUSES, description: 'Only rows in this status' }),
];
