import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { deskPcRun } from './desk-identity.js';

/**
 * Where the desk may write a file it is asked for (`document save`, `audit export`): a file name in a folder that exists and this user may write
 * in; anything else is a usage error (exit 2), like a bad `--file`. A missing folder is not made:
 * a mistyped folder would otherwise hold patient data where no one looks for it.
 */
export function parseTargetPath(text: string): string {
  // On the server for a desk PC, the path is the desk PC's, which checked it (desk-pc/forward-command.ts).
  if (deskPcRun() !== undefined) return text;
  const target = resolve(text);
  const folder = dirname(target);
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    throw new InvalidArgumentError(`no such folder: ${folder}`);
  }
  if (!isFolder) throw new InvalidArgumentError(`not a folder: ${folder}`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new InvalidArgumentError(`this user may not write in ${folder}`);
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(target).isDirectory();
  } catch {
    // Not there yet: the usual case.
  }
  if (isDirectory) throw new InvalidArgumentError('a folder: give the file name to write');
  return target;
}
