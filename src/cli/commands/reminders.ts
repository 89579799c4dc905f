import type { Command } from 'commander';
import { REMINDERS_AT_DESK } from '../../domain/reminders/reminders-at-desk.js';
import { PREVIEW_REMINDERS, type ReminderPreview } from '../../domain/reminders/preview-reminders.js';
import { LIST_REPLIES } from '../../domain/reminders/replies.js';
import type { Reminder } from '../../domain/reminders/list-reminders.js';
import type { ShownReminderSettings } from '../../domain/reminders/reminder-settings.js';
import { SET_REMINDERS, SHOW_REMINDERS } from '../../domain/reminders/set-reminders.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { DESK_DATE_FORMS } from '../desk-input.js';
import { collect } from '../desk-input.js';
import { deskRecord, deskTable, localDateTime } from '../desk-format.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** What each channel choice means, for people. */
const CHANNEL_MEANINGS = {
  auto: 'SMS where a gateway is set up and the patient has a mobile number, else e-mail',
  sms: 'SMS only',
  email: 'e-mail only',
} as const;

/** The reminder settings for people: rules, channel, quiet hours, and the three templates in force. */
function settingsText(settings: ShownReminderSettings): string {
  const rules =
    settings.rules.length === 0
      ? 'none: no reminders are planned (clinic reminders set --before 1d sets one)'
      : `${settings.rules.join(', ')} before the start`;
  const quiet =
    settings.quiet_hours === null ? 'none' : `${settings.quiet_hours} clinic time (a reminder due then goes a minute before they begin)`;
  return (
    deskRecord([
      ['Rules', rules],
      ['Channel', `${settings.channel} (${CHANNEL_MEANINGS[settings.channel]})`],
      ['Quiet hours', quiet],
      ['SMS', settings.templates.sms],
      ['E-mail subject', settings.templates.email_subject],
    ]) + `E-mail:\n${settings.templates.email.replace(/^/gm, '  ')}\n`
  );
}

type SetOptions = CommonOptions & {
  before?: string[];
  off?: boolean;
  channel?: string;
  quietHours?: string;
  smsTemplate?: string;
  emailSubject?: string;
  emailTemplate?: string;
  defaultTemplates?: boolean;
};

/** A reminder's state for people: the state, and why when it ended otherwise than sent. */
const stateText = (reminder: Reminder) => (reminder.reason === null ? reminder.state : `${reminder.state} (${reminder.reason})`);

/** A day's preview for people: what would go out, to whom, or why not. */
function previewText(preview: ReminderPreview, timeZone: string): string {
  const email =
    preview.email_host === null
      ? 'E-mail: none (clinic serve last ran without --smtp-url), so e-mail reminders would be skipped.'
      : `E-mail: through ${preview.email_host}, as clinic serve was last started.`;
  const table = deskTable(
    [
      { header: 'Due' },
      { header: 'Rule' },
      { header: 'Appointment' },
      { header: 'Patient' },
      { header: 'Now' },
      { header: 'To', shrink: true },
    ],
    preview.reminders.map((reminder) => [
      localDateTime(reminder.due_at, timeZone),
      reminder.rule,
      reminder.appointment_number,
      reminder.patient_number,
      reminder.would === null
        ? stateText(reminder)
        : reminder.would === 'send'
          ? `would send (${reminder.channel})`
          : `would skip (${reminder.would_reason})`,
      reminder.to ?? '',
    ]),
    `No reminders are due on ${preview.date}.`,
  );
  const messages = messagesText(preview.reminders, timeZone);
  return `${email}\n${table}${messages.length === 0 ? '' : `\n${messages.join('\n')}\n`}`;
}

/** Each message of a preview as the patient reads it (what would go now, or what went), indented under its reminder. */
function messagesText(reminders: readonly Reminder[], timeZone: string): string[] {
  const shown = reminders.filter((reminder) => reminder.text !== null);
  if (shown.length === 0) return [];
  const indent = (text: string) => text.replace(/^(?=.)/gm, '    ');
  return [
    'The messages:',
    ...shown.flatMap((reminder) => [
      `  ${localDateTime(reminder.due_at, timeZone)}  ${reminder.appointment_number}  ${reminder.channel} to ${reminder.to}`,
      ...(reminder.subject === null ? [] : [indent(`Subject: ${reminder.subject}`)]),
      indent(reminder.text!),
    ]),
  ];
}

