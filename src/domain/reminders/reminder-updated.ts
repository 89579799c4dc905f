import type { ChangeRecord } from '../changes/change-event.js';

/** A reminder as the feed names it: its id, its appointment's id and number, and its patient. */
export interface FeedReminder {
  id: string;
  appointment_id: string;
  appointment_number: string;
  patient_id: string;
}

/**
 * The feed's reminder.updated for a reminder's move to a final state (clinic-api-1.3.md, "Feed
 * types": `sent`, `failed`, `expired`, `skipped`), whether the sender moved it or new quiet hours
 * left it too late to send.
 */
export const reminderUpdated = (reminder: FeedReminder, state: string, reason: string | null, channel: string | null): ChangeRecord => ({
  type: 'reminder.updated',
  patientId: reminder.patient_id,
  data: {
    reminder_id: reminder.id,
    appointment_id: reminder.appointment_id,
    appointment_number: reminder.appointment_number,
    state,
    reason,
    channel,
  },
});
