import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory, syncRenamed } from '../../db/document-files.js';
import { HAS_MODES } from '../../db/file-modes.js';
import { NO_FOLLOW } from '../../db/data-directory.js';

/** Where a server started as a service leaves the first API key, in its data directory. */
export const FIRST_KEY_FILE = 'first-api-key.txt';

/** Only the owner, the user the server runs as, may read the key: the desk staff's group may not. */
const FIRST_KEY_MODE = 0o600;

/**
 * Writes the first API key to `<dataDir>/first-api-key.txt` for IT to read, instead of the log a
 * service's output goes to (the system journal, which every administrator reads, or serve.log
 * under `autostart run`), and returns its path. Mode 0600 whatever the umask: a secret of the
 * user the server runs as, not of the group. Written whole or not at all: a temporary file is
 * written, fsynced and renamed into place, and the rename fsynced, so a power cut never leaves
 * half a key. A file already there (a key of an earlier database, never deleted) is replaced.
 */
export async function writeFirstKeyFile(dataDir: string, key: string): Promise<string> {
  const path = join(dataDir, FIRST_KEY_FILE);
  const temporary = join(dataDir, `.${FIRST_KEY_FILE}.${process.pid}`);
  const text = [
    "clinic's first API key, made by the server's first start because no key existed.",
    'Store it where the clinic keeps its secrets, then delete this file.',
    'Use it as the header  Authorization: Bearer <key>',
    '',
    key,
    '',
  ].join('\n');
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, FIRST_KEY_MODE);
  try {
    try {
      if (HAS_MODES) fchmodSync(fd, FIRST_KEY_MODE);
      const bytes = Buffer.from(text, 'utf8');
      for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // Never made, or renamed already.
    }
    throw error;
  }
  await syncRenamed(path);
  await syncDirectory(dataDir);
  return path;
}
