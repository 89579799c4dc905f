/**
 * Whether a patient's mobile number can take an SMS (interface 1.3.0, "Sending"): without spaces
 * and `-/.()`, `00` read as `+` and a leading trunk `0` as the clinic country's calling code, it
 * must be `+` and 8 to 15 digits (E.164). Without a country (or one whose numbers have no trunk 0
 * here), only numbers written with `+` or `00` are usable.
 */

/** Calling codes of the countries whose national numbers begin with a trunk 0 (Europe and near it). */
const TRUNK_ZERO_CODES: Readonly<Record<string, string>> = {
  AT: '43',
  DE: '49',
  CH: '41',
  LI: '423',
  FR: '33',
  BE: '32',
  NL: '31',
  LU: '352',
  GB: '44',
  IE: '353',
  CZ: '420',
  SK: '421',
  SI: '386',
  HR: '385',
  HU: '36',
  PL: '48',
  RO: '40',
  BG: '359',
  RS: '381',
  BA: '387',
  ME: '382',
  MK: '389',
  AL: '355',
  TR: '90',
  SE: '46',
  FI: '358',
  EE: '372',
  LT: '370',
  UA: '380',
  IL: '972',
};

/** The number in E.164 (`+436641234567`), or null when it is no usable mobile number. */
export function e164Mobile(typed: string | null, country: string | null): string | null {
  if (typed === null) return null;
  let number = typed.replace(/[\s\-/.()]/g, '');
  if (number.startsWith('00')) number = `+${number.slice(2)}`;
  else if (number.startsWith('0') && country !== null && TRUNK_ZERO_CODES[country] !== undefined) {
    number = `+${TRUNK_ZERO_CODES[country]}${number.slice(1)}`;
  }
  return /^\+\d{8,15}$/.test(number) ? number : null;
}
