import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilePartHeaderWatcher, multipartBoundary } from '../../src/server/multipart-part-headers.js';
import { multipartBody, TEST_BOUNDARY, type FormPart } from '../helpers/multipart.js';

/** Feeds `body` to a new watcher in pieces cut at `cuts`, then reads what it noted for each file part. */
function watch(body: Buffer, cuts: number[], fileParts: number): (boolean | undefined)[] {
  const watcher = new FilePartHeaderWatcher(TEST_BOUNDARY);
  let start = 0;
  for (const cut of [...cuts, body.length]) {
    watcher.push(body.subarray(start, cut));
    start = cut;
  }
  return Array.from({ length: fileParts + 1 }, () => watcher.nextFileDeclaredType());
}

describe('FilePartHeaderWatcher', () => {
  const parts: FormPart[] = [
    { name: 'type', data: 'xrays' },
    { name: 'file', filename: 'a.pdf', data: `body with a fake delimiter\r\n--${TEST_BOUNDARY.slice(0, 5)} inside` },
    { name: 'attachment', filename: 'b.pdf', data: 'not the document' },
    { name: 'file', filename: 'c.pdf', contentType: 'application/pdf', data: '' },
    { name: 'file', filename: '', contentType: 'application/octet-stream', data: '' },
    { name: 'file', filename: 'd.txt', contentType: 'text/plain', data: 'text' },
  ];
  const { body } = multipartBody(parts);
  const expected = [false, true, true, undefined];

  it('notes, for each file part named file with a file name, whether it declared a Content-Type', () => {
    assert.deepEqual(watch(body, [], 3), expected);
  });

  it('gives the same answer wherever the body is split into chunks', () => {
    for (let cut = 1; cut < body.length; cut++) {
      assert.deepEqual(watch(body, [cut], 3), expected, `split at byte ${cut}`);
    }
  });

  it('gives the same answer for a body fed one byte at a time', () => {
    assert.deepEqual(
      watch(
        body,
        Array.from({ length: body.length - 1 }, (_, i) => i + 1),
        3,
      ),
      expected,
    );
  });

  it('reads the boundary from a quoted or bare Content-Type parameter', () => {
    assert.equal(multipartBoundary('multipart/form-data; boundary=abc'), 'abc');
    assert.equal(multipartBoundary('multipart/form-data; charset=utf-8; BOUNDARY="a b"'), 'a b');
    assert.equal(multipartBoundary('multipart/form-data'), undefined);
  });
});
