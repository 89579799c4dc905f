import { Command, Help, type Option } from 'commander';
import type { CliIo } from './io.js';
import { EXIT, reportError, wrapLines } from './report-error.js';
import { editDistance } from '../domain/validation/edit-distance.js';
import { visibleText } from './terminal-text.js';
import { PROGRAM_VERSION } from '../version.js';
import { beginCommand, deskPcRun } from './desk-identity.js';
import { runAtDeskPc } from './desk-pc/forward-command.js';

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

/** What a module of commands exports: adds its commands to the program. */
type RegisterCommands = (program: Command, io: CliIo) => void;

/**
 * Each module's commands: the top-level names it registers, and how to load it. A module is
 * loaded only when its commands are built: a desk command evaluates its own module's code (its
 * use cases, fields and queries), not the sixty other commands' (a third of a start when the
 * program imported them all).
 */
const COMMAND_GROUPS: readonly (readonly [names: readonly string[], load: () => Promise<RegisterCommands>])[] = [
  [['serve'], async () => (await import('./commands/serve.js')).registerServeCommand],
  [['init'], async () => (await import('./commands/init.js')).registerInitCommand],
  [['api-key'], async () => (await import('./commands/api-key.js')).registerApiKeyCommands],
  [['doctor', 'service'], async () => (await import('./commands/catalog.js')).registerCatalogCommands],
  [['module'], async () => (await import('./commands/module.js')).registerModuleCommands],
  [['settings'], async () => (await import('./commands/settings.js')).registerSettingsCommands],
  [['create-patient'], async () => (await import('./commands/patient.js')).registerCreatePatientCommand],
  [['patient'], async () => (await import('./commands/patient.js')).registerPatientCommands],
  [['book-appointment', 'appointment'], async () => (await import('./commands/appointment.js')).registerAppointmentCommands],
  [['reminders'], async () => (await import('./commands/reminders.js')).registerReminderCommands],
  [['sms-gateway'], async () => (await import('./commands/sms-gateway.js')).registerSmsGatewayCommands],
  [['document', 'upload-document'], async () => (await import('./commands/document.js')).registerDocumentCommands],
  [['invoice'], async () => (await import('./commands/invoice.js')).registerInvoiceCommands],
  [['record-payment', 'refund'], async () => (await import('./commands/payment.js')).registerPaymentCommands],
  [['report'], async () => (await import('./commands/report.js')).registerReportCommands],
  [['notifications'], async () => (await import('./commands/notifications.js')).registerNotificationCommands],
  [['webhook'], async () => (await import('./commands/webhook.js')).registerWebhookCommands],
  [['backup', 'restore'], async () => (await import('./commands/backup.js')).registerBackupCommands],
  [['upgrade'], async () => (await import('./commands/upgrade.js')).registerUpgradeCommand],
  [['audit'], async () => (await import('./commands/audit.js')).registerAuditCommands],
  [['check'], async () => (await import('./commands/check.js')).registerCheckCommand],
  [['autostart'], async () => (await import('./commands/autostart.js')).registerAutostartCommands],
  [['tls'], async () => (await import('./commands/tls.js')).registerTlsCommands],
  [['staff'], async () => (await import('./commands/staff.js')).registerStaffCommands],
  [['login', 'logout', 'whoami'], async () => (await import('./commands/session.js')).registerSessionCommands],
  [['desk'], async () => (await import('./commands/desk.js')).registerDeskCommands],
  [['version'], async () => (await import('./commands/version.js')).registerVersionCommand],
];

/**
 * The command tree: the whole of it, or with `only` just the commands of the module that
 * registers that name (a desk command need not build the other sixty commands and their
 * hundreds of options to run; the help of the whole program builds them all).
 */
