import { eventHash } from '../../domain/audit/audit-event.js';
import type { FieldSpec } from '../../fields/field-spec.js';
import { DOCUMENT_TYPES, PAYMENT_METHODS } from '../../domain/lookups.js';
import { MODELS, type ModelName } from './models.js';

/**
 * Example requests and responses of the interface description. Responses are completed from the field
 * descriptions (a field not given takes its default, or null), so they have every field the
 * server returns; test/server/routes/openapi.test.ts checks each against its schema.
 */

const PATIENT_ID = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';
const DOCTOR_ID = '0b7e6f1a-2c3d-4e5f-8a9b-1c2d3e4f5a6b';
const SERVICE_ID = 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f';
const INVOICE_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const PAYMENT_ID = '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e';
const APPOINTMENT_ID = '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a';
const DOCUMENT_ID = '7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b';
const CREATED_AT = '2026-11-20T08:15:00.000Z';

/** A response example of `model`: `values` over every field's default (or null). */
function exampleOf(model: ModelName, values: Record<string, unknown>): Record<string, unknown> {
  return completed(MODELS[model].fields, values);
}

function completed(fields: readonly FieldSpec[], values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const example: Record<string, unknown> = {};
  for (const spec of fields) {
    const value = values[spec.name];
    if (spec.requestOnly) continue;
    // An object is completed field by field, but a nullable one given as null (a refund's credit_note) stays null.
    if (spec.kind === 'object' && !(value === null && spec.nullable))
      example[spec.name] = completed(spec.fields, (value ?? {}) as Record<string, unknown>);
    else if (value !== undefined) example[spec.name] = value;
    else if (spec.default !== undefined) example[spec.name] = spec.default;
    else if (spec.nullable) example[spec.name] = null;
    else throw new Error(`an example needs a value for ${spec.name}`);
  }
  return example;
}

export const patientInputExample = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.org',
  mobile: '+43 660 1234567',
  date_of_birth: '1985-12-10',
  discount_percent: '5.5',
  portal_access: { invoices: true },
};

export const patientExample = exampleOf('Patient', {
  ...patientInputExample,
  id: PATIENT_ID,
  patient_number: 'P-000042',
  is_active: true,
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  version: 1,
  outstanding_balances: [],
  erased_at: null,
});

export const patientPatchExample = { mobile: '+43 660 7654321', notes: null, portal_access: { xrays: true } };

export const appointmentPatchExample = { start_at: '2026-12-01T10:00', end_at: '2026-12-01T10:30', overlap: 'reject' };

export const appointmentInputExample = {
  patient_id: PATIENT_ID,
  start_at: '2026-12-01T09:00',
  end_at: '2026-12-01T09:30',
  resource_id: DOCTOR_ID,
  service_id: SERVICE_ID,
  title: 'Check-up',
};

const serviceExample = { id: SERVICE_ID, name: 'Check-up', duration_min: 30, price: 80, color: '#33aa55' };
const doctorExample = { id: DOCTOR_ID, name: 'Dr. Grace Hopper', color: '#3366ff' };

export const appointmentExample = exampleOf('Appointment', {
  ...appointmentInputExample,
  start_at: '2026-12-01T08:00:00.000Z',
  end_at: '2026-12-01T08:30:00.000Z',
  id: APPOINTMENT_ID,
  appointment_number: 'A-000007',
  booking_source: 'api',
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  patient_first_name: 'Ada',
  patient_last_name: 'Lovelace',
  patient_number: 'P-000042',
  patient_email: 'ada@example.org',
  patient_mobile: '+43 660 1234567',
  service_name: serviceExample.name,
  service_color: serviceExample.color,
  service_ids: [SERVICE_ID],
  services: [{ id: SERVICE_ID, name: serviceExample.name, color: serviceExample.color, default_duration_min: 30 }],
  clinic_confirmed_at: CREATED_AT,
  confirmation_state: 'awaiting_patient',
});

export const documentFormExample = { file: '(the bytes of scan.pdf)', type: 'xrays', title: 'Panoramic 2026' };

