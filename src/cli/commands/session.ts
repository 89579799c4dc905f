import type { Command } from 'commander';
import { hostname } from 'node:os';
import { systemUserActor } from '../../domain/audit/system-user.js';
import { logIn, logOut, presentSession, useSession, type LoggedIn, type Session } from '../../domain/people/sessions.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { classifyError } from '../../domain/classify-error.js';
import { AppError } from '../../errors.js';
import type { Db } from '../../db/open-database.js';
import { withDatabase } from '../database.js';
import { localDateTime } from '../desk-format.js';
import { dataDirPlace, keepToken, keptToken } from '../desk-identity.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { wrapLines } from '../report-error.js';
import { subcommand } from '../subcommand.js';
import { isDeskPc } from '../desk-pc/desk-file.js';
import { logInAtDesk, logOutAtDesk, whoAmIAtDesk } from '../desk-pc/desk-sessions.js';

/**
 * `clinic login|logout|whoami` and `clinic staff set-pin` (interface 1.3.0, "Sessions"): a person
 * at this PC, their token kept in this OS user's session.json, never printed.
 */

type LoginOptions = CommonOptions & { as?: string; pinStdin?: boolean };

/** A usage error (exit 2), said as commander says its own. */
function usage(command: Command, text: string): never {
  command.error(`error: ${text}`, { exitCode: 2 });
}

/** The lines of standard input, as `--pin-stdin` gives them. */
async function inputLines(io: CliIo): Promise<string[]> {
  const text = (await io.readInput?.()) ?? '';
  return text.split(/\r?\n/);
}

/** Who logs in: `--as`, else asked on the terminal; without either, a usage error. */
async function personToLogIn(io: CliIo, command: Command, options: LoginOptions): Promise<string> {
  if (options.as !== undefined) return options.as;
  if (options.pinStdin === true)
    usage(command, '--pin-stdin needs --as NAME: the name cannot be asked once the PIN comes from standard input');
  if (io.ask === undefined) usage(command, 'no terminal to ask the name on: give --as NAME (and the PIN with --pin-stdin)');
  return (await io.ask('Name: ')).trim();
}

/** A secret: the next line of `--pin-stdin`, else asked unechoed on the terminal; without either, a usage error. */
function secretReader(io: CliIo, command: Command, options: LoginOptions): (prompt: string) => Promise<string> {
  let lines: Promise<string[]> | undefined;
  let next = 0;
  return async (prompt) => {
    if (options.pinStdin === true) {
      lines ??= inputLines(io);
      const line = (await lines)[next++] ?? '';
      // A script that gave no line made a mistake, not a guess: nothing is tried or counted.
      if (line === '') usage(command, `--pin-stdin: standard input ended before line ${next} (${prompt.replace(/: $/, '')})`);
      return line;
    }
    if (io.askHidden === undefined) usage(command, 'no terminal to ask the PIN on: give it on standard input with --pin-stdin');
    return io.askHidden(prompt);
  };
}

/** A session as the desk says it. */
function describeSession(session: Session, db: Db): string {
  const timeZone = clinicTimeZone(db);
  return (
    wrapLines(`Logged in as ${session.person_name} (${session.roles.join(', ')}) on ${hostname()}.`) +
    `\nThe session ends after 30 minutes without use, at the latest ${localDateTime(session.expires_at, timeZone)}.\n`
  );
}

/** Logs in through `logIn` and keeps the token for this data directory; the session this OS user had here ends (replaced). */
async function logInHere(io: CliIo, options: LoginOptions, person: string, pin: string, newPin?: string): Promise<void> {
  if (isDeskPc()) return logInAtDesk(io, options, person, pin, newPin);
  await withDatabase(options, (db) => {
    const place = { deviceActor: systemUserActor(), source: hostname() };
    const replacing = keptToken(dataDirPlace(options.data));
    const loggedIn: LoggedIn = logIn(
      db,
      { person, pin, ...(newPin === undefined ? {} : { newPin }), ...(replacing === undefined ? {} : { replacing }) },
      place,
    );
    keepToken(dataDirPlace(options.data), loggedIn.token);
    emit(io, options, loggedIn.session, () => describeSession(loggedIn.session, db));
  });
}

/** `clinic login`, `logout`, `whoami`. */
export function registerSessionCommands(program: Command, io: CliIo): void {
  subcommand(program, 'login', 'log in as a person at this PC (ends the session this OS user had here)')
    .option('--as <name>', "the person's name (any case) or id; asked when not given")
    .option('--pin-stdin', 'read the PIN from the first line of standard input (scripts)')
    .action(async (options: LoginOptions, command: Command) => {
      const person = await personToLogIn(io, command, options);
      const pin = await secretReader(io, command, options)('PIN: ');
      await logInHere(io, options, person, pin);
    });

  subcommand(program, 'logout', 'end the session of the person logged in at this PC').action(async (options: CommonOptions) => {
    if (isDeskPc()) return logOutAtDesk(io, options);
    await withDatabase(options, (db) => {
      const token = keptToken(dataDirPlace(options.data));
      const ended = token !== undefined && logOut(db, token, hostname());
      if (token !== undefined) keepToken(dataDirPlace(options.data), undefined);
      emit(io, options, { ended }, () => (ended ? 'Logged out.\n' : 'No one was logged in here.\n'));
    });
  });

  subcommand(program, 'whoami', 'who this command line acts as: the person logged in here, and the OS user').action(
    async (options: CommonOptions) => {
      if (isDeskPc()) return whoAmIAtDesk(io, options);
      await withDatabase(options, (db) => {
        const token = keptToken(dataDirPlace(options.data));
        let session: Session | null = null;
        let ended: AppError | undefined;
        try {
          const open = token === undefined ? undefined : useSession(db, token, { touch: false });
          session = open === undefined ? null : presentSession(open);
        } catch (error) {
          const refusal = classifyError(error);
          if (!(refusal instanceof AppError)) throw error;
          ended = refusal;
        }
        const osUser = systemUserActor().id;
        emit(io, options, { session, os_user: osUser, host: hostname() }, () =>
          session !== null
            ? describeSession(session, db).replace(/^Logged in as/, 'You are')
            : wrapLines(
                `No one is logged in here${ended === undefined ? '' : ` (${ended.message.split(';')[0]})`}; commands run as the OS user ${osUser} on ${hostname()}.\n`,
              ),
        );
      });
    },
  );
}

/** `clinic staff set-pin`: the current PIN or the setup code, the new PIN twice; then logged in. */
export function registerSetPinCommand(group: Command, io: CliIo): void {
  subcommand(group, 'set-pin', 'choose your PIN with your setup code (or change it with the current one); then you are logged in')
    .option('--as <name>', 'your name (any case) or id; asked when not given')
    .option('--pin-stdin', 'read three lines from standard input: the current PIN or setup code, the new PIN, the new PIN again')
    .action(async (options: LoginOptions, command: Command) => {
      const person = await personToLogIn(io, command, options);
      const secret = secretReader(io, command, options);
      const current = await secret('Current PIN or setup code: ');
      const newPin = await secret('New PIN (6-12 digits): ');
      const again = await secret('New PIN again: ');
      if (newPin !== again) usage(command, 'the two new PINs differ; nothing was changed');
      await logInHere(io, options, person, current, newPin);
    });
}
