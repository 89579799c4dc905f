import type { Db } from '../../db/open-database.js';
import {
  hasEnded,
  insertReminders,
  moveReminderDue,
  endScheduledReminder,
  plannableAppointments,
  scheduledRemindersWithStart,
  withdrawScheduledOfRule,
  withdrawScheduledReminders,
  type PlannableAppointment,
  type ScheduledReminder,
} from '../../db/reminders.js';
import { newId, nowIso } from '../clock.js';
import { clinicTimeZone } from '../settings.js';
import { toUtcIso, zoneOffsetMinutes } from '../validation/calendar.js';
import { reminderSettings, type QuietHours, type ReminderSettings } from './reminder-settings.js';

/**
 * Reminders planned, moved and withdrawn in the transaction of what changes them (interface 1.3.0,
 * "Reminders"): a booking plans one row per rule, a reschedule withdraws the scheduled ones
 * (`rescheduled`) and plans anew, a status after which no one is reminded withdraws them (the
 * status is the reason), and new rules or quiet hours replan what is scheduled. So a reminder is
 * never sent for an appointment that moved or ended, whatever crashed when.
 */

const DAY_MINUTES = 24 * 60;
const MINUTE_MS = 60_000;

/** Whether minute `minute` of the day lies in the quiet hours (from inclusive, to exclusive, over midnight when to ≤ from). */
function isQuiet(minute: number, quiet: QuietHours): boolean {
  return quiet.from < quiet.to ? minute >= quiet.from && minute < quiet.to : minute >= quiet.from || minute < quiet.to;
}

/**
 * When a reminder due at `dueMs` goes: then, or, if that is within the quiet hours, a minute
 * before they began (19:59 for 20:00-08:00), in clinic time: earlier, never later. Read with the
 * zone's offset at the due time, checked at the answer (a booking pays for this per rule); across
 * a change of offset, the wall clock is read in the zone from scratch.
 */
