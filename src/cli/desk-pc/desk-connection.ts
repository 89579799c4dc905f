import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import { keptToken } from '../desk-identity.js';
import { deskSessionKey, readDeskFile, type DeskFile } from './desk-file.js';
import { askServer, refusalOf, type ServerAnswer, type ServerRequest } from './server-requests.js';

/**
 * This desk PC's connection to its server: the requests of its device, and of the person logged
 * in here (session.json), refused as the server refuses them.
 */
export class DeskConnection {
  constructor(readonly desk: DeskFile = readDeskFile()) {}

  /** The session token kept for this server, if any. */
  sessionToken(): string | undefined {
    return keptToken(deskSessionKey(this.desk));
  }

  /** Sends `req` as this device (and, with `session`, as its person); a 4xx or 5xx answer is thrown as its coded refusal. */
  async send(req: ServerRequest, { session }: { session?: string } = {}): Promise<ServerAnswer> {
    const answer = await askServer(
      { url: this.desk.server_url, caPem: this.desk.ca_pem },
      {
        ...req,
        headers: {
          'clinic-device': this.desk.device_token,
          ...(session === undefined ? {} : { authorization: `Bearer ${session}` }),
          ...req.headers,
        },
      },
    );
    if (answer.status >= 400) throw refusalOf(answer);
    return answer;
  }

  /** Sends `req` as the person logged in here: LOGIN_REQUIRED without a session. */
  async sendAsPerson(req: ServerRequest): Promise<ServerAnswer> {
    const session = this.sessionToken();
    if (session === undefined) throw errors.loginRequired();
    return this.send(req, { session });
  }
}

/** A new key for a command that changes something, so that its lost answer can be asked again safely. */
export const newDeskKey = () => `desk-${randomUUID()}`;
