import { hostname } from 'node:os';
import { systemUserActor } from '../../domain/audit/system-user.js';
import type { Session } from '../../domain/people/sessions.js';
import { AppError } from '../../errors.js';
import { keepToken } from '../desk-identity.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { wrapLines } from '../report-error.js';
import { localDateTime } from '../desk-format.js';
import { deskSessionKey } from './desk-file.js';
import { DeskConnection } from './desk-connection.js';

/**
 * `clinic login|logout|whoami|staff set-pin` at a desk PC (interface 1.3.0, "Sessions"): the same
 * commands as at the server PC, through POST /sessions and /sessions/current; the token kept in
 * this OS user's session.json under the server's URL.
 */

/** The desk PC's own time zone: the clinic's PCs keep the clinic's time. */
const pcTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A session as the desk says it (as on the server PC). */
export function describeDeskSession(session: Session, timeZone: string): string {
  return (
    wrapLines(`Logged in as ${session.person_name} (${session.roles.join(', ')}) on ${hostname()}.`) +
    `\nThe session ends after 30 minutes without use, at the latest ${localDateTime(session.expires_at, timeZone)}.\n`
  );
}

/** Logs in at the server through this PC; the PC's session before ends there (replaced). */
export async function logInAtDesk(io: CliIo, options: CommonOptions, person: string, pin: string, newPin?: string): Promise<void> {
  const connection = new DeskConnection();
  const answer = await connection.send({
    method: 'POST',
    path: '/sessions',
    body: { person, pin, ...(newPin === undefined ? {} : { new_pin: newPin }) },
  });
  const { token, ...session } = answer.body as Session & { token: string };
  keepToken(deskSessionKey(connection.desk), token);
  emit(io, options, session, () => describeDeskSession(session, pcTimeZone()));
}

/** Logs out at the server; exit 0 also without a session. */
export async function logOutAtDesk(io: CliIo, options: CommonOptions): Promise<void> {
  const connection = new DeskConnection();
  const session = connection.sessionToken();
  let ended = false;
  if (session !== undefined) {
    try {
      await connection.send({ method: 'DELETE', path: '/sessions/current' }, { session });
      ended = true;
    } catch (error) {
      // A session that had ended already (or a revoked PC) is as logged out as can be.
      if (!(error instanceof AppError) || error.status !== 401) throw error;
    }
    keepToken(deskSessionKey(connection.desk), undefined);
  }
  emit(io, options, { ended }, () => (ended ? 'Logged out.\n' : 'No one was logged in here.\n'));
}

/** Who works here: the session's person (GET /sessions/current, which does not count as use), and the OS user. */
export async function whoAmIAtDesk(io: CliIo, options: CommonOptions): Promise<void> {
  const connection = new DeskConnection();
  const token = connection.sessionToken();
  let session: Session | null = null;
  let ended: AppError | undefined;
  if (token !== undefined) {
    try {
      session = (await connection.send({ method: 'GET', path: '/sessions/current' }, { session: token })).body as Session;
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 401) throw error;
      ended = error;
    }
  }
  const osUser = systemUserActor().id;
  emit(io, options, { session, os_user: osUser, host: hostname() }, () =>
    session !== null
      ? describeDeskSession(session, pcTimeZone()).replace(/^Logged in as/, 'You are')
      : wrapLines(
          `No one is logged in here${ended === undefined ? '' : ` (${ended.message.split(';')[0]})`}; log in with: clinic login --as NAME\n`,
        ),
  );
}
