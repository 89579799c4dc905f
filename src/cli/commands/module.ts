import type { Command } from 'commander';
import { isModuleEnabled, MODULES, setModuleEnabled } from '../../domain/settings.js';
import { withDatabase } from '../database.js';
import { fieldArgument } from '../field-options.js';
import type { CliIo } from '../io.js';
import { emit, formatTable, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** `clinic module enable|disable|list`: the billing and payments modules, applied at once. */
export function registerModuleCommands(program: Command, io: CliIo): void {
  const group = program.command('module').description(`switch the optional modules (${MODULES.join(', ')})`);
  for (const enabled of [true, false]) {
    fieldArgument(
      subcommand(group, enabled ? 'enable' : 'disable', `${enabled ? 'enable' : 'disable'} a module (takes effect at once)`),
      '<module>',
      MODULES.join(' or '),
      'module',
    ).action(async (module: string, options: CommonOptions) => {
      await withDatabase(options, (db) => {
        const result = setModuleEnabled(db, module, enabled);
        emit(io, options, result, () => `module ${result.module} ${enabled ? 'enabled' : 'disabled'}\n`);
      });
    });
  }
  subcommand(group, 'list', 'show which modules are on').action(async (options: CommonOptions) => {
    await withDatabase(options, (db) => {
      const modules = MODULES.map((module) => ({ module, enabled: isModuleEnabled(db, module) }));
      emit(io, options, modules, () => formatTable(modules, ['module', 'enabled']));
    });
  });
}
