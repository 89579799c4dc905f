import type { Command } from 'commander';
import { SET_CURRENCY, SET_TIME_ZONE, SHOW_SETTINGS } from '../../domain/desk/clinic-settings.js';
import type { CurrencyChange } from '../../domain/settings.js';
import { deskRecord } from '../desk-format.js';
import { fieldArgument } from '../field-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../program.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** Where a value came from, for people. */
const SOURCES = {
  setting: 'set for this clinic',
  machine: "this machine's zone; clinic settings set-timezone ZONE sets the clinic's",
  default: "the default; clinic settings set-currency CODE sets the clinic's",
} as const;

/** What changing the currency leaves as it was: the open invoices in another currency. */
function currencyNote({ currency, open_in_other_currencies: open }: CurrencyChange): string {
  const lines = [`New invoices are in ${currency} unless --currency says otherwise.`];
  for (const { currency: other, invoices } of open) {
    lines.push(`${invoices} open invoice${invoices === 1 ? ' stays' : 's stay'} in ${other}, as issued; so do their payments.`);
  }
  return `${lines.join('\n')}\n`;
}

/** `clinic settings show`, `set-timezone ZONE` and `set-currency CODE`. */
export function registerSettingsCommands(program: Command, io: CliIo): void {
  const group = program.command('settings').description('clinic settings');
  subcommand(group, 'show', 'show the clinic settings and where each comes from').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, SHOW_SETTINGS, {
      request: () => ({}),
      print: (settings) =>
        deskRecord([
          ['Time zone', `${settings.timezone} (${SOURCES[settings.timezone_source]})`],
          ['Currency', `${settings.currency} (${SOURCES[settings.currency_source]})`],
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
}
