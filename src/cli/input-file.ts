import { deskPcRun } from './desk-identity.js';
import { statSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { fileFailure } from '../file-failure.js';

/**
 * A `--file` the desk reads (`upload-document`, `create-patient`) must name a regular file; a path
 * with nothing there, or a folder or device, is a usage error (exit 2). Whether this user may read
 * it is known only by opening it, which the command does (FILE_UNREADABLE, named-files.ts).
 */
export function parseFilePath(text: string): string {
  // On the server for a desk PC, a path names the desk PC's file, never one of the server's.
  if (deskPcRun() !== undefined)
    throw new InvalidArgumentError('a file on a desk PC is not sent to the server yet: run this command on the server PC');
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
