import type { Command } from 'commander';
import { clinicCurrency, clinicTimeZone, setClinicTimeZone } from '../../domain/settings.js';
import { withDatabase } from '../database.js';
import { fieldArgument } from '../field-options.js';
import type { CliIo } from '../io.js';
import { emit, formatRecord, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** `clinic settings show` and `clinic settings set-timezone ZONE`. */
export function registerSettingsCommands(program: Command, io: CliIo): void {
  const group = program.command('settings').description('clinic settings');
  subcommand(group, 'show', 'show the clinic settings').action(async (options: CommonOptions) => {
    await withDatabase(options, (db) => {
      const settings = { timezone: clinicTimeZone(db), currency: clinicCurrency(db) };
      emit(io, options, settings, () => formatRecord(settings));
    });
  });
  fieldArgument(
    subcommand(group, 'set-timezone', 'set the IANA time zone in which date-times without an offset are read'),
    '<zone>',
    'e.g. Europe/Berlin',
    'timezone',
  ).action(async (zone: string, options: CommonOptions) => {
    await withDatabase(options, (db) => {
      const timezone = setClinicTimeZone(db, zone);
      emit(io, options, { timezone }, () => `timezone set to ${timezone}\n`);
    });
  });
}
