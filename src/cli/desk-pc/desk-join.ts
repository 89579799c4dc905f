import { X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import { InvalidArgumentError } from 'commander';
import { AppError, errors } from '../../errors.js';
import { PROGRAM_VERSION } from '../../version.js';
import type { Session } from '../../domain/people/sessions.js';
import { isDeskPc, readDeskFile, writeDeskFile } from './desk-file.js';
import { DeskConnection } from './desk-connection.js';
import { isFingerprint, trustedCaOf } from './join-server.js';
import { askServer, refusalOf } from './server-requests.js';
import { localDateTime } from '../desk-format.js';

/** `desk join`'s URL: https:// only (anything else is a usage error, exit 2), without a path. */
export function parseServerUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError('not a URL: give the https://HOST:PORT that `clinic desk pair` printed');
  }
  if (url.protocol !== 'https:') throw new InvalidArgumentError('a desk joins its server over https:// only');
  return new URL(url.origin);
}

/** `--ca-sha256`: 64 hex digits, colons allowed, any case. */
export function parseFingerprint(text: string): string {
  if (!isFingerprint(text)) throw new InvalidArgumentError('not a SHA-256 fingerprint: 64 hex digits, colons allowed');
  return text;
}

/** What `desk join --json` prints. */
export interface Joined {
  device_id: string;
  device_name: string;
  server_url: string;
  server_version: string;
  ca_sha256: string;
}

/**
 * Joins this PC to the server at `url` with `code`: the CA checked by its fingerprint before
 * anything is sent (trustedCaOf), then POST /desk/join over a connection trusting that CA only;
 * the server, its CA and the device's token kept in desk.json. Joined already: DESK_ALREADY_JOINED.
 */
export async function joinServer(url: URL, code: string, fingerprint: string): Promise<Joined> {
  if (isDeskPc()) throw errors.deskAlreadyJoined(readDeskFile().server_url);
  const caPem = await trustedCaOf(url, fingerprint);
  const serverUrl = url.origin;
  const answer = await askServer({ url: serverUrl, caPem }, { method: 'POST', path: '/desk/join', body: { code, host_name: hostname() } });
  if (answer.status >= 400) throw refusalOf(answer);
  const joined = answer.body as { device_id: string; device_name: string; device_token: string; server_version: string };
  const caSha256 = new X509Certificate(caPem).fingerprint256;
  writeDeskFile({
    server_url: serverUrl,
    ca_pem: caPem,
    ca_sha256: caSha256,
    device_id: joined.device_id,
    device_name: joined.device_name,
    device_token: joined.device_token,
    server_version: joined.server_version,
    joined_at: new Date().toISOString(),
  });
  return {
    device_id: joined.device_id,
    device_name: joined.device_name,
    server_url: serverUrl,
    server_version: joined.server_version,
    ca_sha256: caSha256,
  };
}

/** What `desk status --json` prints. */
export interface DeskStatus {
  server_url: string;
  server_version: string | null;
  desk_version: string;
  device_id: string;
  device_name: string;
  person: { id: string; name: string; roles: string[] } | null;
  session_expires_at: string | null;
  round_trip_ms: number | null;
}

/**
 * This desk PC's state: its server's version (one GET /health, timed), and the person logged in
 * here (GET /sessions/current, which does not count as use). The server not reachable: its fields
 * null, and the reason, to be told (exit 3). Not joined: DESK_NOT_JOINED.
 */
export async function deskStatus(): Promise<{ status: DeskStatus; unreachable?: AppError }> {
  const connection = new DeskConnection();
  const { desk } = connection;
  const status: DeskStatus = {
    server_url: desk.server_url,
    server_version: null,
    desk_version: PROGRAM_VERSION,
    device_id: desk.device_id,
    device_name: desk.device_name,
    person: null,
    session_expires_at: null,
    round_trip_ms: null,
  };
  try {
    const started = performance.now();
    const health = await connection.send({ method: 'GET', path: '/health' });
    status.round_trip_ms = Math.round(performance.now() - started);
    status.server_version = String((health.body as { version: string }).version);
  } catch (error) {
    if (error instanceof AppError && (error.code === 'SERVER_UNREACHABLE' || error.code === 'SERVER_NO_ANSWER'))
      return { status, unreachable: error };
    throw error;
  }
  const token = connection.sessionToken();
  if (token !== undefined) {
    try {
      const session = (await connection.send({ method: 'GET', path: '/sessions/current' }, { session: token })).body as Session;
      status.person = { id: session.person_id, name: session.person_name, roles: session.roles };
      status.session_expires_at = [session.idle_expires_at, session.expires_at].sort()[0]!;
    } catch (error) {
      // An ended session is no person: the status says so by its null.
      if (!(error instanceof AppError) || error.status !== 401 || error.code === 'DEVICE_REVOKED') throw error;
    }
  }
  return { status };
}

/** The status as the desk says it. */
export function describeStatus({ status }: { status: DeskStatus }): string {
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const lines = [
    `Desk PC  ${status.device_name}`,
    `Server   ${status.server_url}${status.server_version === null ? ' (not answering)' : ` (clinic ${status.server_version}, answered in ${status.round_trip_ms} ms)`}`,
    `Person   ${
      status.person === null
        ? 'no one is logged in here'
        : `${status.person.name} (${status.person.roles.join(', ')}), until ${localDateTime(status.session_expires_at!, timeZone)} unless used`
    }`,
    `Version  clinic ${status.desk_version} on this PC`,
  ];
  return `${lines.join('\n')}\n`;
}
