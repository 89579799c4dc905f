import type { Db } from '../../db/open-database.js';
import { errors, type ValidationIssue } from '../../errors.js';
import { field, type ValuesOf } from '../../fields/field-spec.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { DURATION_FORM, durationMsOf, durationText } from '../durations.js';
import { ROLE_ROWS } from '../people/roles.js';
import { clinicName } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { problems } from '../validation/problems.js';
import { isPlainObject } from '../validation/structs.js';
import { issue } from '../validation/validate.js';
import type { ScheduledReminder } from '../../db/reminders.js';
import { replanForSettings } from './plan-reminders.js';
import { reminderUpdated } from './reminder-updated.js';
import {
  CHANNEL_CHOICES,
  quietHoursOf,
  reminderSettings,
  shownReminderSettings,
  writeReminderSettings,
  type ReminderSettings,
  type ShownReminderSettings,
} from './reminder-settings.js';
import { parseTemplate, type TemplateName } from './reminder-templates.js';

/** A rule is due 15 minutes to 30 days before the start; a clinic has at most five. */
const SHORTEST_RULE_MS = 15 * 60_000;
const LONGEST_RULE_MS = 30 * 86_400_000;
export const MOST_RULES = 5;

/** The request fields of the three templates, with their lengths, by template name. */
const TEMPLATE_FIELDS = [
  ['sms', 'sms_template', 320],
  ['email_subject', 'email_subject', 200],
  ['email', 'email_template', 5000],
] as const satisfies readonly (readonly [TemplateName, string, number])[];

const SET_REMINDERS_FIELDS = [
  field.stringList('before', {
    maxItems: MOST_RULES,
    maxItemLength: 20,
    description: `how long before the start a reminder is due, 15m to 30d (${DURATION_FORM}); 1 to ${MOST_RULES} distinct; replaces the rules`,
  }),
  field.boolean('off', { description: 'remove the rules: no more reminders are planned, those planned are withdrawn' }),
  field.literal('channel', {
    values: CHANNEL_CHOICES,
    description: 'auto (SMS where a gateway and a mobile are there, else e-mail), sms or email',
  }),
  field.string('quiet_hours', {
    description: 'HH:MM-HH:MM in clinic time, or off; a reminder due within them goes a minute before they begin',
  }),
  ...TEMPLATE_FIELDS.map(([, name, maxLength]) =>
    field.string(name, {
      minLength: 1,
      maxLength,
      description: `the ${name.replace('_', ' ')}, 1 to ${maxLength} characters, with placeholders`,
    }),
  ),
  field.boolean('default_templates', { description: "the country's default templates again, for all three" }),
] as const;

/** The rules of `before` in ms, longest first, or the issues of its items (not a duration, out of range, repeated). */
function ruleIssues(body: unknown, fieldIssues: readonly ValidationIssue[]): ValidationIssue[] {
  if (!isPlainObject(body)) return [];
  const found: ValidationIssue[] = [];
  const failed = new Set(fieldIssues.map((failedIssue) => failedIssue.loc[1]));
  if (Array.isArray(body.before) && !failed.has('before')) {
    if (body.before.length === 0) found.push(issue(['body', 'before'], problems.valueError('give at least one rule, or off'), body.before));
    const seen = new Set<number>();
    body.before.forEach((text: unknown, index) => {
      const ms = typeof text === 'string' ? durationMsOf(text.trim()) : undefined;
      const problem =
        ms === undefined
          ? `expected ${DURATION_FORM}`
          : ms < SHORTEST_RULE_MS || ms > LONGEST_RULE_MS
            ? 'a rule is 15m to 30d before the start'
            : seen.has(ms)
              ? `${durationText(ms)} is given twice`
              : undefined;
      if (problem !== undefined) found.push(issue(['body', 'before', index], problems.valueError(problem), text));
      if (ms !== undefined) seen.add(ms);
    });
    if (body.off === true) found.push(issue(['body', 'off'], problems.valueError('off removes the rules: give it without before'), true));
  }
  if (typeof body.quiet_hours === 'string' && !failed.has('quiet_hours')) {
    if (body.quiet_hours.trim().toLowerCase() !== 'off' && quietHoursOf(body.quiet_hours) === undefined) {
      found.push(
        issue(
          ['body', 'quiet_hours'],
          problems.valueError('expected HH:MM-HH:MM (two different times, e.g. 20:00-08:00) or off'),
          body.quiet_hours,
        ),
      );
    }
  }
  if (body.default_templates === true && TEMPLATE_FIELDS.some(([, name]) => body[name] !== undefined)) {
    found.push(
      issue(
        ['body', 'default_templates'],
        problems.valueError('the default templates replace all three: give it without a template'),
        true,
      ),
    );
  }
  return found;
}

