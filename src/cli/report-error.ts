import { CommanderError } from 'commander';
import { classifyError, errors, ValidationError } from '../domain/errors.js';
import type { CliIo } from './io.js';

/** Exit codes of decisions.md §8. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

/**
 * The one place a failed command is turned into output and an exit code: refused requests
 * print the API's error code (and with --json the API's error body) and exit 1.
 */
export function reportError(io: CliIo, error: unknown, json: boolean): number {
  if (error instanceof CommanderError) {
    // commander has already printed its own message (usage errors) or the help text.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const refusal = classifyError(error);
  if (refusal === undefined) {
    // A bug, not a refusal: the INTERNAL code like the API's, and what went wrong for whoever reports it.
    const internal = errors.internal();
    const cause = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (json) io.stderr(`${JSON.stringify({ detail: { code: internal.code, message: `${internal.message} ${cause.split('\n')[0]}` } })}\n`);
    else io.stderr(`error: ${internal.code}: this is a bug in clinic, please report it with what follows:\n${cause}\n`);
    return EXIT.refused;
  }
  if (refusal instanceof ValidationError) {
    if (json) io.stderr(`${JSON.stringify({ detail: refusal.issues })}\n`);
    else {
      const lines = refusal.issues.map((i) => `  ${i.loc.slice(1).join('.') || i.loc.join('.')}: ${i.msg} (${i.type})`);
      io.stderr(`error: VALIDATION_ERROR: the input is not valid\n${lines.join('\n')}\n`);
    }
    return EXIT.refused;
  }
  if (json) io.stderr(`${JSON.stringify({ detail: { code: refusal.code, message: refusal.message } })}\n`);
  else io.stderr(`error: ${refusal.code}: ${refusal.message}\n`);
  return EXIT.refused;
}
