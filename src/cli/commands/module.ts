import type { Command } from 'commander';
import { LIST_MODULES, SWITCH_MODULE } from '../../domain/desk/clinic-settings.js';
import { MODULES } from '../../domain/settings.js';
import { fieldArgument } from '../field-options.js';
import type { CliIo } from '../io.js';
import { formatTable, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

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
      await runUseCaseCommand(io, options, SWITCH_MODULE, {
        request: () => ({ body: { module, enabled } }),
        print: (result) => `module ${result.module} ${enabled ? 'enabled' : 'disabled'}\n`,
      });
    });
  }
  subcommand(group, 'list', 'show which modules are on').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, LIST_MODULES, {
      request: () => ({}),
      print: (modules) => formatTable(modules, ['module', 'enabled']),
    });
  });
}
