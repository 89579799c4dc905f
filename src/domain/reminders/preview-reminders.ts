import type { Db } from '../../db/open-database.js';
import { remindersDueBetween } from '../../db/reminders.js';
import { field } from '../../fields/field-spec.js';
import { perDistinctPatient } from '../audit/record-audit.js';
import { deskDate } from '../desk/desk-date.js';
import { ROLE_ROWS } from '../people/roles.js';
import { clinicTimeZone } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { nextDay, parseDate, startOfDay } from '../validation/calendar.js';
import { presentReminder, type Reminder } from './list-reminders.js';
import { serverEmailHost } from './reminder-channels.js';
import { decide } from './send-reminders.js';
import { smsGateway } from './sms-gateway.js';

/** A reminder of the day previewed: as it stands, and for a scheduled one what would be done with it now. */
export interface PreviewedReminder extends Reminder {
  /** send or skip for a scheduled reminder; null for one already final. */
  would: 'send' | 'skip' | null;
  /** Why it would be skipped (skipped's reasons, or expired `missed`, failed `outcome_unknown`). */
  would_reason: string | null;
}

/** The day previewed, and whether the last `clinic serve` sends e-mail. */
export interface ReminderPreview {
  date: string;
  email_host: string | null;
  reminders: PreviewedReminder[];
}

/**
 * `clinic reminders preview --date D` (interface 1.3.0): each reminder due that clinic day; a
 * scheduled one rendered as it would go out now, by the channels the last `clinic serve` had
 * (only it knows its `--smtp-url`), with `would` send or skip and why; a final one as it is.
 * Nothing is changed; each patient shown is recorded (`reminder.read`).
 */
export const PREVIEW_REMINDERS = defineUseCase({
  roles: ROLE_ROWS.readReminders,
  summary: "A day's reminders as they would go out now",
  input: { query: [field.string('date', { description: 'the clinic day: 30.11.2026, 2026-11-30, today or tomorrow (default: today)' })] },
  refusals: [],
  access: 'read',
  run(db: Db, { query }): ReminderPreview {
    const now = Date.now();
    const timeZone = clinicTimeZone(db);
    const date = deskDate(query.date, timeZone, now);
    const day = parseDate(date);
    const emailHost = serverEmailHost(db);
    const gateway = smsGateway(db);
    const reminders = remindersDueBetween(db, startOfDay(day, timeZone), startOfDay(nextDay(day), timeZone)).map(
      (row): PreviewedReminder => {
        const shown = presentReminder(row);
        if (row.state !== 'scheduled') return { ...shown, would: null, would_reason: null };
        const decision = decide(db, row, { email: emailHost !== null, sms: gateway }, now);
        if ('end' in decision) return { ...shown, would: 'skip', would_reason: decision.reason };
        return {
          ...shown,
          channel: decision.channel,
          to: decision.to,
          subject: decision.subject,
          text: decision.text,
          would: 'send',
          would_reason: null,
        };
      },
    );
    return { date, email_host: emailHost, reminders };
  },
  audit: ({ reminders }) => perDistinctPatient(reminders, (reminder) => reminder.patient_id, { action: 'reminder.read' }),
});