export function outOfQuietHours(dueMs: number, quiet: QuietHours | null, timeZone: string): number {
  if (quiet === null) return dueMs;
  const offsetMs = zoneOffsetMinutes(timeZone, dueMs) * MINUTE_MS;
  const wall = dueMs + offsetMs;
  const minute = ((Math.floor(wall / MINUTE_MS) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
  if (!isQuiet(minute, quiet)) return dueMs;
  // Back on the wall clock to the minute before the quiet hours began (the evening before, past midnight).
  const back = (minute - (quiet.from - 1) + DAY_MINUTES) % DAY_MINUTES;
  const wallBefore = Math.floor(wall / MINUTE_MS - back) * MINUTE_MS;
  let before = wallBefore - offsetMs;
  if (zoneOffsetMinutes(timeZone, before) * MINUTE_MS !== offsetMs) {
    const clock = new Date(wallBefore);
    const local = {
      year: clock.getUTCFullYear(),
      month: clock.getUTCMonth() + 1,
      day: clock.getUTCDate(),
      hour: clock.getUTCHours(),
      minute: clock.getUTCMinutes(),
      second: 0,
      millisecond: 0,
      offsetMinutes: undefined,
    };
    before = Date.parse(toUtcIso(local, timeZone));
  }
  return Math.min(dueMs, before);
}

/** The due instant (UTC ISO) of a rule for an appointment starting at `startAt`. */
const dueAtOf = (startAt: string, ruleMs: number, quiet: QuietHours | null, timeZone: string): string =>
  new Date(outOfQuietHours(Date.parse(startAt) - ruleMs, quiet, timeZone)).toISOString();

/** What planning needs besides the appointment: the settings, the clinic's zone, now. */
interface Planning {
  settings: ReminderSettings;
  timeZone: string;
  now: string;
}

/** Plans a row per rule of `rules` for one appointment: scheduled, or skipped (`too_late`) when already due. */
function planRows(db: Db, appointment: PlannableAppointment, rules: readonly number[], { settings, timeZone, now }: Planning): void {
  insertReminders(
    db,
    rules.map((ruleMs) => {
      const dueAt = dueAtOf(appointment.start_at, ruleMs, settings.quietHours, timeZone);
      const late = Date.parse(dueAt) <= Date.parse(now);
      return {
        id: newId(),
        appointment_id: appointment.id,
        patient_id: appointment.patient_id,
        rule_ms: ruleMs,
        due_at: dueAt,
        state: late ? 'skipped' : 'scheduled',
        reason: late ? 'too_late' : null,
        created_at: now,
      };
    }),
  );
}

/** The appointment as it stands after a booking or a change: what decides whether it is reminded. */
export interface RemindedAppointment {
  id: string;
  patient_id: string | null;
  start_at: string;
  status: string;
}

/** Whether reminders are planned for the appointment now: a patient's, in the future, booked or a free status. */
const isPlannable = (appointment: RemindedAppointment, now: string): appointment is RemindedAppointment & PlannableAppointment =>
  appointment.patient_id !== null && !hasEnded(appointment.status) && Date.parse(appointment.start_at) > Date.parse(now);

/** The clinic's rules, zone and now, or undefined when it has no rules (nothing to plan). */
function planning(db: Db): Planning | undefined {
  const settings = reminderSettings(db);
  if (settings.rules.length === 0) return undefined;
  return { settings, timeZone: clinicTimeZone(db), now: nowIso() };
}

/** A booking's reminders, in its transaction: one per rule. */
export function planBookingReminders(db: Db, appointment: RemindedAppointment): void {
  const plan = planning(db);
  if (plan === undefined || !isPlannable(appointment, plan.now)) return;
  planRows(db, appointment, plan.settings.rules, plan);
}

/**
 * What a change of an appointment does to its reminders, in the change's transaction: a move
 * withdraws the scheduled ones (`rescheduled`) and plans anew; a status after which no one is
 * reminded (cancelled, no_show, arrived, completed) withdraws them with the status as the reason.
 */
export function followAppointmentChange(
  db: Db,
  after: RemindedAppointment,
  change: { rescheduled: boolean; statusChanged: boolean },
): void {
  if (!change.rescheduled && !change.statusChanged) return;
  const now = nowIso();
  if (hasEnded(after.status)) {
    withdrawScheduledReminders(db, after.id, after.status, now);
    return;
  }
  if (!change.rescheduled) return;
  withdrawScheduledReminders(db, after.id, 'rescheduled', now);
  const plan = planning(db);
  if (plan !== undefined && isPlannable(after, plan.now)) planRows(db, after, plan.settings.rules, plan);
}

/**
 * New reminder settings, in their transaction: scheduled rows of removed rules are withdrawn
 * (`rules_changed`), added rules planned for every future appointment, and new quiet hours move
 * what is still scheduled (earlier or back, as the rule and the new hours say). Returns the
 * reminders it ended `skipped` (`too_late`), whose move the feed tells (reminder.updated).
 */
export function replanForSettings(db: Db, before: ReminderSettings, after: ReminderSettings): ScheduledReminder[] {
  const now = nowIso();
  for (const removed of before.rules.filter((rule) => !after.rules.includes(rule))) withdrawScheduledOfRule(db, removed, now);
  const timeZone = clinicTimeZone(db);
  const skipped: ScheduledReminder[] = [];
  if (JSON.stringify(before.quietHours) !== JSON.stringify(after.quietHours)) {
    for (const row of scheduledRemindersWithStart(db)) {
      const dueAt = dueAtOf(row.start_at, row.rule_ms, after.quietHours, timeZone);
      if (dueAt === row.due_at) continue;
      // Moved to a time already past (into quiet hours that began): too late, as a booking's would be.
      if (Date.parse(dueAt) <= Date.parse(now)) {
        endScheduledReminder(db, row.seq, 'skipped', 'too_late', now);
        skipped.push(row);
      } else moveReminderDue(db, row.seq, dueAt, now);
    }
  }
  const added = after.rules.filter((rule) => !before.rules.includes(rule));
  const plan = { settings: after, timeZone, now };
  if (added.length > 0) for (const appointment of plannableAppointments(db, now)) planRows(db, appointment, added, plan);
  return skipped;
}
