import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  centsToText,
  DECIMAL_NUMERAL_PATTERN,
  decimalToCents,
  formatDecimal,
  numberToDecimalParts,
  parseDecimalNumeral,
} from '../../../src/domain/validation/decimal.js';

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

  it("describes the same numerals in the interface description's pattern", () => {
    const pattern = new RegExp(DECIMAL_NUMERAL_PATTERN, 'u');
    for (const text of [...canonical.map(([t]) => t), '.', '+', '-5.', '12.345', '+.5', '5..', 'abc', '0x10', '１']) {
      assert.equal(pattern.test(text), parseDecimalNumeral(text) !== undefined, JSON.stringify(text));
    }
  });

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