export const documentExample = exampleOf('Document', {
  id: DOCUMENT_ID,
  filename: 'scan.pdf',
  content_type: 'application/pdf',
  size: 482113,
  created_at: CREATED_AT,
  type: 'xrays',
  document_number: 'D-000017',
});

export const invoiceListExample = [
  exampleOf('Invoice', {
    id: INVOICE_ID,
    invoice_number: 'INV-2026-000015',
    patient_id: PATIENT_ID,
    status: 'partially_paid',
    currency: 'EUR',
    total: 120.5,
    amount_paid: 20.5,
    balance: 100,
    issued_at: '2026-11-02T09:00:00.000Z',
    amount_credited: 0,
  }),
];

export const paymentRequestExample = { amount: '20.50', method: 'card', note: null };

export const paymentResultExample = exampleOf('PaymentResult', {
  payment_id: PAYMENT_ID,
  invoice_id: INVOICE_ID,
  patient_id: PATIENT_ID,
  amount: 20.5,
  method: 'card',
  currency: 'EUR',
  created_at: CREATED_AT,
  invoice_status: 'partially_paid',
  invoice_total: 120.5,
  invoice_amount_paid: 20.5,
  invoice_balance: 100,
});

export const patientSummaryListExample = [
  exampleOf('PatientSummary', {
    id: PATIENT_ID,
    patient_number: 'P-000042',
    first_name: 'Ada',
    last_name: 'Lovelace',
    date_of_birth: '1985-12-10',
    email: 'ada@example.org',
    mobile: '+43 660 1234567',
    is_active: true,
    outstanding_balance: '100.00',
    outstanding_currency: 'EUR',
    outstanding_balances: [{ currency: 'EUR', amount: '100.00' }],
  }),
];

export const appointmentListExample = [appointmentExample];

export const documentItemListExample = [
  exampleOf('DocumentItem', {
    ...documentExample,
    title: 'Panoramic 2026',
    sha256: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  }),
];

export const invoiceDetailExample = exampleOf('InvoiceDetail', {
  ...invoiceListExample[0],
  patient_number: 'P-000042',
  patient_first_name: 'Ada',
  patient_last_name: 'Lovelace',
  payments: [{ payment_id: PAYMENT_ID, amount: 20.5, method: 'card', note: null, created_at: CREATED_AT, refunded_amount: 0 }],
  refunds: [],
  credit_notes: [],
});

/** POST /invoices (1.3.0): an invoice for the patient of the other examples. */
export const invoiceRequestExample = { patient_id: PATIENT_ID, total: '120.50', currency: 'EUR', issued_at: '2026-11-02T09:00:00Z' };

/** The invoice POST /invoices answers: as GET /invoices/{invoice_id} gives it, nothing paid yet. */
export const newInvoiceExample = exampleOf('InvoiceDetail', {
  ...invoiceDetailExample,
  invoice_number: 'INV-2026-000016',
  status: 'issued',
  amount_paid: 0,
  balance: 120.5,
  payments: [],
});

export const creditNoteRequestExample = { amount: '15.00', reason: 'X-ray billed twice' };

/** The invoice of invoiceDetailExample once credited 15.00. */
export const creditedInvoiceExample = exampleOf('InvoiceDetail', {
  ...invoiceDetailExample,
  balance: 85,
  amount_credited: 15,
  credit_notes: [
    {
      id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      credit_note_number: 'CN-2026-000003',
      amount: 15,
      reason: 'X-ray billed twice',
      created_at: CREATED_AT,
    },
  ],
});

export const voidRequestExample = { reason: 'Issued to the wrong patient' };

export const refundRequestExample = { amount: '20.50', reason: 'Charged twice', method: 'card' };

