import { AsyncLocalStorage } from 'node:async_hooks';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { Db } from '../db/open-database.js';
import { systemUserActor } from '../domain/audit/system-user.js';
import { clinicHasPersons, noAdminCanLogIn, rolesOf } from '../domain/people/persons.js';
import { requireRoles, type Role } from '../domain/people/roles.js';
import { personActor, useSession, type OpenSession } from '../domain/people/sessions.js';
import type { Caller } from '../domain/use-case.js';
import { errors } from '../errors.js';
import { ownsDatabaseFile } from '../domain/maintenance/data-dir.js';
import { deskRowOf, runsWithoutLogin } from './desk-roles.js';

/**
 * Who works at this PC's command line (interface 1.3.0): the operating system's user while the
 * clinic has no persons, and for the commands that need none; else the person logged in here, whose
 * session token `clinic login` kept in this OS user's `session.json`.
 */

/** This OS user's configuration folder: `$XDG_CONFIG_HOME/clinic`, `~/.config/clinic`, Windows `%APPDATA%\clinic`. */
export function configFolder(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'clinic');
  // A relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory specification says.
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(base, 'clinic');
}

/**
 * session.json: a token per place (a data directory on the server PC, `desk <URL>` on a desk PC),
 * since one OS user may work with more than one clinic's data.
 */
type SessionFile = { sessions: Record<string, string> };

const sessionFilePath = () => join(configFolder(), 'session.json');
/** The place of a data directory on the server PC: its absolute path. */
export const dataDirPlace = (dataDir: string) => resolve(dataDir);

function readSessionFile(): SessionFile {
  try {
    const parsed = JSON.parse(readFileSync(sessionFilePath(), 'utf8')) as Partial<SessionFile>;
    return { sessions: typeof parsed.sessions === 'object' && parsed.sessions !== null ? parsed.sessions : {} };
  } catch {
    return { sessions: {} };
  }
}

/** The token this OS user keeps for `place` (dataDirPlace, deskSessionKey), if any. */
export function keptToken(place: string): string | undefined {
  return readSessionFile().sessions[place];
}

/** Keeps (or with undefined forgets) this OS user's token for `place`: folder 0700, file 0600, replaced whole. */
export function keepToken(place: string, token: string | undefined): void {
  const file = readSessionFile();
  if (token === undefined) delete file.sessions[place];
  else file.sessions[place] = token;
  writePrivateConfigFile('session.json', `${JSON.stringify(file, null, 2)}\n`);
}

