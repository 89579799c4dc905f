import type { Command } from 'commander';
import { SCHEMA_VERSION } from '../../db/migrations.js';
import { resolve } from 'node:path';
import { withDatabase } from '../database.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';

/** `clinic init`: creates the data directory and database; safe to run again. */
export function registerInitCommand(program: Command, io: CliIo): void {
  subcommand(program, 'init', 'create the data directory and database (safe to run twice)').action(async (options: CommonOptions) => {
    await withDatabase(
      options,
      () => {
        const result = { data_dir: resolve(options.data), schema_version: SCHEMA_VERSION };
        emit(io, options, result, () => `data directory ${result.data_dir} is ready (schema version ${SCHEMA_VERSION})\n`);
      },
      { create: true },
    );
  });
}
