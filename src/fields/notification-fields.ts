import { field, type FieldSpec } from './field-spec.js';

/** How a patient is notified: email when they have an address, else SMS to their mobile. */
export const NOTIFICATION_CHANNELS = ['email', 'sms'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** An outbox row is waiting (or retrying), delivered, or given up on. */
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** Filter of `clinic notifications list`. */
export const NOTIFICATION_QUERY_FIELDS = [
  field.literal('status', { values: NOTIFICATION_STATUSES, description: 'Only rows in this status' }),
] as const satisfies readonly FieldSpec[];
