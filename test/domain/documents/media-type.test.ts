import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentMediaType } from '../../../src/domain/documents/media-type.js';

describe('the media type a document is stored with', () => {
  const cases: [string, string | undefined][] = [
    ['application/pdf', 'application/pdf'],
    ['Text/Plain; charset="utf-8"', 'text/plain'],
    ['text/plain ; charset=utf-8 ; format=flowed', 'text/plain'],
    ['  image/png  ', 'image/png'],
    ['a/b;;;', 'a/b'],
    [`application/pdf${' ; '.repeat(60)}`, 'application/pdf'],
    ['text/html\r\nSet-Cookie: a=b', undefined],
    ['a/b; x = 1', undefined],
    ['a/b;x="unterminated', undefined],
    ['pdf', undefined],
    [`application/${'x'.repeat(244)}`, undefined],
  ];
  for (const [declared, stored] of cases) {
    it(`takes ${JSON.stringify(declared.slice(0, 40))} as ${String(stored)}`, () => assert.equal(documentMediaType(declared), stored));
  }

  it('refuses at once a value of many empty parameters that ends in a stray character (clinic upload-document --content-type)', () => {
    // 118 `; ` before a character no media type holds: a pattern that let either of two
    // repetitions match the spaces tried 2^118 ways before it said no, and the command hung.
    assert.equal(documentMediaType(`application/pdf${'; '.repeat(118)}@`), undefined);
    assert.equal(documentMediaType(`application/pdf${';  '.repeat(78)}@`), undefined);
  });
});
