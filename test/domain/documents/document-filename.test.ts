import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentFilename } from '../../../src/domain/documents/document-filename.js';

describe('documentFilename', () => {
  const scenarios: [string | undefined, string][] = [
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\x\\y.pdf', 'y.pdf'],
    ['dir/sub\\mixed.pdf', 'mixed.pdf'],
    ['a\u0000b\u001fc\u007fd\u0085e.pdf', 'abcde.pdf'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['  spaced.pdf  ', 'spaced.pdf'],
    ['', 'document'],
    [undefined, 'document'],
    ['..', 'document'],
    ['x/', 'document'],
    ['\u0001', 'document'],
  ];
  for (const [sent, expected] of scenarios) {
    it(`turns ${JSON.stringify(sent)} into ${JSON.stringify(expected)}`, () => assert.equal(documentFilename(sent), expected));
  }

  it('shortens a name over 255 characters before its extension', () => {
    const name = documentFilename(`${'a'.repeat(300)}.pdf`);
    assert.equal([...name].length, 255);
    assert.ok(name.endsWith('a.pdf'));
  });

  it('counts characters, not UTF-16 units, when shortening', () => {
    const name = documentFilename('😀'.repeat(300));
    assert.equal([...name].length, 255);
  });
});
