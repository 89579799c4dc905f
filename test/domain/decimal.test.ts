import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { centsToText, decimalToCents, formatDecimal, numberToDecimalParts, parseDecimalNumeral } from '../../src/domain/validation/decimal.js';

describe('decimal numerals', () => {
  const canonical: [string, string | undefined][] = [
    ['0', '0'],
    ['+1', '1'],
    ['-1.50', '-1.50'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['000', '0'],
    ['-.0', '0.0'],
    ['', undefined],
    ['-', undefined],
    ['+.', undefined],
    ['1.2.3', undefined],
    [' 1', undefined],
    ['1e2', undefined],
  ];
  for (const [text, expected] of canonical) {
    it(`${JSON.stringify(text)} → ${expected ?? 'not a numeral'}`, () => {
      const parts = parseDecimalNumeral(text);
      assert.equal(parts && formatDecimal(parts), expected);
    });
  }

  it('writes small and large numbers without exponents', () => {
    assert.equal(formatDecimal(numberToDecimalParts(1e-7)), '0.0000001');
    assert.equal(formatDecimal(numberToDecimalParts(1e21)), '1000000000000000000000');
    assert.equal(formatDecimal(numberToDecimalParts(-2.5)), '-2.5');
  });

  it('converts to and from cents exactly', () => {
    assert.equal(decimalToCents(parseDecimalNumeral('12345678.99')!), 1234567899);
    assert.equal(decimalToCents(numberToDecimalParts(0.3)), 30);
    assert.equal(decimalToCents(parseDecimalNumeral('5.')!), 500);
    assert.equal(centsToText(12050), '120.50');
    assert.equal(centsToText(5), '0.05');
  });
});
