/**
 * Decimal numerals kept exact: the spec's "number or decimal string" values (discount_percent,
 * money amounts) never pass through binary floating point on their way to storage.
 */

/** Optional sign, digits, optional point, digits; not signs and dots alone (spec 2.1). */
const DECIMAL_NUMERAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * The same rule as one JSON Schema pattern, for the interface description (a regular expression
 * cannot say "not both empty" as DECIMAL_NUMERAL's parts do; test/domain/validation/decimal.test.ts checks
 * that the two agree).
 */
export const DECIMAL_NUMERAL_PATTERN = '^[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)$';

export interface DecimalParts {
  negative: boolean;
  /** Whole digits without leading zeros ('' for zero). */
  whole: string;
  /** Fraction digits exactly as written, trailing zeros kept. */
  fraction: string;
}

/** Splits a decimal numeral into its parts, or undefined if it is not one. */
export function parseDecimalNumeral(text: string): DecimalParts | undefined {
  const match = DECIMAL_NUMERAL.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = ''] = match;
  if (whole === '' && fraction === '') return undefined;
  return { negative: sign === '-', whole: whole.replace(/^0+/, ''), fraction };
}

/**
 * The parts of a JSON number written out in plain positional notation (never `1e-7`), so that
 * numbers and strings go through the same rules.
 */
export function numberToDecimalParts(value: number): DecimalParts {
  const text = Math.abs(value).toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
  const parts = parseDecimalNumeral(text);
  if (!parts) throw new Error(`cannot write ${value} as a decimal numeral`);
  return { ...parts, negative: value < 0 };
}

/** Canonical text: no '+', no leading zeros, '.5' → '0.5', '5.' → '5', fraction zeros kept, no '-0'. */
export function formatDecimal({ negative, whole, fraction }: DecimalParts): string {
  const isZero = /^0*$/.test(whole) && /^0*$/.test(fraction);
  const sign = negative && !isZero ? '-' : '';
  return `${sign}${whole === '' ? '0' : whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Whole cents of a decimal with at most two fraction digits (checked by the caller). */
export function decimalToCents({ negative, whole, fraction }: DecimalParts): number {
  const cents = Number(whole || '0') * 100 + Number(fraction.padEnd(2, '0').slice(0, 2) || '0');
  return negative ? -cents : cents;
}

/** Money from cents for a JSON response: 12050 → 120.5. */
export function centsToNumber(cents: number): number {
  return cents / 100;
}

/** Money from cents as exact text for people and decimal-string fields: 12050 → "120.50". */
export function centsToText(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
