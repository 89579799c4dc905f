import { field, type FieldSpec } from './field-spec.js';
import { pageQueryFields } from './page-fields.js';

/** A reminder's states (interface 1.3.0): scheduled, then one final state. */
export const REMINDER_STATES = ['scheduled', 'sent', 'failed', 'withdrawn', 'expired', 'skipped'] as const;
export type ReminderState = (typeof REMINDER_STATES)[number];

/** How a reminder goes. */
export const REMINDER_CHANNELS = ['sms', 'email'] as const;

const at = <const N extends string>(name: N, description: string) => field.datetime(name, { nullable: true, description });
const text = <const N extends string>(name: N, description: string) => field.string(name, { nullable: true, description });

/** The Reminder of GET /reminders (interface 1.3.0, "Reminders"): every field present, null when unset. */
export const REMINDER_FIELDS = [
  field.uuid('id'),
  field.uuid('appointment_id'),
  field.string('appointment_number', { description: 'e.g. A-000041' }),
  field.uuid('patient_id'),
  field.string('patient_number', { description: 'e.g. P-000042' }),
  field.string('rule', { description: 'How long before the start it is due, in its largest units: 1d, 2h, 1h30m' }),
  field.datetime('due_at', { description: 'When it goes: the start less the rule, moved out of the quiet hours (earlier)' }),
  field.literal('state', { values: REMINDER_STATES }),
  text(
    'reason',
    'skipped: too_late, opted_out, no_address, no_channel; withdrawn: rescheduled, cancelled, no_show, arrived, completed, rules_changed; expired: missed; failed: rejected, retries_exhausted, outcome_unknown',
  ),
  field.literal('channel', { nullable: true, values: REMINDER_CHANNELS, description: 'How it was sent (null until decided)' }),
  text('to', 'The mobile number (E.164) or e-mail address it went to'),
  text('subject', "The e-mail's subject, as sent"),
  text('text', 'The text, as sent'),
  field.integer('attempts', { description: 'Tries so far' }),
  at('next_attempt_at', 'The next try after a transient failure'),
  at('sent_at', 'When the gateway or mail server took it'),
  text('provider_message_id', "The gateway's id of the message, or the e-mail's Message-ID"),
  text('error', "The provider's answer to the last failed try (at most 500 characters)"),
  field.datetime('created_at'),
  field.datetime('updated_at'),
] as const satisfies readonly FieldSpec[];

/** The query of GET /reminders less `limit` and `after`. */
export const REMINDER_FILTER_FIELDS = [
  field.date('date', { description: 'Only those due on this clinic day' }),
  field.string('state', { minLength: 1, maxLength: 200, description: `Only these states, comma-separated: ${REMINDER_STATES.join(', ')}` }),
  field.uuid('patient_id', { description: "Only this patient's" }),
  field.uuid('appointment_id', { description: "Only this appointment's" }),
] as const satisfies readonly FieldSpec[];

export const REMINDER_LIST_QUERY_FIELDS = [...REMINDER_FILTER_FIELDS, ...pageQueryFields('50')] as const;