export const refundExample = exampleOf('Refund', {
  refund_id: '3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f',
  payment_id: PAYMENT_ID,
  invoice_id: INVOICE_ID,
  patient_id: PATIENT_ID,
  amount: 20.5,
  method: 'card',
  reason: 'Charged twice',
  currency: 'EUR',
  created_at: CREATED_AT,
  invoice_status: 'issued',
  invoice_total: 120.5,
  invoice_amount_paid: 0,
  invoice_balance: 120.5,
  credit_note: null,
});

export const servicesExample = [exampleOf('Service', { ...serviceExample, retired_at: null })];
export const doctorsExample = [exampleOf('Doctor', { ...doctorExample, retired_at: null })];
export const documentTypesExample = [...DOCUMENT_TYPES];
export const paymentMethodsExample = [...PAYMENT_METHODS];

/** Example values of path, query and header parameters, by name (an operation's own in operationParameterExamples). */
export const parameterExamples: Readonly<Record<string, string>> = {
  patient_id: PATIENT_ID,
  invoice_id: INVOICE_ID,
  payment_id: PAYMENT_ID,
  appointment_id: APPOINTMENT_ID,
  document_id: DOCUMENT_ID,
  resource_id: DOCTOR_ID,
  q: 'lovelace ada',
  from: '2026-12-01',
  to: '2026-12-01',
  status: 'booked,arrived',
  limit: '50',
  unpaid: 'true',
  include_retired: 'true',
  'idempotency-key': 'till-2-receipt-0815',
  asset: 'swagger-ui.css',
};

/**
 * Parameters whose example differs by operation: each POST's Idempotency-Key is its own (they
 * share one key space), and `after` is a `seq` on the audit trail and the change feed
 * but an opaque cursor elsewhere, which has no example (it comes from a `Link`).
 */
const operationParameterExamples: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  refundPayment: { 'idempotency-key': 'refund-0815' },
  createCreditNote: { 'idempotency-key': 'credit-0815' },
  createPatient: { 'idempotency-key': 'reception-new-patient-0815' },
  bookAppointment: { 'idempotency-key': 'reception-booking-0815' },
  createInvoice: { 'idempotency-key': 'till-2-invoice-0815' },
  voidInvoice: { 'idempotency-key': 'till-2-void-0815' },
  uploadDocument: { 'idempotency-key': 'scanner-upload-0815' },
  listAuditEvents: { action: 'patient.read,patient.update', after: '0', from: '2026-11-30', to: '2026-12-31' },
  listEvents: { after: '0', types: 'patient.created,patient.updated', wait: '30' },
};

/** The example of parameter `name` of the operation `operationId`, or undefined when it has none (it is left out of the example request). */
export function parameterExample(operationId: string, name: string): string | undefined {
  return operationParameterExamples[operationId]?.[name] ?? parameterExamples[name];
}

/**
 * The records the example requests name. A pasted request must name records that exist, so the
 * example requests name each by a shell variable (`$PATIENT`), which the description's
 * introduction says how to set; the schemas and parameters keep a sample id in its place, the one
 * given here, which an example request's body replaces by the variable.
 */
export const EXAMPLE_IDS = [
  { parameter: 'patient_id', variable: 'PATIENT', id: PATIENT_ID, what: "a patient's `id` (the answer of POST /patients)" },
  { parameter: 'resource_id', variable: 'DOCTOR', id: DOCTOR_ID, what: "a doctor's `id` (GET /doctors)" },
  { parameter: 'service_id', variable: 'SERVICE', id: SERVICE_ID, what: "a service's `id` (GET /services)" },
  {
    parameter: 'appointment_id',
    variable: 'APPOINTMENT',
    id: APPOINTMENT_ID,
    what: "an appointment's `id` (the answer of POST /appointments), booked",
  },
  {
    parameter: 'invoice_id',
    variable: 'INVOICE',
    id: INVOICE_ID,
    what: "an invoice's `id` (GET /invoices); to void it, nothing may be paid on it",
  },
  { parameter: 'payment_id', variable: 'PAYMENT', id: PAYMENT_ID, what: 'a `payment_id` (GET /invoices/{invoice_id}) of 20.50 or more' },
  {
    parameter: 'document_id',
    variable: 'DOCUMENT',
    id: DOCUMENT_ID,
    what: "a document's `id` (the answer of the upload, or the patient's document list)",
  },
] as const;

