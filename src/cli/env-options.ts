import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../domain/documents/document-limit.js';

/**
 * An option's value, else its environment variable parsed the same way, else `fallback`. The
 * environment is read here, in the action, so that a bad CLINIC_PORT stops `serve` with a usage
 * error instead of breaking every other command at start-up.
 */
export function optionOrEnv<T>(command: Command, given: T | undefined, variable: string, parse: (text: string) => T, fallback: T): T {
  if (given !== undefined) return given;
  const text = process.env[variable];
  if (!text) return fallback;
  try {
    return parse(text);
  } catch (error) {
    return command.error(`error: ${variable}: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 2 });
  }
}

/** A `--document-limit-mb` value: a positive number of MiB (a usage error otherwise). */
export function parseMegabytes(text: string): number {
  const megabytes = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(megabytes > 0)) throw new InvalidArgumentError('expected a positive number');
  return megabytes;
}

/** The document size limit in bytes: `--document-limit-mb`, else CLINIC_DOCUMENT_LIMIT_MB, else the default. */
export function resolveDocumentLimitBytes(command: Command, givenMb: number | undefined): number {
  const megabytes = optionOrEnv(command, givenMb, 'CLINIC_DOCUMENT_LIMIT_MB', parseMegabytes, DEFAULT_DOCUMENT_LIMIT_BYTES / 1024 / 1024);
  return Math.floor(megabytes * 1024 * 1024);
}
