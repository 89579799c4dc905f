import { randomBytes, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * PINs (interface 1.3.0, "Persons"): 6 to 12 digits, the weak ones refused, kept only as a salted
 * slow hash. The hash is Node's scrypt (RFC 7914), built into the runtime the program ships with,
 * so no native module is added; argon2 would need one. Its cost, N = 2^15, r = 8, p = 1 (32 MiB,
 * 175 ms on the bench's core: bench/switch-person.ts), makes each guess at a stolen database cost as
 * much, while a login stays well within its 2 s.
 */

/** Why a PIN is refused: `detail.reason` of 422 PIN_INVALID. */
export type PinFault = 'length' | 'not_digits' | 'one_digit' | 'sequence' | 'repeated';

/** What is wrong with `pin`, or null for a PIN the clinic may use. */
export function pinFault(pin: string): PinFault | null {
  if (!/^[0-9]*$/.test(pin)) return 'not_digits';
  if (pin.length < 6 || pin.length > 12) return 'length';
  const digits = [...pin].map(Number);
  if (digits.every((digit) => digit === digits[0])) return 'one_digit';
  const steps = digits.slice(1).map((digit, i) => digit - digits[i]!);
  if (steps.every((step) => step === 1) || steps.every((step) => step === -1)) return 'sequence';
  if (repeatsItsStart(pin, 2) || repeatsItsStart(pin, 3)) return 'repeated';
  return null;
}

/** Whether `pin` is its first `size` digits over and over, the last repeat possibly cut short (`121212`, `1231231`). */
function repeatsItsStart(pin: string, size: number): boolean {
  const start = pin.slice(0, size);
  return [...pin].every((digit, i) => digit === start[i % size]);
}

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const satisfies ScryptOptions;
const KEY_LENGTH = 32;

/** The stored form of a PIN: `scrypt$N$r$p$salt$hash`, salt and hash in base64, so a later cost can be told apart. */
export function hashPin(pin: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(pin, salt, KEY_LENGTH, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Whether `pin` is the one `stored` was made from (hashPin), compared in constant time. */
export function pinMatches(pin: string, stored: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem };
  const given = scryptSync(pin, Buffer.from(salt, 'base64'), expected.length, options);
  return timingSafeEqual(given, expected);
}