/** Two events as GET /audit-events gives them: hashes computed as the trail computes them, so the example verifies. */
export const auditEventListExample = (() => {
  const first = {
    seq: 41,
    at: '2026-11-30T09:12:04.311Z',
    action: 'patient.read' as const,
    patient_id: PATIENT_ID,
    patient_number: 'P-000042',
    subject_type: 'patient' as const,
    subject_id: PATIENT_ID,
    actor_type: 'api_key' as const,
    actor_id: '5d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f8a',
    actor_name: 'Praxis-Software',
    source: '127.0.0.1',
    request_id: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
    detail: null,
    prev_hash: 'f3a1c9e2b7d4058e6a1f2c3b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7a',
  };
  const firstEvent = { ...first, hash: eventHash(first) };
  const second = {
    ...first,
    seq: 42,
    at: '2026-11-30T09:13:40.027Z',
    action: 'patient.update' as const,
    actor_type: 'cli' as const,
    actor_id: 'empfang',
    actor_name: 'empfang',
    source: 'EMPFANG-PC',
    request_id: null,
    detail: { changed: ['email', 'mobile'] },
    prev_hash: firstEvent.hash,
  };
  return [exampleOf('AuditEvent', firstEvent), exampleOf('AuditEvent', { ...second, hash: eventHash(second) })];
})();

export const changeEventListExample = [
  exampleOf('ChangeEvent', {
    id: 'evt_1041',
    seq: 1041,
    type: 'payment.created',
    occurred_at: '2026-11-30T09:12:04.311Z',
    patient_id: PATIENT_ID,
    data: {
      payment_id: PAYMENT_ID,
      invoice_id: INVOICE_ID,
      amount: 40,
      method: 'card',
      invoice_status: 'partially_paid',
      invoice_balance: 80.5,
    },
  }),
  exampleOf('ChangeEvent', {
    id: 'evt_1042',
    seq: 1042,
    type: 'patient.updated',
    occurred_at: '2026-11-30T09:13:40.027Z',
    patient_id: PATIENT_ID,
    data: { patient_number: 'P-000042', changed: ['email', 'mobile'] },
  }),
];

/** A page of GET /reminders: one sent by SMS the day before, one still scheduled two hours before. */
export const reminderListExample = [
  {
    id: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
    appointment_id: APPOINTMENT_ID,
    appointment_number: 'A-000041',
    patient_id: PATIENT_ID,
    patient_number: 'P-000042',
    rule: '1d',
    due_at: '2026-11-29T13:00:00.000Z',
    state: 'sent',
    reason: null,
    channel: 'sms',
    to: '+436641234567',
    subject: null,
    text: 'Hallo Maria, Ihr Termin bei Ordination Dr. Huber ist am 30.11.2026 um 14:00. Antworten Sie C zum Bestätigen oder X zum Absagen.',
    attempts: 1,
    next_attempt_at: null,
    sent_at: '2026-11-29T13:00:21.518Z',
    provider_message_id: 'SM1f0e2d3c4b5a69788796a5b4c3d2e1f0',
    error: null,
    created_at: '2026-11-20T09:12:04.311Z',
    updated_at: '2026-11-29T13:00:21.518Z',
  },
  {
    id: '8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e',
    appointment_id: APPOINTMENT_ID,
    appointment_number: 'A-000041',
    patient_id: PATIENT_ID,
    patient_number: 'P-000042',
    rule: '2h',
    due_at: '2026-11-30T11:00:00.000Z',
    state: 'scheduled',
    reason: null,
    channel: null,
    to: null,
    subject: null,
    text: null,
    attempts: 0,
    next_attempt_at: null,
    sent_at: null,
    provider_message_id: null,
    error: null,
    created_at: '2026-11-20T09:12:04.311Z',
    updated_at: '2026-11-20T09:12:04.311Z',
  },
];