export async function buildProgram(io: CliIo, only?: string): Promise<Command> {
  const program = new Command('clinic')
    .description('Clinic practice service: the public JSON API on localhost and a command line over the same data.')
    .version(PROGRAM_VERSION, '-V, --version')
    // A usage error (and what an action refuses through commander) fits the desk's width, and
    // typed text in it is shown, never obeyed (terminal-text.ts).
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (text, write) => write(wrapLines(visibleText(text))) })
    .configureHelp(HELP_MARKING_REQUIRED)
    .exitOverride();
  const wanted = COMMAND_GROUPS.filter(([names]) => only !== undefined && names.includes(only));
  for (const [names, load] of wanted.length > 0 ? wanted : COMMAND_GROUPS) {
    const register = await load();
    const before = program.commands.length;
    register(program, io);
    const registered = program.commands.slice(before).map((command) => command.name());
    // The table above must name what each module registers, or `only` would build the wrong part.
    if (registered.some((name) => !names.includes(name)))
      throw new Error(`COMMAND_GROUPS names ${names.join(', ')}, not ${registered.join(', ')}`);
  }
  // Groups (api-key, doctor, ...) exit through exitOverride too instead of process.exit.
  for (const command of program.commands) command.exitOverride();
  guideUsageErrors(program);
  return program;
}

/** Every top-level command's name, whether or not buildProgram built its module. */
const TOP_LEVEL_NAMES: readonly string[] = COMMAND_GROUPS.flatMap(([names]) => names);

/** `clinic patient edit`: a command as it is typed. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let step: Command | null = command; step !== null; step = step.parent) names.unshift(step.name());
  return names.join(' ');
}

/**
 * What a person may have meant by an unknown command `typed` under `parent` (`next` is the word
 * typed after it): the top-level command of the same two words the other way round (`patient
 * create`, `book appointment` → `clinic create-patient`, `clinic book-appointment`), else the
 * subcommands whose names are a few typing mistakes away, as commander would suggest.
 */
function meantCommands(parent: Command, typed: string, next: string | undefined): string[] {
  const words = (parent.parent === null ? [typed, next ?? ''] : [parent.name(), typed]).map((word) => word.toLowerCase()).sort();
  const reordered = TOP_LEVEL_NAMES.find((name) => name.split('-').sort().join(' ') === words.join(' '));
  if (reordered !== undefined) return [`clinic ${reordered}`];
  const names = parent.commands.map((command) => command.name());
  const scored = names.map((name) => ({ name, distance: editDistance(typed.toLowerCase(), name, 3) }));
  const close = scored.filter(({ name, distance }) => distance <= 3 && (name.length - distance) / name.length > 0.4);
  const best = Math.min(...close.map(({ distance }) => distance));
  return close.filter(({ distance }) => distance === best).map(({ name }) => `${commandPath(parent)} ${name}`);
}

/**
 * A usage error prints what is wrong and one line that says where the help is (`see \`clinic
 * serve --help\``), never the whole help, which pushed the message off the screen (50 lines for
 * `serve`); an unknown command says which one was probably meant.
 */
function guideUsageErrors(command: Command): void {
  command.showHelpAfterError(`see \`${commandPath(command)} --help\``);
  if (command.commands.length > 0) {
    command.on('command:*', (operands: string[]) => {
      const typed = operands[0] ?? '';
      const meant = meantCommands(command, typed, operands[1]);
      const suggestion = meant.length === 0 ? '' : ` (did you mean ${meant.map((name) => `\`${name}\``).join(' or ')}?)`;
      command.error(`error: unknown command '${typed}'${suggestion}`, { code: 'commander.unknownCommand', exitCode: 2 });
    });
  }
  for (const subcommand of command.commands) guideUsageErrors(subcommand);
}

/** Output that goes nowhere: the command tree is built only to read a command line's words. */
export const SILENT: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false, stderrColumns: async () => undefined };

/** The command `argv` names (`patient show`), as far as its words name commands; '' for none. */
export async function commandPathOf(argv: readonly string[]): Promise<string> {
  let command: Command = await buildProgram(SILENT, argv[0]);
  const words: string[] = [];
  for (const word of argv) {
    const next = command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
    if (next === undefined) break;
    words.push(next.name());
    command = next;
  }
  return words.join(' ');
}

/** Runs the program on `argv` (user arguments only) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // The command whose action runs, so that a refusal names its positional arguments as typed.
  let running: Command | undefined;
  try {
    // At a desk PC, a command runs on its server (unless it is the desk's own); never for one on the server.
    if (deskPcRun() === undefined) {
      const atDesk = await runAtDeskPc(argv, io, () => commandPathOf(argv));
      if (atDesk !== undefined) return atDesk;
    }
    const program = (await buildProgram(io, argv[0])).hook('preAction', (_program, actionCommand) => {
      running = actionCommand;
      beginCommand(commandPath(actionCommand).replace(/^clinic /, ''));
    });
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error, argv.includes('--json'), running);
  }
}
