import { HEALTH_FIELDS } from '../../fields/health-fields.js';
import {
  DESK_COMMAND_FIELDS,
  DESK_COMMAND_RESULT_FIELDS,
  DESK_JOIN_FIELDS,
  JOINED_DESK_FIELDS,
  LOGIN_INPUT_FIELDS,
  NEW_SESSION_FIELDS,
  SESSION_FIELDS,
} from '../../fields/session-fields.js';
import { CHANGE_EVENT_FIELDS } from '../../fields/change-event-fields.js';
import { APPOINTMENT_INPUT_FIELDS, APPOINTMENT_PATCH_FIELDS, APPOINTMENT_RESPONSE_FIELDS } from '../../fields/appointment-fields.js';
import {
  CREDIT_NOTE_INPUT_FIELDS,
  INVOICE_DETAIL_FIELDS,
  INVOICE_FIELDS,
  PAYMENT_INPUT_FIELDS,
  PAYMENT_RESULT_FIELDS,
  REFUND_INPUT_FIELDS,
  REFUND_RESULT_FIELDS,
  VOID_INPUT_FIELDS,
  INVOICE_INPUT_FIELDS,
} from '../../fields/billing-fields.js';
import { AUDIT_EVENT_FIELDS } from '../../fields/audit-fields.js';
import { REMINDER_FIELDS } from '../../fields/reminder-fields.js';
import { DOCTOR_FIELDS, SERVICE_FIELDS } from '../../fields/catalog-fields.js';
import { DOCUMENT_FIELDS, DOCUMENT_ITEM_FIELDS } from '../../fields/document-fields.js';
import type { FieldSpec } from '../../fields/field-spec.js';
import { DOCUMENT_TYPE_FIELDS, PAYMENT_METHOD_FIELDS } from '../../fields/lookup-fields.js';
import {
  PATIENT_INPUT_FIELDS,
  PATIENT_PATCH_FIELDS,
  PATIENT_RESPONSE_FIELDS,
  PATIENT_SUMMARY_FIELDS,
} from '../../fields/patient-fields.js';
import type { Direction } from './field-schemas.js';

/** A named schema of the interface description: a field list read in one direction. */
export interface Model {
  direction: Direction;
  fields: readonly FieldSpec[];
  description: string;
}

