import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deskAmountText } from '../../src/cli/desk-input.js';
import { ValidationError } from '../../src/errors.js';

// Issue 42, finding 7: an amount as the desk types it, tested on the function; the commands' tests run it.

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
