import assert from 'node:assert/strict';
import type { CliResult } from './run-cli.js';

/**
 * What the desk's commands print, read as a test reads it: for people (no ids, nothing wider than
 * 100 columns), as JSON, or as a refusal.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * The output of a command that succeeded, checked for what people should never see: ids (but
 * those `shownIds`, documents' ids, which have no number on paper) and lines over 100 columns.
 */
export function forPeople(result: CliResult, shownIds: readonly string[] = []): string {
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(
    shownIds.reduce((text, id) => text.replaceAll(id, ''), result.stdout),
    UUID,
    'a UUID in output for people',
  );
  for (const line of result.stdout.split('\n')) assert.ok([...line].length <= 100, `wider than 100 columns (${[...line].length}): ${line}`);
  return result.stdout;
}

/** The parsed JSON a command printed, which must exit 0. */
export function jsonOf<T = any>(result: CliResult): T {
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return JSON.parse(result.stdout) as T;
}

/** The `detail` of the API's error body, as a refused --json command prints it: its code, its message and what else it names. */
export interface Refusal {
  code: string;
  message: string;
  [field: string]: any;
}

/** The error body of a refused --json command, which must exit 1. */
export function refusalOf(result: CliResult): Refusal {
  assert.equal(result.code, 1, result.stdout + result.stderr);
  return (JSON.parse(result.stderr) as { detail: Refusal }).detail;
}

/** The line of `text` that contains `needle`. */
export function lineWith(text: string, needle: string): string {
  const line = text.split('\n').find((candidate) => candidate.includes(needle));
  assert.ok(line !== undefined, `no line with ${needle} in:\n${text}`);
  return line;
}