/** The request bodies and resources of the specification, by their schema name in the interface description. */
export const MODELS = {
  PatientInput: {
    direction: 'request',
    fields: PATIENT_INPUT_FIELDS,
    description:
      "Patient, the body of POST /patients (spec 2.1). `email` and `mobile` are also required as the clinic's contact rule says (`clinic settings set-contact-rule`): both by default (1.0.0's rule), either, or neither; else 422 PATIENT_CONTACT_REQUIRED naming the rule in `detail.rule`. " +
      '`first_name` and `last_name` lose the characters that print as nothing (zero-width, soft hyphen, bidi controls), their length counted without them.',
  },
  Patient: {
    direction: 'response',
    fields: PATIENT_RESPONSE_FIELDS,
    description: 'Patient as returned (spec 2.2): every request field but link_existing_portal_user, defaults applied.',
  },
  AppointmentInput: {
    direction: 'request',
    fields: APPOINTMENT_INPUT_FIELDS,
    description: 'Appointment, the body of POST /appointments (spec 2.4). A null patient_id is refused like an absent one.',
  },
  PatientPatch: {
    direction: 'request',
    fields: PATIENT_PATCH_FIELDS,
    description:
      'A JSON merge patch (RFC 7396) of a Patient (1.2.0): a field present sets its value, `null` clears a nullable one, an absent one stays; `portal_access` is merged key by key. Unknown fields are ignored. ' +
      'Names lose the characters that print as nothing, as in PatientInput.',
  },
  AppointmentPatch: {
    direction: 'request',
    fields: APPOINTMENT_PATCH_FIELDS,
    description:
      'A JSON merge patch (RFC 7396) of an Appointment (1.2.0): its times (a reschedule), doctor, services, texts and status, and `overlap`.',
  },
  Appointment: { direction: 'response', fields: APPOINTMENT_RESPONSE_FIELDS, description: 'Appointment as returned (spec 2.5).' },
  PatientSummary: {
    direction: 'response',
    fields: PATIENT_SUMMARY_FIELDS,
    description: 'One patient of GET /patients (1.1.0): who it is, how to reach them and what they owe.',
  },
  Document: { direction: 'response', fields: DOCUMENT_FIELDS, description: 'A stored document (spec 2.11).' },
  DocumentItem: {
    direction: 'response',
    fields: DOCUMENT_ITEM_FIELDS,
    description: 'A stored document as listed (1.1.0): the upload response plus its title and SHA-256.',
  },
  Invoice: { direction: 'response', fields: INVOICE_FIELDS, description: 'Invoice item (spec 2.8); money as JSON numbers.' },
  InvoiceDetail: {
    direction: 'response',
    fields: INVOICE_DETAIL_FIELDS,
    description:
      "One invoice (1.1.0): the Invoice item, its patient's number and name, and its payments in the order recorded; its refunds " +
      '(1.2.0) and credit notes (1.3.0).',
  },
  PaymentRequest: { direction: 'request', fields: PAYMENT_INPUT_FIELDS, description: 'Payment request (spec 2.9).' },
  PaymentResult: {
    direction: 'response',
    fields: PAYMENT_RESULT_FIELDS,
    description: 'Payment result (spec 2.10): the invoice state as this payment left it, also on a replay.',
  },
  InvoiceRequest: {
    direction: 'request',
    fields: INVOICE_INPUT_FIELDS,
    description: 'An invoice to issue (1.3.0): for whom, how much, in which currency, when.',
  },
  VoidRequest: { direction: 'request', fields: VOID_INPUT_FIELDS, description: 'Why an invoice is void (1.2.0).' },
  CreditNoteRequest: {
    direction: 'request',
    fields: CREDIT_NOTE_INPUT_FIELDS,
    description: 'A credit note (1.3.0): how much less the invoice asks, at most its balance, and why.',
  },
  RefundRequest: {
    direction: 'request',
    fields: REFUND_INPUT_FIELDS,
    description: 'A refund of part or all of a payment (1.2.0); without `amount`, all that can still be refunded.',
  },
  Refund: {
    direction: 'response',
    fields: REFUND_RESULT_FIELDS,
    description: "A refund (1.2.0): the invoice state as this refund left it, also on a replay; a goodwill refund's credit note (1.3.0).",
  },
  Service: { direction: 'response', fields: SERVICE_FIELDS, description: 'Service (spec 2.6).' },
  Doctor: { direction: 'response', fields: DOCTOR_FIELDS, description: 'Doctor (spec 2.7).' },
  DocumentType: { direction: 'response', fields: DOCUMENT_TYPE_FIELDS, description: 'Document type (spec 2.12).' },
  PaymentMethod: { direction: 'response', fields: PAYMENT_METHOD_FIELDS, description: 'Payment method (spec 2.12).' },
  Reminder: {
    direction: 'response',
    fields: REMINDER_FIELDS,
    description:
      'A reminder of an appointment (1.3.0): one per rule of `clinic reminders set`, planned with the booking; `scheduled`, then one final state with its reason. `channel`, `to`, `subject` and `text` are what was sent.',
  },
  AuditEvent: {
    direction: 'response',
    fields: AUDIT_EVENT_FIELDS,
    description: 'One event of the audit trail: who saw or changed whose data (1.2.0). Hash-chained: see `hash` and `prev_hash`.',
  },
  Health: {
    direction: 'response',
    fields: HEALTH_FIELDS,
    description: 'Whether the server can serve (1.2.0): for monitoring, no patient data.',
  },
  LoginInput: {
    direction: 'request',
    fields: LOGIN_INPUT_FIELDS,
    description: "A person's login at a desk PC (1.3.0): their name or id and PIN; with `new_pin`, the PIN set first.",
  },
  Session: {
    direction: 'response',
    fields: SESSION_FIELDS,
    description: 'A person logged in at a PC (1.3.0): ends 30 minutes after its last request, 12 hours after login, on logout.',
  },
  NewSession: {
    direction: 'response',
    fields: NEW_SESSION_FIELDS,
    description: 'A session begun (1.3.0), with its token, given once.',
  },
  DeskJoinInput: {
    direction: 'request',
    fields: DESK_JOIN_FIELDS,
    description: 'A new desk PC joining (1.3.0) with the code `clinic desk pair` printed on the server PC.',
  },
  JoinedDesk: {
    direction: 'response',
    fields: JOINED_DESK_FIELDS,
    description: 'A desk PC joined (1.3.0): its id, name and token, given once.',
  },
  DeskCommandInput: {
    direction: 'request',
    fields: DESK_COMMAND_FIELDS,
    description: "A desk command (1.3.0), run on the server as the session's person from its desk PC.",
  },
  DeskCommandResult: {
    direction: 'response',
    fields: DESK_COMMAND_RESULT_FIELDS,
    description: 'What the desk command printed and its exit code (1.3.0); a refused command is exit 1 or 2 in a 200.',
  },
  ChangeEvent: {
    direction: 'response',
    fields: CHANGE_EVENT_FIELDS,
    description:
      'One committed change (1.2.0), thin: ids and what an integration needs to decide whether to read more. ' +
      "Also the body of a webhook delivery, whose webhook-id is the event's `id`.",
  },
} as const satisfies Record<string, Model>;

export type ModelName = keyof typeof MODELS;
