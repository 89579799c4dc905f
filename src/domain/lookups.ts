import { PAYMENT_METHOD_KEYS } from '../fields/billing-fields.js';
import { DOCUMENT_TYPE_KEYS } from '../fields/document-fields.js';

/** A document type of spec 2.12. */
export interface DocumentType {
  key: (typeof DOCUMENT_TYPE_KEYS)[number];
  label: string;
}

/** A payment method of spec 2.12; `requires_note` is a hint to clients, not enforced. */
export interface PaymentMethod {
  key: string;
  requires_note: boolean;
}

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

const DOCUMENT_TYPES: readonly DocumentType[] = DOCUMENT_TYPE_KEYS.map((key) => ({ key, label: DOCUMENT_TYPE_LABELS[key] }));
const PAYMENT_METHODS: readonly PaymentMethod[] = PAYMENT_METHOD_KEYS.map((key) => ({ key, requires_note: key === 'other' }));

/** The static list of document types. */
export function listDocumentTypes(): readonly DocumentType[] {
  return DOCUMENT_TYPES;
}

/** The static list of payment methods. */
export function listPaymentMethods(): readonly PaymentMethod[] {
  return PAYMENT_METHODS;
}
