import { PAYMENT_METHOD_KEYS } from './billing-fields.js';
import { field, type FieldSpec } from './field-spec.js';
import { DOCUMENT_TYPE_KEYS } from './document-fields.js';

/** A document type of GET /document-types (spec 2.12). */
export const DOCUMENT_TYPE_FIELDS = [
  field.literal('key', { values: DOCUMENT_TYPE_KEYS, description: 'The value of `type` in an upload' }),
  field.string('label', { description: 'A name for people' }),
] as const satisfies readonly FieldSpec[];

/** A payment method of GET /payment-methods (spec 2.12). */
export const PAYMENT_METHOD_FIELDS = [
  field.literal('key', { values: PAYMENT_METHOD_KEYS, description: 'The value of `method` in a payment' }),
  field.boolean('requires_note', { description: 'A hint only: a note is recommended, not enforced' }),
] as const satisfies readonly FieldSpec[];
