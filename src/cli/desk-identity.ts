import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Db } from '../db/open-database.js';
import { systemUserActor } from '../domain/audit/system-user.js';
import { clinicHasPersons, noAdminCanLogIn, rolesOf } from '../domain/people/persons.js';
import { requireRoles } from '../domain/people/roles.js';
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

/** session.json: a token per data directory, since one OS user may work with more than one clinic's data. */
type SessionFile = { sessions: Record<string, string> };

const sessionFilePath = () => join(configFolder(), 'session.json');
const dataKey = (dataDir: string) => resolve(dataDir);

function readSessionFile(): SessionFile {
  try {
    const parsed = JSON.parse(readFileSync(sessionFilePath(), 'utf8')) as Partial<SessionFile>;
    return { sessions: typeof parsed.sessions === 'object' && parsed.sessions !== null ? parsed.sessions : {} };
  } catch {
    return { sessions: {} };
  }
}

/** The token this OS user keeps for `dataDir`, if any. */
export function keptToken(dataDir: string): string | undefined {
  return readSessionFile().sessions[dataKey(dataDir)];
}

/** Keeps (or with undefined forgets) this OS user's token for `dataDir`: folder 0700, file 0600, replaced whole. */
export function keepToken(dataDir: string, token: string | undefined): void {
  const file = readSessionFile();
  if (token === undefined) delete file.sessions[dataKey(dataDir)];
  else file.sessions[dataKey(dataDir)] = token;
  const folder = configFolder();
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  // A folder made before (by another program of the same name) keeps its mode: this one is this user's alone.
  if (process.platform !== 'win32') chmodSync(folder, 0o700);
  const temporary = `${sessionFilePath()}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, sessionFilePath());
}

/** The command this run executes (`patient show`), set before its action runs. */
let runningCommand = '';
/** Who the running command acts as, once its database is open. */
let caller: Caller | undefined;

/** Names the command about to run (program.ts's preAction hook); forgets the caller of a run before. */
export function beginCommand(path: string): void {
  runningCommand = path;
  caller = undefined;
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
  const row = deskRowOf(runningCommand);
  if (row === 'server-pc' || row === 'no-login' || !clinicHasPersons(db)) return (caller = osUserCaller());
  const withoutLogin = () => runsWithoutLogin(runningCommand, () => noAdminCanLogIn(db) && ownsDatabaseFile(dataDir));
  const token = keptToken(dataDir);
  let session: OpenSession | undefined;
  try {
    session = token === undefined ? undefined : useSession(db, token);
  } catch (error) {
    // An ended session (or a disabled person's) is no session for what the OS user may run without one.
    if (!withoutLogin()) throw error;
  }
  if (session === undefined) {
    if (withoutLogin()) return (caller = osUserCaller());
    throw errors.loginRequired();
  }
  requireRoles(row, rolesOf(session.person));
  return (caller = personCaller(session));
}

/** Who the running command acts as (resolveDeskCaller), or the OS user for work outside a command. */
export function deskCaller(): Caller {
  return caller ?? osUserCaller();
}