/** What changed, by the names `setting.update` records. */
interface RemindersChange {
  settings: ShownReminderSettings;
  changed: string[];
  /** The scheduled reminders that new quiet hours left too late to send: the feed tells each. */
  skipped: ScheduledReminder[];
}

/** The settings after the request: what is not given stays. */
function settingsAfter(before: ReminderSettings, body: ValuesOf<typeof SET_REMINDERS_FIELDS>): ReminderSettings {
  const after: ReminderSettings = { ...before, ownTemplates: { ...before.ownTemplates } };
  if (body.before !== undefined)
    after.rules = [...new Set(body.before.map((text: string) => durationMsOf(text.trim())!))].sort((a, b) => b - a);
  if (body.off === true) after.rules = [];
  if (body.channel !== undefined) after.channel = body.channel;
  if (body.quiet_hours !== undefined) {
    after.quietHours = body.quiet_hours.trim().toLowerCase() === 'off' ? null : quietHoursOf(body.quiet_hours)!;
  }
  if (body.default_templates === true) after.ownTemplates = {};
  for (const [name, requestField] of TEMPLATE_FIELDS) {
    const written = body[requestField];
    if (written === undefined) continue;
    parseTemplate(written, requestField);
    after.ownTemplates[name] = written;
  }
  return after;
}

/** The names of what differs between two settings, as `setting.update` records them. */
function changedNames(before: ReminderSettings, after: ReminderSettings): string[] {
  const changed: string[] = [];
  if (before.rules.join() !== after.rules.join()) changed.push('reminder_rules');
  if (before.channel !== after.channel) changed.push('reminder_channel');
  if (JSON.stringify(before.quietHours) !== JSON.stringify(after.quietHours)) changed.push('quiet_hours');
  for (const [name, requestField] of TEMPLATE_FIELDS) {
    if (before.ownTemplates[name] !== after.ownTemplates[name]) changed.push(requestField);
  }
  return changed;
}

/**
 * `clinic reminders set` (interface 1.3.0): changes what is given and keeps the rest. Rules need
 * the clinic's name (422 SETTING_REQUIRED), since every template may say it. In the same
 * transaction the planned reminders follow: rows of removed rules are withdrawn
 * (`rules_changed`), added rules planned for future appointments, and new quiet hours move the
 * scheduled ones (replanForSettings).
 */
export const SET_REMINDERS = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Set the reminder rules, channel, quiet hours and templates (what is not given stays)',
  input: { body: SET_REMINDERS_FIELDS },
  refusals: [errors.settingRequired('name'), errors.templateInvalid('{doctor_name}', 'sms_template', ['first_name'])],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => ruleIssues(body, fieldIssues),
  run(db: Db, { body }): RemindersChange {
    const before = reminderSettings(db);
    const after = settingsAfter(before, body);
    if (after.rules.length > 0 && clinicName(db) === null) throw errors.settingRequired('name');
    const changed = changedNames(before, after);
    if (changed.length === 0) return { settings: shownReminderSettings(db, after), changed, skipped: [] };
    writeReminderSettings(db, after);
    const skipped = replanForSettings(db, before, after);
    return { settings: shownReminderSettings(db, after), changed, skipped };
  },
  audit: ({ changed }): AuditRecord[] =>
    changed.length === 0 ? [] : [{ action: 'setting.update', patientId: null, subjectId: null, detail: { changed } }],
  changes: ({ skipped }) => skipped.map((reminder) => reminderUpdated(reminder, 'skipped', 'too_late', reminder.channel)),
});

/** `clinic reminders show`: the rules, channel, quiet hours and the templates in force. */
export const SHOW_REMINDERS = defineUseCase({
  roles: ROLE_ROWS.readReminders,
  summary: 'Show the reminder rules, channel, quiet hours and templates',
  input: {},
  refusals: [],
  access: 'read',
  run: (db): ShownReminderSettings => shownReminderSettings(db, reminderSettings(db)),
});
