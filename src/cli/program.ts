import { Command, Help, type Option } from 'commander';
import type { CliIo } from './io.js';
import { EXIT, reportError } from './report-error.js';
import { registerApiKeyCommands } from './commands/api-key.js';
import { registerAppointmentCommands } from './commands/appointment.js';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerDocumentCommands } from './commands/document.js';
import { registerBackupCommands } from './commands/backup.js';
import { registerCheckCommand } from './commands/check.js';
import { registerInitCommand } from './commands/init.js';
import { registerModuleCommands } from './commands/module.js';
import { registerPatientCommands } from './commands/patient.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSettingsCommands } from './commands/settings.js';
import { registerInvoiceCommands } from './commands/invoice.js';
import { registerPaymentCommands } from './commands/payment.js';
import { registerAutostartCommands } from './commands/autostart.js';
import { defaultWindowsDataDir } from '../autostart/windows-task.js';
import { registerReportCommands } from './commands/report.js';
import { registerNotificationCommands } from './commands/notifications.js';
import { registerVersionCommand } from './commands/version.js';
import { PROGRAM_VERSION } from '../version.js';

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

/** Help that marks the options a command cannot run without (commander's own help only enforces them). */
const HELP_MARKING_REQUIRED: Partial<Help> = {
  // Commander leaves descriptions unwrapped when their column is under 40 characters wide, which
  // made create-patient's help 142 columns wide; 20 keeps every help screen within its width.
  minWidthToWrap: 20,
  optionDescription(this: Help, option: Option): string {
    const description = Help.prototype.optionDescription.call(this, option);
    return option.mandatory ? `${description} (required)` : description;
  },
};

/** The whole command tree. */
export function buildProgram(io: CliIo): Command {
  const program = new Command('clinic')
    .description('Clinic practice service: the public JSON API on localhost and a command line over the same data.')
    .version(PROGRAM_VERSION, '-V, --version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .configureHelp(HELP_MARKING_REQUIRED)
    .showHelpAfterError()
    .exitOverride();
  registerServeCommand(program, io);
  registerInitCommand(program, io);
  registerApiKeyCommands(program, io);
  registerCatalogCommands(program, io);
  registerModuleCommands(program, io);
  registerSettingsCommands(program, io);
  registerPatientCommands(program, io);
  registerAppointmentCommands(program, io);
  registerDocumentCommands(program, io);
  registerInvoiceCommands(program, io);
  registerPaymentCommands(program, io);
  registerReportCommands(program, io);
  registerNotificationCommands(program, io);
  registerBackupCommands(program, io);
  registerCheckCommand(program, io);
  registerAutostartCommands(program, io);
  registerVersionCommand(program, io);
  // Groups (api-key, doctor, ...) exit through exitOverride too instead of process.exit.
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Runs the program on `argv` (user arguments only) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // The command whose action runs, so that a refusal names its positional arguments as typed.
  let running: Command | undefined;
  try {
    const program = buildProgram(io).hook('preAction', (_program, actionCommand) => {
      running = actionCommand;
    });
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error, argv.includes('--json'), running);
  }
}