/** `clinic reminders set|show|list|preview`. */
export function registerReminderCommands(program: Command, io: CliIo): void {
  const group = program.command('reminders').description('appointment reminders: the rules, and what was planned and sent');
  subcommand(group, 'set', 'set the reminder rules, channel, quiet hours and templates (what is not given stays)')
    .option(
      '--before <duration>',
      'a reminder this long before the start, 15m to 30d (e.g. 1d, 2h, 1h30m); repeat for up to 5; replaces the rules',
      collect,
    )
    .option('--off', 'remove the rules: no more reminders; those planned are withdrawn')
    .option('--channel <auto|sms|email>', 'auto (SMS with a gateway and a mobile number, else e-mail), sms or email')
    .option('--quiet-hours <HH:MM-HH:MM|off>', 'no reminder goes then (clinic time; default 20:00-08:00); off: none')
    .option(
      '--sms-template <text>',
      'the SMS, 1 to 320 characters: {first_name} {date} {time} {clinic_name} {doctor} {code}; {{ }} for braces',
    )
    .option('--email-subject <text>', "the e-mail's subject, 1 to 200 characters, with the same placeholders")
    .option('--email-template <text>', 'the e-mail, 1 to 5000 characters, with the same placeholders')
    .option('--default-templates', "the country's default templates again, for all three")
    .action(async (options: SetOptions) => {
      await runUseCaseCommand(io, options, SET_REMINDERS, {
        request: () => ({
          body: {
            before: options.before,
            off: options.off,
            channel: options.channel,
            quiet_hours: options.quietHours,
            sms_template: options.smsTemplate,
            email_subject: options.emailSubject,
            email_template: options.emailTemplate,
            default_templates: options.defaultTemplates,
          },
        }),
        json: ({ settings }) => settings,
        print: ({ settings, changed }) =>
          `${changed.length === 0 ? 'Nothing changed.' : `Changed: ${changed.join(', ')}.`}\n${settingsText(settings)}`,
      });
    });
  subcommand(group, 'show', 'show the reminder rules, channel, quiet hours and templates').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, SHOW_REMINDERS, { request: () => ({}), print: settingsText });
  });
  subcommand(group, 'list', 'every reminder that matches, by when it is due (as GET /reminders)')
    .option('--date <day>', `the clinic day they are due: ${DESK_DATE_FORMS} (default: every day)`)
    .option('--state <states>', 'only these states, comma-separated: scheduled, sent, failed, withdrawn, expired, skipped')
    .option('--patient <ref>', "only this patient's: the number (P-000042, P-42) or the id")
    .action(async (options: CommonOptions & { date?: string; state?: string; patient?: string }) => {
      await runUseCaseCommand(io, options, REMINDERS_AT_DESK, {
        request: () => ({ query: { date: options.date, state: options.state, patient: options.patient } }),
        print: (reminders, db) => {
          const timeZone = clinicTimeZone(db);
          return deskTable(
            [
              { header: 'Due' },
              { header: 'Rule' },
              { header: 'Appointment' },
              { header: 'Patient' },
              { header: 'State' },
              { header: 'To', shrink: true },
            ],
            reminders.map((reminder) => [
              localDateTime(reminder.due_at, timeZone),
              reminder.rule,
              reminder.appointment_number,
              reminder.patient_number,
              stateText(reminder),
              reminder.to ?? '',
            ]),
            'No reminders match.',
          );
        },
      });
    });
  subcommand(group, 'preview', "a day's reminders as they would go out now: sent, or skipped and why")
    .option('--date <day>', `the clinic day they are due: ${DESK_DATE_FORMS} (default: today)`)
    .action(async (options: CommonOptions & { date?: string }) => {
      await runUseCaseCommand(io, options, PREVIEW_REMINDERS, {
        request: () => ({ query: { date: options.date } }),
        json: (preview) => preview.reminders,
        print: (preview, db) => previewText(preview, clinicTimeZone(db)),
      });
    });
  subcommand(
    group,
    'replies',
    'the replies to SMS reminders the desk must read: words the program does not know, numbers it does not match',
  )
    .option('--all', 'every reply of the last 30 days, confirmations and declines too')
    .action(async (options: CommonOptions & { all?: boolean }) => {
      await runUseCaseCommand(io, options, LIST_REPLIES, {
        request: () => ({ query: { all: options.all === true } }),
        print: (replies, db) => {
          const timeZone = clinicTimeZone(db);
          return deskTable(
            [
              { header: 'Received' },
              { header: 'From' },
              { header: 'Outcome' },
              { header: 'Appointment' },
              { header: 'Patient' },
              { header: 'Text', shrink: true },
            ],
            replies.map((reply) => [
              localDateTime(reply.received_at, timeZone),
              reply.from,
              reply.outcome,
              reply.appointment_number ?? '',
              reply.patient_number ?? '',
              reply.text,
            ]),
            options.all === true
              ? 'No replies in the last 30 days.'
              : 'No replies to read: every reply of the last 30 days confirmed or declined an appointment.',
          );
        },
      });
    });
}
