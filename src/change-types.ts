/** The change feed's vocabulary (clinic-api-1.2.md, "Change feed"): on the ground floor, since the field descriptions, the database and the domain all name the types. */

/** Every type an event can have, in the order of the specification's list. */
export const CHANGE_TYPES = [
  'patient.created',
  'patient.updated',
  'appointment.created',
  'appointment.updated',
  'document.created',
  'invoice.created',
  'invoice.voided',
  'payment.created',
  'refund.created',
  'invoice.credited',
  // 1.3.0: the patient confirmed or declined (a reply to a reminder, or told the desk or an integration).
  'appointment.confirmed',
  'appointment.declined',
  // 1.3.0: a reminder's move to sent, failed, expired or skipped by the sender.
  'reminder.updated',
  // 1.3.0: the patient was erased; integrations delete their copies (data {}).
  'patient.erased',
] as const;

export type ChangeType = (typeof CHANGE_TYPES)[number];
