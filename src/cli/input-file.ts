import { statSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';

/**
 * A `--file` the desk reads (`upload-document`, `create-patient`) must name a regular file; a path
 * with nothing there, or a folder or device, is a usage error (exit 2). Whether this user may read
 * it is known only by opening it, which the command does (FILE_UNREADABLE, named-files.ts).
 */
export function parseFilePath(text: string): string {
  let isFile = false;
  try {
    isFile = statSync(text).isFile();
  } catch {
    throw new InvalidArgumentError('no such file');
  }
  if (!isFile) throw new InvalidArgumentError('not a regular file');
  return text;
}
