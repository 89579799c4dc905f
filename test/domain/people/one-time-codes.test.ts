// Setup and pairing codes, shown once and typed back at a desk (clinic-api-1.3.md, "Persons": "Setup and pairing codes: 12 Crockford base-32 ...").
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashOneTimeCode, newOneTimeCode, readOneTimeCode } from '../../../src/domain/people/one-time-codes.js';

/** Crockford's base 32: digits and letters but I, L, O and U. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('one-time codes', () => {
  it('are shown XXXX-XXXX-XXXX in Crockford base 32, each new one another', () => {
    const code = newOneTimeCode();
    assert.match(code, /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    assert.notEqual(newOneTimeCode(), code);
  });

  it('use every character in every place: 60 random bits, none wasted', () => {
    const seen = Array.from({ length: 12 }, () => new Set<string>());
    for (let n = 0; n < 3000; n++) [...newOneTimeCode().replaceAll('-', '')].forEach((char, place) => seen[place]!.add(char));
    for (const [place, chars] of seen.entries()) assert.equal([...chars].sort().join(''), CROCKFORD, `place ${place + 1}`);
  });

  it('are read in any case, without dashes or spaces, I and L as 1 and O as 0', () => {
    for (const typed of ['7K3M-Q9TD-X2WH', '7k3m-q9td-x2wh', '7K3MQ9TDX2WH', ' 7K3M Q9TD X2WH ', '7k3m q9td-x2wh'])
      assert.equal(readOneTimeCode(typed), '7K3MQ9TDX2WH', typed);
    assert.equal(readOneTimeCode('IL0O-1111-0000'), '110011110000');
    assert.equal(readOneTimeCode('il0o-1111-oooo'), '110011110000');
  });

  it('are 12 characters exactly, none of them U or punctuation', () => {
    assert.equal(readOneTimeCode('7K3M-Q9TD-X2W'), null);
    assert.equal(readOneTimeCode('7K3M-Q9TD-X2WHA'), null);
    assert.equal(readOneTimeCode('7K3M-Q9TD-X2WU'), null);
    assert.equal(readOneTimeCode('7K3M.Q9TD.X2WH'), null);
    assert.equal(readOneTimeCode(''), null);
  });

  it('are kept as the SHA-256 of their 12 characters, the same however they were typed', () => {
    const stored = createHash('sha256').update('7K3MQ9TDX2WH').digest('hex');
    assert.equal(hashOneTimeCode('7K3M-Q9TD-X2WH'), stored);
    assert.equal(hashOneTimeCode('7k3m q9td x2wh'), stored);
    assert.notEqual(hashOneTimeCode('7K3M-Q9TD-X2WJ'), stored);
  });
});
