import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errors } from '../../errors.js';
import { configFolder, writePrivateConfigFile } from '../desk-identity.js';

/**
 * `desk.json` in the OS user's configuration folder (interface 1.3.0, "Pairing"): this PC is a desk
 * of the server at `server_url`, which it trusts only with the CA it joined with, as the device
 * whose token it sends with every request. Folder 0700, file 0600: the token is this user's alone.
 */
export interface DeskFile {
  server_url: string;
  /** The CA's certificate (PEM), the only one trusted for the server. */
  ca_pem: string;
  ca_sha256: string;
  device_id: string;
  device_name: string;
  device_token: string;
  server_version: string;
  joined_at: string;
}

const deskFilePath = () => join(configFolder(), 'desk.json');

/** Whether this OS user's PC is a desk of a server. */
export function isDeskPc(): boolean {
  return existsSync(deskFilePath());
}

/** The desk file, or DESK_NOT_JOINED. */
export function readDeskFile(): DeskFile {
  try {
    return JSON.parse(readFileSync(deskFilePath(), 'utf8')) as DeskFile;
  } catch {
    throw errors.deskNotJoined();
  }
}

/** Writes the desk file whole (a reader never sees half of it), folder 0700 and file 0600. */
export function writeDeskFile(desk: DeskFile): void {
  writePrivateConfigFile('desk.json', `${JSON.stringify(desk, null, 2)}\n`);
}

/** The key under which session.json keeps this desk PC's session token: one per server. */
export const deskSessionKey = (desk: Pick<DeskFile, 'server_url'>) => `desk ${desk.server_url}`;
