import assert from 'node:assert/strict';
import { DOCUMENT_TYPE_KEYS } from '../../src/fields/document-fields.js';

// The documented shapes of the API's answers (spec §2, decisions.md §1), asserted on any body:
// the fuzz tests check that whatever was sent, what comes back is one of these.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DATE_TIME = /^-?\d{4,6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LOC_SOURCES = ['body', 'query', 'path', 'header'];

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Asserts that every name in `fields` holds a value of `type` (a typeof name, or a pattern a string must match). */
function assertFields(body: Record<string, any>, fields: Record<string, string | RegExp>, what: string): void {
  for (const [name, type] of Object.entries(fields)) {
    const value = body[name];
    if (type instanceof RegExp) assert.match(String(value), type, `${what}.${name}: ${JSON.stringify(value)}`);
    else if (type.endsWith('|null'))
      assert.ok(value === null || typeof value === type.slice(0, -5), `${what}.${name}: ${JSON.stringify(value)}`);
    else assert.equal(typeof value, type, `${what}.${name}: ${JSON.stringify(value)}`);
  }
}

/** An error body: the 422 `detail` array of pydantic items, or `{detail: {code, message}}` (decisions.md §1). */
export function assertErrorBody(status: number, body: unknown): void {
  assert.ok(isObject(body) && Object.keys(body).join() === 'detail', `error body ${JSON.stringify(body)}`);
  const { detail } = body;
  if (Array.isArray(detail)) {
    assert.equal(status, 422, 'a detail array comes with 422 only');
    assert.ok(detail.length > 0 && detail.length <= 1000, `detail has ${detail.length} items`);
    for (const item of detail) {
      assert.ok(isObject(item), `detail item ${JSON.stringify(item)}`);
      assert.equal(typeof item.type, 'string');
      assert.equal(typeof item.msg, 'string');
      assert.ok(Array.isArray(item.loc) && LOC_SOURCES.includes(item.loc[0]), `loc ${JSON.stringify(item.loc)}`);
      for (const part of item.loc) assert.ok(typeof part === 'string' || Number.isInteger(part), `loc ${JSON.stringify(item.loc)}`);
      if ('ctx' in item) assert.ok(isObject(item.ctx), `ctx ${JSON.stringify(item.ctx)}`);
      for (const key of Object.keys(item)) assert.ok(['type', 'loc', 'msg', 'input', 'ctx'].includes(key), `detail item key ${key}`);
    }
  } else {
    assert.ok(isObject(detail), `detail ${JSON.stringify(detail)}`);
    // code and message always; a refusal may add what it names (detail.rule, detail.conflicts, …), which the
    // OpenAPI document describes and the contract check holds it to.
    assert.deepEqual(Object.keys(detail).slice(0, 2), ['code', 'message'], `detail ${JSON.stringify(detail)}`);
    assert.match(detail.code, /^[A-Z][A-Z_]*$/);
    assert.equal(typeof detail.message, 'string');
  }
}

/** The Patient of spec 2.2. */
export function assertPatient(body: any): void {
  assertFields(
    body,
    {
      id: UUID,
      patient_number: /^P-\d{6,}$/,
      is_active: 'boolean',
      created_at: DATE_TIME,
      updated_at: DATE_TIME,
      first_name: 'string',
      last_name: 'string',
      discount_percent: 'string',
      outstanding_balance: 'string',
    },
    'patient',
  );
  assert.ok(
    isObject(body.portal_access) &&
      Object.values(body.portal_access).length === 8 &&
      Object.values(body.portal_access).every((v) => typeof v === 'boolean'),
  );
  assert.equal('link_existing_portal_user' in body, false);
}

/** Every field of a Session (clinic-api-1.3.md, "Sessions"), in order; a login's answer appends its `token`. */
export const SESSION_KEYS = [
  'id',
  'person_id',
  'person_name',
  'roles',
  'device_id',
  'device_name',
  'created_at',
  'last_used_at',
  'idle_expires_at',
  'expires_at',
];

/**
 * The first fields of the Appointment response (spec 2.5), in the specification's order: each one
 * required, as confirmation_state is of those after them.
 */
export const REQUIRED_APPOINTMENT_KEYS = [
  'id',
  'appointment_number',
  'booking_source',
  'resource_id',
  'patient_id',
  'service_id',
  'title',
  'appointment_type',
  'color',
  'notes',
  'start_at',
  'end_at',
  'status',
  'created_at',
  'updated_at',
];

