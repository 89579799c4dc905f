import { createHash } from 'node:crypto';
import { constants, statSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DATABASE_FILE, inspectDataDirectory, NO_FOLLOW } from '../../db/data-directory.js';
import { errors } from '../../errors.js';

/**
 * Refuses a data directory without a clinic database (NO_DATABASE), naming the path: a mistyped
 * `--data`, or the default `./data` in the wrong folder, must not quietly start a second, empty
 * clinic. Only `clinic init` and `clinic serve` create one. A `--data` that is no usable folder
 * (a file, /dev/null, a link loop, no permission), a link planted in it, or a 0-byte clinic.db
 * is refused with its own code first (inspectDataDirectory), never as a missing database.
 */
export function requireExistingDatabase(dataDir: string): void {
  const path = join(resolve(dataDir), DATABASE_FILE);
  const state = inspectDataDirectory(resolve(dataDir));
  if (state === 'absent') throw errors.noDatabase(path);
  if (state === 'empty') throw errors.databaseEmpty(path);
}

/** A file's size and SHA-256 (lowercase hex). */
export interface FileDigest {
  size: number;
  sha256: string;
}

/**
 * Size and SHA-256 of a file, read as a stream: documents may be larger than is wise to hold in
 * memory. A link is not followed (ELOOP): a file planted as a link in the data directory is never read through.
 */
export async function digestFile(path: string, onBytes?: (bytes: number) => void): Promise<FileDigest> {
  const hash = createHash('sha256');
  let size = 0;
  const file = await open(path, constants.O_RDONLY | NO_FOLLOW);
  // The stream closes the file when it ends or fails.
  for await (const chunk of file.createReadStream() as AsyncIterable<Buffer>) {
    size += chunk.length;
    hash.update(chunk);
    onBytes?.(chunk.length);
  }
  return { size, sha256: hash.digest('hex') };
}

/** Every regular file under `dir`, as paths relative to `dir` with `/` separators, sorted; none if `dir` does not exist. */
export async function listFilesUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(dir.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort();
}

/** Whether this OS user owns the data directory's database file (on Windows, which has no uids: whoever may open it). */
export function ownsDatabaseFile(dataDir: string): boolean {
  if (process.getuid === undefined) return true;
  try {
    return statSync(join(resolve(dataDir), DATABASE_FILE)).uid === process.getuid();
  } catch {
    return false;
  }
}