/** Writes `name` in this OS user's configuration folder whole (a reader never sees half of it): folder 0700, file 0600. */
export function writePrivateConfigFile(name: string, text: string): void {
  const folder = configFolder();
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  // A folder made before (by another program of the same name) keeps its mode: this one is this user's alone.
  if (process.platform !== 'win32') chmodSync(folder, 0o700);
  const path = join(folder, name);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/**
 * A command run for a person at a desk PC, on the server (POST /desk/commands): the server's open
 * database, and the person from that PC as the caller.
 */
export interface DeskPcRun {
  db: Db;
  caller: Caller & { roles: readonly Role[] };
  /** The operation that streams the file the command would have written (`document save`), which the desk PC GETs itself. */
  download?: string;
  /** The server's copies of the files the desk PC sent with the command, by path: their names on the desk PC. */
  files?: ReadonlyMap<string, string>;
}

/** One run of the program: the command it executes (`patient show`) and who it acts as, once known. */
interface CommandRun {
  command: string;
  caller?: Caller;
  deskPc?: DeskPcRun;
}

/**
 * The run each command belongs to. A process runs one command, but the server runs desk PCs'
 * commands side by side, each in its own run (runForDeskPc). The storage is made by the first
 * such run: Node loads AsyncLocalStorage's modules when it is first used, which a command typed
 * at the desk never needs.
 */
let runs: AsyncLocalStorage<CommandRun> | undefined;
const processRun: CommandRun = { command: '' };
const currentRun = () => runs?.getStore() ?? processRun;

/**
 * A file path a command was given, as the command may read it: on the server for a desk PC only
 * the copy of a file the desk PC sent with the command (else undefined: the path names a file of
 * the desk PC, never one of the server's); anywhere else, the path itself.
 */
export function readableFilePath(path: string): string | undefined {
  const deskPc = currentRun().deskPc;
  return deskPc === undefined || deskPc.files?.has(path) === true ? path : undefined;
}

/** The name of a file a command read, as the person knows it: on the server for a desk PC, its name there. */
export function fileNameOf(path: string): string {
  return currentRun().deskPc?.files?.get(path) ?? basename(path);
}

/** Runs `work` (a whole command) for a person at a desk PC: its database and caller are the server's (DeskPcRun). */
export function runForDeskPc<T>(deskPc: DeskPcRun, work: () => Promise<T>): Promise<T> {
  return (runs ??= new AsyncLocalStorage<CommandRun>()).run({ command: '', deskPc }, work);
}

/** The desk PC's run this command belongs to, when the server runs it for one. */
export function deskPcRun(): DeskPcRun | undefined {
  return currentRun().deskPc;
}

/**
 * For a desk PC's run: the file the command writes is the desk PC's to fetch, from the operation
 * at `path` (below the API's prefix), which records its read; the command writes nothing here.
 */
export function offerDownload(path: string): void {
  const deskPc = currentRun().deskPc;
  if (deskPc !== undefined) deskPc.download = path;
}

/** Names the command about to run (program.ts's preAction hook); forgets the caller of a run before. */
export function beginCommand(path: string): void {
  const run = currentRun();
  run.command = path;
  run.caller = undefined;
}

/** The operating system's user as the caller (1.2.0's desk, and the commands that need no person). */
const osUserCaller = (): Caller => ({ source: 'cli', actor: systemUserActor() });

/** The caller of a person's open session at this PC. */
function personCaller({ person }: OpenSession): Caller {
  return { source: 'cli', actor: personActor(person, hostname()), roles: rolesOf(person) };
}

/**
 * Decides who the running command acts as, on its open database: the OS user while no person
 * exists, or for a command that needs none; else the person logged in here, who must hold one of
 * the command's roles (ROLE_FORBIDDEN), refused without a session (LOGIN_REQUIRED) or with an ended
 * one (SESSION_ENDED). The session's idle end moves on.
 */
export function resolveDeskCaller(db: Db, dataDir: string): Caller {
  const run = currentRun();
  const row = deskRowOf(run.command);
  if (run.deskPc !== undefined) {
    // The server let only a desk PC's commands through (deskPcRefusal); the person's roles decide.
    if (row !== 'server-pc' && row !== 'no-login') requireRoles(row, run.deskPc.caller.roles);
    return (run.caller = run.deskPc.caller);
  }
  if (row === 'server-pc' || row === 'no-login' || !clinicHasPersons(db)) return (run.caller = osUserCaller());
  const withoutLogin = () => runsWithoutLogin(run.command, () => noAdminCanLogIn(db) && ownsDatabaseFile(dataDir));
  const token = keptToken(dataDirPlace(dataDir));
  let session: OpenSession | undefined;
  try {
    session = token === undefined ? undefined : useSession(db, token);
  } catch (error) {
    // An ended session (or a disabled person's) is no session for what the OS user may run without one.
    if (!withoutLogin()) throw error;
  }
  if (session === undefined) {
    if (withoutLogin()) return (run.caller = osUserCaller());
    throw errors.loginRequired();
  }
  requireRoles(row, rolesOf(session.person));
  return (run.caller = personCaller(session));
}

/** Who the running command acts as (resolveDeskCaller), or the OS user for work outside a command. */
export function deskCaller(): Caller {
  return currentRun().caller ?? osUserCaller();
}
