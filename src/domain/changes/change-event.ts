import type { CHANGE_EVENT_FIELDS } from '../../fields/change-event-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import type { ChangeType } from '../../change-types.js';

/**
 * The change feed's events (clinic-api-1.2.md, "Change feed"): what changed, thin. An event holds
 * ids and what an integration needs to decide whether to read more, never a whole record.
 */

interface AppointmentData {
  appointment_id: string;
  appointment_number: string;
  start_at: string;
  end_at: string;
  status: string;
  resource_id: string | null;
}

interface InvoiceData {
  invoice_id: string;
  invoice_number: string;
  total: number;
  status: string;
}

/** How a patient's confirmation or decline reached the clinic (1.3.0). */
export type ConfirmationVia = 'sms' | 'desk' | 'api';

/** The data of each type, as the specification's table has it. */
export interface ChangeData {
  'patient.created': { patient_number: string };
  'patient.updated': { patient_number: string; changed: string[] };
  'appointment.created': AppointmentData;
  'appointment.updated': AppointmentData & { changed: string[] };
  'document.created': { document_id: string; type: string; size: number };
  'invoice.created': InvoiceData;
  'invoice.voided': InvoiceData;
  'payment.created': {
    payment_id: string;
    invoice_id: string;
    amount: number;
    method: string;
    invoice_status: string;
    invoice_balance: number;
  };
  'refund.created': {
    refund_id: string;
    payment_id: string;
    invoice_id: string;
    amount: number;
    invoice_status: string;
    invoice_balance: number;
  };
  /** The patient's yes or no (1.3.0), and how it came: a reply to an SMS, the desk, an integration. */
  'appointment.confirmed': AppointmentData & { via: ConfirmationVia };
  'appointment.declined': AppointmentData & { via: ConfirmationVia };
  /** A reminder's move to a final state by the sender (1.3.0). */
  'reminder.updated': {
    reminder_id: string;
    appointment_id: string;
    appointment_number: string;
    state: string;
    reason: string | null;
    channel: string | null;
  };
  /** The patient was erased (1.3.0): nothing more is said of them. */
  'patient.erased': Record<string, never>;
  /** A credit note (1.3.0), and the invoice as it left it. */
  'invoice.credited': {
    invoice_id: string;
    credit_note_id: string;
    credit_note_number: string;
    amount: number;
    invoice_status: string;
    invoice_balance: number;
  };
}

/** What a change says of itself; the feed adds its seq and time. */
export type ChangeRecord = {
  [T in ChangeType]: { type: T; patientId: string | null; data: ChangeData[T] };
}[ChangeType];

/** An event as GET /events and a webhook's body give it (src/fields/change-event-fields.ts). */
export type ChangeEvent = ResponseOf<typeof CHANGE_EVENT_FIELDS>;

/** The id of the event of `seq`, as its webhook-id too. */
export function changeEventId(seq: number): string {
  return `evt_${seq}`;
}

/** Names of appointment fields an appointment's event carries. */
export function appointmentData(appointment: {
  id: string;
  appointment_number: string;
  start_at: string;
  end_at: string;
  status: string;
  resource_id: string | null;
}): AppointmentData {
  const { id, appointment_number, start_at, end_at, status, resource_id } = appointment;
  return { appointment_id: id, appointment_number, start_at, end_at, status, resource_id };
}

/** The data of an invoice's event. */
export function invoiceData(invoice: { id: string; invoice_number: string; total: number; status: string }): InvoiceData {
  return { invoice_id: invoice.id, invoice_number: invoice.invoice_number, total: invoice.total, status: invoice.status };
}
