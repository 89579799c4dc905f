import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DATABASE_FILE } from '../../db/open-database.js';
import { errors } from '../errors.js';

/**
 * Refuses a data directory without a clinic database (NO_DATABASE), naming the path: a mistyped
 * `--data`, or the default `./data` in the wrong folder, must not quietly start a second, empty
 * clinic. Only `clinic init` and `clinic serve` create one.
 */
export function requireExistingDatabase(dataDir: string): void {
  const path = join(resolve(dataDir), DATABASE_FILE);
  if (!existsSync(path)) throw errors.noDatabase(path);
}

/** A file's size and SHA-256 (lowercase hex). */
export interface FileDigest {
  size: number;
  sha256: string;
}

/** Size and SHA-256 of a file, read as a stream: documents may be larger than is wise to hold in memory. */
export async function digestFile(path: string): Promise<FileDigest> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    size += chunk.length;
    hash.update(chunk);
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