/** Every field of the Appointment response (spec 2.5), in the specification's order, then those 1.2.0 and 1.3.0 append. */
export const APPOINTMENT_KEYS = [
  ...REQUIRED_APPOINTMENT_KEYS,
  'patient_first_name',
  'patient_last_name',
  'patient_number',
  'patient_email',
  'patient_mobile',
  'patient_cave',
  'patient_classification',
  'service_name',
  'service_color',
  'service_ids',
  'services',
  'clinic_confirmed_at',
  'patient_confirmed_at',
  'reschedule_from_start_at',
  'reschedule_from_end_at',
  'reschedule_at',
  'reschedule_by_role',
  'confirmation_reminder_sent_at',
  'confirmation_state',
  'status_reason',
  'status_changed_at',
  // 1.3.0, after the fields of 1.2.0.
  'patient_declined_at',
];

/** Every field of the PaymentResult response (POST /invoices/{invoice_id}/payments), in order, each one required. */
export const PAYMENT_RESULT_KEYS = [
  'payment_id',
  'invoice_id',
  'patient_id',
  'amount',
  'method',
  'currency',
  'created_at',
  'invoice_status',
  'invoice_total',
  'invoice_amount_paid',
  'invoice_balance',
];

/** What an invoice's detail (GET /invoices/{invoice_id}) shows beyond the list's fields while nothing has happened to it since it was issued. */
export function untouchedInvoiceDetail() {
  return { payments: [], refunds: [], voided_at: null, void_reason: null, amount_credited: 0, credit_notes: [] };
}

/**
 * The records of the patient's copy (clinic-api-1.3.md, "The patient's copy"), the ZIP's first
 * entries in order; the documents' originals follow them, the manifest comes last.
 */
export const PATIENT_COPY_RECORD_FILES = [
  'README.txt',
  'bundle.json',
  'records/patient.json',
  'records/appointments.json',
  'records/invoices.json',
  'records/documents.json',
  'records/reminders.json',
  'access-log.json',
  'recipients.json',
  'summary.html',
];

/** The Appointment of spec 2.5. */
export function assertAppointment(body: any): void {
  assertFields(
    body,
    {
      id: UUID,
      appointment_number: /^A-\d{6,}$/,
      booking_source: /^api$/,
      start_at: DATE_TIME,
      end_at: DATE_TIME,
      status: 'string',
      created_at: DATE_TIME,
      updated_at: DATE_TIME,
      patient_id: UUID,
      confirmation_state: /^(awaiting_patient|awaiting_clinic|confirmed|n_a)$/,
    },
    'appointment',
  );
  for (const name of ['resource_id', 'service_id', 'title', 'appointment_type', 'color', 'notes'])
    assert.ok(name in body, `appointment.${name}`);
  assert.ok(Array.isArray(body.service_ids) && Array.isArray(body.services));
}

/** The Payment result of spec 2.10. */
export function assertPaymentResult(body: any): void {
  assertFields(
    body,
    {
      payment_id: UUID,
      invoice_id: UUID,
      patient_id: UUID,
      amount: 'number',
      method: /^(cash|card|bank|other)$/,
      currency: /^[A-Z]{3}$/,
      created_at: DATE_TIME,
      invoice_status: /^(partially_paid|paid)$/,
      invoice_total: 'number',
      invoice_amount_paid: 'number',
      invoice_balance: 'number',
    },
    'payment',
  );
}

/** An array of Invoice items (spec 2.8). */
export function assertInvoiceList(body: any): void {
  assert.ok(Array.isArray(body), 'an array of invoices');
  for (const invoice of body) {
    assertFields(
      invoice,
      {
        id: UUID,
        invoice_number: /^INV-\d{4}-\d{6,}$/,
        patient_id: UUID,
        status: /^(issued|partially_paid|paid)$/,
        currency: /^[A-Z]{3}$/,
        total: 'number',
        amount_paid: 'number',
        balance: 'number',
      },
      'invoice',
    );
    assert.ok(invoice.issued_at === null || DATE_TIME.test(invoice.issued_at));
  }
}

/** The Document upload response of spec 2.11. */
export function assertDocument(body: any): void {
  assertFields(
    body,
    { id: UUID, filename: 'string', content_type: 'string', size: 'number', created_at: DATE_TIME, type: 'string' },
    'document',
  );
  assert.ok(Number.isInteger(body.size) && body.size > 0);
  assert.ok((DOCUMENT_TYPE_KEYS as readonly string[]).includes(body.type));
}
