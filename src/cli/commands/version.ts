import type { Command } from 'commander';
import { sqliteVersion } from '../../db/open-database.js';
import { PROGRAM_VERSION } from '../../version.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';

/**
 * `clinic version`: the program's version and the Node and SQLite it runs on. It reads no data
 * directory, but takes `--data` like every command (decisions.md §8), so a script that passes
 * it to each command does not get a usage error here.
 */
export function registerVersionCommand(program: Command, io: CliIo): void {
  subcommand(program, 'version', 'print the program version and the Node and SQLite versions it runs on').action(
    (options: CommonOptions) => {
      const versions = { version: PROGRAM_VERSION, node: process.version, sqlite: sqliteVersion() };
      emit(io, options, versions, () => `clinic ${versions.version} (Node ${versions.node}, SQLite ${versions.sqlite})\n`);
    },
  );
}
