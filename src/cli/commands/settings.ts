import type { Command } from 'commander';
import {
  SET_CLINIC_COUNTRY,
  SET_CLINIC_NAME,
  SET_CONTACT_RULE,
  SET_CURRENCY,
  RETENTION_FIELDS,
  SET_RETENTION,
  SET_TIME_ZONE,
  SHOW_SETTINGS,
} from '../../domain/desk/clinic-settings.js';
import type { Retention } from '../../domain/retention/retention-rules.js';
import { CONTACT_RULES, type ContactRule, type CurrencyChange, type SettingSource } from '../../domain/settings.js';
import { deskRecord } from '../desk-format.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** Where a value came from, for people; `command` sets it for the clinic. */
function sourceNote(source: SettingSource, command: string): string {
  if (source === 'setting') return 'set for this clinic';
  return `${source === 'machine' ? "this machine's zone" : 'the default'}; clinic settings ${command} sets the clinic's`;
}

/** What a contact rule asks of a patient, for people. */
const CONTACT_RULE_MEANINGS: Readonly<Record<ContactRule, string>> = {
  'email-and-mobile': 'a patient needs both an email address and a mobile number',
  'email-or-mobile': 'a patient needs an email address or a mobile number',
  none: 'a patient may have neither an email address nor a mobile number',
};

/** What changing the currency leaves as it was: the open invoices in another currency. */
function currencyNote({ currency, open_in_other_currencies: open }: CurrencyChange): string {
  const lines = [`New invoices are in ${currency} unless --currency says otherwise.`];
  for (const { currency: other, invoices } of open) {
    lines.push(`${invoices} open invoice${invoices === 1 ? ' stays' : 's stay'} in ${other}, as issued; so do their payments.`);
  }
  return `${lines.join('\n')}\n`;
}

/** A retention preset for people: each rule, how long from when under which law, and what it covers. */
function retentionText(retention: Retention): string {
  const width = Math.max(...retention.rules.map((rule) => rule.id.length)) + 2;
  const rules = retention.rules.map((rule) => {
    // "each entry's date" takes no article; "the end of …" does.
    const since = rule.from === null || rule.from.startsWith('each') ? rule.from : `the ${rule.from}`;
    const kept = rule.years === null ? 'as long as the trail' : `${rule.years} years from ${since}`;
    return `${rule.id.padEnd(width)}${kept} (${rule.reference})\n${' '.repeat(width)}${rule.covers}\n`;
  });
  return `Retention: ${retention.country === 'AT' ? 'Austria' : 'Germany'}, medical records kept ${retention.records_years} years.\n\n${rules.join('')}`;
}

/** `clinic settings show`, `set-timezone ZONE`, `set-currency CODE`, `set-contact-rule RULE`, `set-name TEXT`, `set-country CC` and `set-retention`. */
export function registerSettingsCommands(program: Command, io: CliIo): void {
  const group = program.command('settings').description('clinic settings');
  subcommand(group, 'show', 'show the clinic settings and where each comes from').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, SHOW_SETTINGS, {
      request: () => ({}),
      print: (settings) =>
        deskRecord([
          ['Time zone', `${settings.timezone} (${sourceNote(settings.timezone_source, 'set-timezone ZONE')})`],
          ['Currency', `${settings.currency} (${sourceNote(settings.currency_source, 'set-currency CODE')})`],
          // No label longer than 'Time zone': the lines before keep their layout.
          ['Contact', `${settings.contact_rule} (${sourceNote(settings.contact_rule_source, 'set-contact-rule RULE')})`],
          ['Name', settings.name ?? 'not set (clinic settings set-name TEXT sets it; reminders need it)'],
          ['Country', settings.country ?? 'not set (clinic settings set-country CC sets it)'],
          [
            'Retention',
            settings.retention === null
              ? 'not set (clinic settings set-retention --country AT|DE; erasing a patient needs it)'
              : `${settings.retention.country}, medical records ${settings.retention.records_years} years (clinic settings set-retention)`,
          ],
        ]),
    });
  });
  fieldArgument(
    subcommand(group, 'set-timezone', 'set the IANA time zone in which date-times without an offset are read'),
    '<zone>',
    'e.g. Europe/Vienna, in any case; a city alone is answered with its zone',
    'timezone',
  ).action(async (zone: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, SET_TIME_ZONE, {
      request: () => ({ body: { timezone: zone } }),
      print: ({ timezone }) => `Time zone set to ${timezone}: times without an offset are read in it.\n`,
    });
  });
  fieldArgument(
    subcommand(group, 'set-currency', 'set the clinic currency, the default of new invoices (existing ones keep theirs)'),
    '<code>',
    'an ISO 4217 code, e.g. EUR or CHF, in any case',
    'currency',
  ).action(async (code: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, SET_CURRENCY, {
      request: () => ({ body: { currency: code } }),
      print: (change) => `Currency set to ${change.currency}.\n${currencyNote(change)}`,
    });
  });
  fieldArgument(
    subcommand(group, 'set-contact-rule', 'set how a patient must be reachable to be registered (POST and PATCH /patients too)'),
    '<rule>',
    `${CONTACT_RULES.join(', ')} (default email-and-mobile)`,
    'contact_rule',
  ).action(async (rule: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, SET_CONTACT_RULE, {
      request: () => ({ body: { contact_rule: rule } }),
      print: ({ contact_rule, changed }) =>
        `Contact rule ${changed ? 'set to' : 'stays'} ${contact_rule}: ${CONTACT_RULE_MEANINGS[contact_rule]}.\n`,
    });
  });
  fieldArgument(
    subcommand(group, 'set-name', "set the clinic's name, as reminders give it"),
    '<text>',
    '1 to 100 characters',
    'name',
  ).action(async (text: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, SET_CLINIC_NAME, {
      request: () => ({ body: { name: text } }),
      print: ({ name, changed }) => `Clinic name ${changed ? 'set to' : 'stays'} ${name}.\n`,
    });
  });
  fieldArgument(
    subcommand(group, 'set-country', "set the clinic's country: the reminders' language and how mobile numbers are read"),
    '<cc>',
    'two letters (ISO 3166-1), e.g. AT or DE, in any case',
    'country',
  ).action(async (code: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, SET_CLINIC_COUNTRY, {
      request: () => ({ body: { country: code } }),
      print: ({ country, name, changed }) => `Country ${changed ? 'set to' : 'stays'} ${country} (${name}).\n`,
    });
  });
  addFieldOptions(
    subcommand(group, 'set-retention', 'set how long what an erasure cannot take is kept: the AT or DE preset, records 10 to 30 years'),
    RETENTION_FIELDS,
  ).action(async (options: CommonOptions & Record<string, unknown>) => {
    await runUseCaseCommand(io, options, SET_RETENTION, {
      request: (db) => ({ body: readFieldOptions(options, RETENTION_FIELDS, db) }),
      print: (retention) => retentionText(retention),
      json: ({ changed: _changed, ...retention }) => retention,
    });
  });
}
