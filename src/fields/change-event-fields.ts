import { CHANGE_TYPES } from '../change-types.js';
import { field, type FieldSpec } from './field-spec.js';

const id = { type: 'string', format: 'uuid' } as const;
const text = { type: 'string' } as const;
const money = { type: 'number', description: "In the invoice's currency" } as const;
const changed = { type: 'array', items: text, description: 'The request fields whose stored value changed, sorted' } as const;

/** An event of the change feed, as GET /events gives it and as a webhook's body (clinic-api-1.2.md, "Change feed"). */
export const CHANGE_EVENT_FIELDS = [
  field.string('id', { required: true, description: '`evt_` + seq; also the webhook-id of its delivery' }),
  field.integer('seq', { required: true, minimum: 1, description: 'The commit order, 1, 2, 3, … without gaps' }),
  field.literal('type', { required: true, values: CHANGE_TYPES }),
  field.datetime('occurred_at', { required: true, description: 'When the change was committed, UTC' }),
  field.uuid('patient_id', {
    required: true,
    nullable: true,
    description: "Whose record changed; null for an appointment that blocks a doctor's time",
  }),
  field.jsonObject('data', {
    required: true,
    description:
      'Ids and what an integration needs to decide whether to read more, never a whole record. patient.*: patient_number ' +
      '(updated: also changed); appointment.*: appointment_id, appointment_number, start_at, end_at, status, resource_id ' +
      '(updated: also changed); document.created: document_id, type, size; invoice.*: invoice_id, invoice_number, total, status; ' +
      'payment.created: payment_id, invoice_id, amount, method, invoice_status, invoice_balance; refund.created: refund_id, ' +
      'payment_id, invoice_id, amount, invoice_status, invoice_balance; invoice.credited (1.3.0): invoice_id, credit_note_id, ' +
      'credit_note_number, amount, invoice_status, invoice_balance; appointment.confirmed, appointment.declined (1.3.0): as ' +
      'appointment.*, and via (sms, desk or api); reminder.updated (1.3.0): reminder_id, appointment_id, appointment_number, ' +
      'state, reason, channel',
    schema: {
      type: 'object',
      properties: {
        patient_number: text,
        changed,
        appointment_id: id,
        appointment_number: text,
        start_at: { type: 'string', format: 'date-time' },
        end_at: { type: 'string', format: 'date-time' },
        status: text,
        resource_id: { ...id, type: ['string', 'null'] },
        document_id: id,
        type: text,
        size: { type: 'integer', minimum: 1 },
        invoice_id: id,
        invoice_number: text,
        total: money,
        payment_id: id,
        refund_id: id,
        credit_note_id: id,
        credit_note_number: text,
        amount: money,
        method: text,
        invoice_status: text,
        invoice_balance: money,
        via: { type: 'string', enum: ['sms', 'desk', 'api'] },
        reminder_id: id,
        state: text,
        reason: { ...text, type: ['string', 'null'] },
        channel: { type: ['string', 'null'], enum: ['sms', 'email', null] },
      },
      additionalProperties: false,
    },
  }),
] as const satisfies readonly FieldSpec[];
