import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileSize } from '../../src/cli/desk-format.js';
import { deskAmountText } from '../../src/cli/desk-input.js';
import { wrapLines } from '../../src/cli/report-error.js';
import { ValidationError } from '../../src/errors.js';

// Issue 42: what the desk reads (finding 7: amounts) and prints (finding 9: lines within 100
// columns; 14: sizes in binary units), tested on the functions; the commands' tests run them.

describe('the desk reads an amount', () => {
  it('takes a decimal comma and German thousands, and keeps a plain dot', () => {
    const cases: [string, string][] = [
      ['85,50', '85.50'],
      ['85,5', '85.5'],
      ['1.234,50', '1234.50'],
      ['12.345.678,00', '12345678.00'],
      ['85.50', '85.50'],
      ['85', '85'],
      ['-3,5', '-3.5'],
    ];
    for (const [typed, expected] of cases) assert.equal(deskAmountText(typed, ['body', 'amount']), expected, typed);
  });

  it('refuses a thousands mark without a decimal comma, which reads either way', () => {
    for (const [typed, meant] of [
      ['1.234', '1234.00 or 1.234,00'],
      ['1,234.50', '1234.50 or 1.234,50'],
      ['12.345.678', '12345678.00 or 12.345.678,00'],
    ]) {
      assert.throws(
        () => deskAmountText(typed!, ['body', 'amount']),
        (error: unknown) =>
          error instanceof ValidationError &&
          error.issues[0]?.loc.join('.') === 'body.amount' &&
          error.issues[0].msg.includes(`write ${meant!}`),
        typed,
      );
    }
  });

  it('passes on what is no amount, for the use case to refuse as the API would', () => {
    for (const typed of ['85.5.0', 'forty', '0.125', '85,50 EUR']) assert.equal(deskAmountText(typed, ['body', 'amount']), typed);
  });
});

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

describe('a size for people', () => {
  it('is in binary units named as such', () => {
    assert.equal(fileSize(812), '812 B');
    assert.equal(fileSize(11_776), '11.5 KiB');
    assert.equal(fileSize(20_000_000), '19.1 MiB');
    assert.equal(fileSize(322_961_408), '308.0 MiB');
    assert.equal(fileSize(1_342_177_280), '1.25 GiB');
  });
});
