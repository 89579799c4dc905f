import { createHash, randomBytes } from 'node:crypto';

/**
 * Setup and pairing codes (interface 1.3.0): 12 characters of Crockford's base 32 (60 random
 * bits), shown `XXXX-XXXX-XXXX` and read in any case, ignoring `-` and spaces, with `I` and `L`
 * read as `1` and `O` as `0` (the letters people mistake for them). Kept only as their SHA-256:
 * 60 random bits valid for a day are not guessed, so no slow hash is needed.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A new code, as shown. */
export function newOneTimeCode(): string {
  const bits = randomBytes(8).readBigUInt64BE() >> 4n; // 60 bits
  let text = '';
  for (let i = 11; i >= 0; i--) text += ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)];
  return `${text.slice(0, 4)}-${text.slice(4, 8)}-${text.slice(8)}`;
}

/** The 12 characters `typed` stands for, or null when it cannot be a code. */
export function readOneTimeCode(typed: string): string | null {
  const text = typed.replace(/[-\s]/g, '').toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  return /^[0-9A-HJKMNP-TV-Z]{12}$/.test(text) ? text : null;
}

/** The stored form of a code (any way it was typed): hex SHA-256 of its 12 characters. */
export function hashOneTimeCode(code: string): string {
  return createHash('sha256')
    .update(readOneTimeCode(code) ?? code)
    .digest('hex');
}
