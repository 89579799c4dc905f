import type { Db } from '../../db/open-database.js';
import { readSetting, writeSetting } from '../../db/settings.js';
import { durationText } from '../durations.js';
import { clinicCountry } from '../settings.js';
import { defaultTemplates, TEMPLATE_NAMES, type Templates } from './reminder-templates.js';

/**
 * How the clinic reminds (interface 1.3.0, `clinic reminders set|show`): the rules (how long
 * before an appointment), the channel, the quiet hours and the templates a clinic wrote itself.
 * One settings row, read where reminders are planned and sent, so a change applies at once.
 */

export const CHANNEL_CHOICES = ['auto', 'sms', 'email'] as const;
export type ChannelChoice = (typeof CHANNEL_CHOICES)[number];

/** Minutes of the clinic's day in which no reminder is sent: `from` up to `to`, over midnight when `to` ≤ `from`. */
export interface QuietHours {
  from: number;
  to: number;
}

export interface ReminderSettings {
  /** How long before the start each reminder is due, in ms, the longest first; none: no reminders. */
  rules: number[];
  channel: ChannelChoice;
  quietHours: QuietHours | null;
  /** The templates the clinic wrote; the others are the defaults of its country. */
  ownTemplates: Partial<Templates>;
}

/** 20:00 to 08:00 clinic time, until the clinic sets others or `off`. */
const DEFAULT_QUIET_HOURS: QuietHours = { from: 20 * 60, to: 8 * 60 };

const SETTING_KEY = 'reminders';

/** The clinic's reminder settings (none stored: no rules, `auto`, 20:00-08:00, the default templates). */
export function reminderSettings(db: Db): ReminderSettings {
  const stored = readSetting(db, SETTING_KEY);
  if (stored === undefined) return { rules: [], channel: 'auto', quietHours: DEFAULT_QUIET_HOURS, ownTemplates: {} };
  return JSON.parse(stored) as ReminderSettings;
}

export function writeReminderSettings(db: Db, settings: ReminderSettings): void {
  writeSetting(db, SETTING_KEY, JSON.stringify(settings));
}

/** `HH:MM` of a minute of the day. */
const clockText = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/** `20:00-08:00`, or null for none. */
export const quietHoursText = (quiet: QuietHours | null): string | null =>
  quiet === null ? null : `${clockText(quiet.from)}-${clockText(quiet.to)}`;

/** The minutes of `HH:MM-HH:MM` (00:00 to 23:59 each, different), or undefined when it is not that. */
export function quietHoursOf(text: string): QuietHours | undefined {
  const match = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (match === null) return undefined;
  const [from, to] = [Number(match[1]) * 60 + Number(match[2]), Number(match[3]) * 60 + Number(match[4])];
  return from === to ? undefined : { from, to };
}

/** The templates in force: the clinic's own, else its country's defaults. */
export function templatesInForce(db: Db, settings: ReminderSettings): Templates {
  const defaults = defaultTemplates(clinicCountry(db));
  return Object.fromEntries(TEMPLATE_NAMES.map((name) => [name, settings.ownTemplates[name] ?? defaults[name]])) as Templates;
}

/** `reminders show --json` (and `set --json`). */
export interface ShownReminderSettings {
  rules: string[];
  channel: ChannelChoice;
  quiet_hours: string | null;
  templates: Templates;
}

export function shownReminderSettings(db: Db, settings: ReminderSettings): ShownReminderSettings {
  return {
    rules: settings.rules.map(durationText),
    channel: settings.channel,
    quiet_hours: quietHoursText(settings.quietHours),
    templates: templatesInForce(db, settings),
  };
}
