import type { Command } from 'commander';
import { sqliteVersion } from '../../db/open-database.js';
import { PROGRAM_VERSION } from '../../version.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';

/** `clinic version`: the program's version and the Node and SQLite it runs on. */
export function registerVersionCommand(program: Command, io: CliIo): void {
  program
    .command('version')
    .description('print the program version and the Node and SQLite versions it runs on')
    .option('--json', 'print {"version", "node", "sqlite"}')
    .action((options: Omit<CommonOptions, 'data'>) => {
      const versions = { version: PROGRAM_VERSION, node: process.version, sqlite: sqliteVersion() };
      emit(io, options, versions, () => `clinic ${versions.version} (Node ${versions.node}, SQLite ${versions.sqlite})\n`);
    });
}
