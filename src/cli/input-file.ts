import { readableFilePath } from './desk-identity.js';
import { statSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { fileFailure } from '../file-failure.js';

/**
 * A `--file` the desk reads (`upload-document`, `create-patient`) must name a regular file; a path
 * with nothing there, or a folder or device, is a usage error (exit 2). Whether this user may read
 * it is known only by opening it, which the command does (FILE_UNREADABLE, named-files.ts).
 */
export function parseFilePath(text: string): string {
  // On the server for a desk PC, a path names the desk PC's file (sent with the command), never one of the server's.
  if (readableFilePath(text) === undefined)
    throw new InvalidArgumentError('the file was not sent with the command: a desk PC sends the file its --file names');
  let info;
  try {
    info = statSync(text);
  } catch (error) {
    throw new InvalidArgumentError(fileFailure(error, 'look up'));
  }
  if (info.isDirectory()) throw new InvalidArgumentError('it is a folder, not a file');
  if (!info.isFile()) throw new InvalidArgumentError('it is not a regular file');
  return text;
}
