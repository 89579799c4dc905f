import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashWithNodeCrypto, sha256Hex } from '../../../src/domain/audit/sha256.js';

const reference = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

// The desk's hash (JavaScript), then the server's (node:crypto, after its switch at start): tests run in order.
for (const hashing of ['in JavaScript', 'by node:crypto'] as const)
  describe(`the audit trail's SHA-256, ${hashing}`, () => {
    if (hashing === 'by node:crypto') it('switches to node:crypto', () => hashWithNodeCrypto());

    it('gives the FIPS 180-4 test vectors', () => {
      assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      assert.equal(
        sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'),
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      );
    });

    it('agrees with node:crypto on every length around the block boundaries and on non-ASCII text', () => {
      for (let length = 0; length <= 300; length++) {
        const text = randomBytes(length).toString('latin1');
        assert.equal(sha256Hex(text), reference(text), `length ${length}`);
      }
      for (const text of ['Müller-Lüdenscheidt', '👩‍⚕️ Praxis', '\u0000\uffff', 'x'.repeat(100_000)])
        assert.equal(sha256Hex(text), reference(text), text.slice(0, 20));
    });
  });
