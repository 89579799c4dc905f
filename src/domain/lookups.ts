import { PAYMENT_METHOD_KEYS } from '../fields/billing-fields.js';
import { DOCUMENT_TYPE_KEYS } from '../fields/document-fields.js';
import { defineUseCase } from './use-case.js';
import type { ResponseOf } from '../fields/field-spec.js';
import type { DOCUMENT_TYPE_FIELDS, PAYMENT_METHOD_FIELDS } from '../fields/lookup-fields.js';
import { ROLE_ROWS } from './people/roles.js';

/** A document type of spec 2.12. */
export type DocumentType = ResponseOf<typeof DOCUMENT_TYPE_FIELDS>;

/** A payment method of spec 2.12; `requires_note` is a hint to clients, not enforced. */
export type PaymentMethod = ResponseOf<typeof PAYMENT_METHOD_FIELDS>;

const DOCUMENT_TYPE_LABELS: Record<DocumentType['key'], string> = {
  invoices: 'Invoices',
  quotations: 'Quotations',
  xrays: 'X-rays',
  scans: 'Scans',
  prescriptions: 'Prescriptions',
  consent: 'Consent forms',
  communications: 'Communications',
  other: 'Other',
};

export const DOCUMENT_TYPES: readonly DocumentType[] = DOCUMENT_TYPE_KEYS.map((key) => ({ key, label: DOCUMENT_TYPE_LABELS[key] }));
export const PAYMENT_METHODS: readonly PaymentMethod[] = PAYMENT_METHOD_KEYS.map((key) => ({ key, requires_note: key === 'other' }));

/** The static list of document types (GET /document-types). */
export const LIST_DOCUMENT_TYPES = defineUseCase({
  roles: ROLE_ROWS.noLogin,
  summary: 'List document types',
  input: {},
  refusals: [],
  access: 'read',
  run: (): DocumentType[] => [...DOCUMENT_TYPES],
});

/** The static list of payment methods (GET /payment-methods). */
export const LIST_PAYMENT_METHODS = defineUseCase({
  roles: ROLE_ROWS.noLogin,
  summary: 'List payment methods',
  input: {},
  refusals: [],
  access: 'read',
  run: (): PaymentMethod[] => [...PAYMENT_METHODS],
});
