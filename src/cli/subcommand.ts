import type { Command } from 'commander';
import { defaultWindowsDataDir } from '../autostart/windows-task.js';

/**
 * The default data directory: `CLINIC_DATA`, else on Windows %ProgramData%\Clinic (where `clinic
 * service install` puts it), else `./data`.
 */
export function defaultDataDir(): string {
  return process.env.CLINIC_DATA || (process.platform === 'win32' ? defaultWindowsDataDir() : './data');
}

/** A subcommand with the options every command takes (decisions.md §8). */
export function subcommand(parent: Command, name: string, description: string): Command {
  return parent
    .command(name)
    .description(description)
    .option('--data <dir>', 'data directory (env CLINIC_DATA)', defaultDataDir())
    .option('--json', "print machine-readable JSON in the API's own shape");
}
