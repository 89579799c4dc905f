import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wrapLines } from '../../src/cli/report-error.js';

// Issue 42, finding 9: a refusal within 100 columns, tested on the function; the commands' tests
// show each refusal as the desk prints it.

describe('the desk prints a refusal within 100 columns', () => {
  const width = (line: string) => [...line].length;

  it('wraps the error line too, at spaces, with the rest indented', () => {
    const message =
      'error: TLS_REQUIRED: serve listens on 0.0.0.0, which other computers reach, and has no TLS certificate, so patient data would cross the network unencrypted; the server did not start.';
    const lines = wrapLines(message).split('\n');
    assert.ok(lines.length > 1);
    for (const line of lines) assert.ok(width(line) <= 100, line);
    assert.match(lines[0]!, /^error: TLS_REQUIRED: serve listens on 0\.0\.0\.0/);
    for (const line of lines.slice(1)) assert.match(line, /^ {2}\S/);
    assert.equal(lines.join(' ').replace(/ +/g, ' '), message);
  });

  it('keeps a path whole, on a line of its own where it does not fit', () => {
    const path = `/var/lib/clinic/${'backups/'.repeat(8)}2026-11-30.tar.gz`;
    const lines = wrapLines(`error: BACKUP_FILE_EXISTS: the file ${path} already exists; a backup never overwrites a file.`).split('\n');
    assert.ok(lines.includes(`  ${path}`), lines.join('\n'));
    for (const line of lines) if (!line.includes(path)) assert.ok(width(line) <= 100, line);
  });

  it('leaves short lines as they are', () => {
    assert.equal(wrapLines('error: X: short.\n  hint: also short'), 'error: X: short.\n  hint: also short');
  });
});
