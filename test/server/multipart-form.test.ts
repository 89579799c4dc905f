import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FORM_LIMITS } from '../../src/server/middleware/document-upload.js';
import { MultipartError, readMultipartForm } from '../../src/server/multipart-form.js';
import { multipartBody, TEST_BOUNDARY } from '../helpers/multipart.js';

/** The body in chunks of `size` bytes, as a slow or fragmenting client sends it. */
async function* inChunks(body: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < body.length; i += size) yield body.subarray(i, i + size);
}

/** Every part, files read to their end. */
async function partsOf(body: Buffer, chunkSize = body.length || 1) {
  const parts: Record<string, unknown>[] = [];
  for await (const part of readMultipartForm(inChunks(body, chunkSize), TEST_BOUNDARY, FORM_LIMITS)) {
    if (part.kind === 'field') parts.push(part);
    else {
      const pieces: Buffer[] = [];
      for await (const chunk of part.data) pieces.push(chunk);
      parts.push({ ...part, data: Buffer.concat(pieces).toString('latin1') });
    }
  }
  return parts;
}

describe('readMultipartForm', () => {
  const { body } = multipartBody([
    { name: 'title', data: 'Röntgen' },
    { name: 'file', filename: 'a.pdf', data: `--${TEST_BOUNDARY}x\r\n\r-\n--nearly a delimiter` },
    { name: 'file', filename: 'b.bin', contentType: 'Image/PNG; x=y', data: Buffer.from([0, 13, 10, 45, 45]) },
    { name: 'type', data: 'xrays' },
  ]);
  const expected = [
    { kind: 'field', name: 'title', value: 'Röntgen' },
    { kind: 'file', name: 'file', filename: 'a.pdf', contentType: undefined, data: `--${TEST_BOUNDARY}x\r\n\r-\n--nearly a delimiter` },
    { kind: 'file', name: 'file', filename: 'b.bin', contentType: 'image/png', data: '\u0000\r\n--' },
    { kind: 'field', name: 'type', value: 'xrays' },
  ];

  it('reads the same parts whatever the chunks, telling a part without Content-Type from one with', async () => {
    for (const size of [1, 2, 7, 64, body.length]) assert.deepEqual(await partsOf(body, size), expected, `chunks of ${size}`);
  });

  it('skips a preamble and an epilogue, and reads RFC 5987 names and the WHATWG escapes', async () => {
    const form = Buffer.concat([
      Buffer.from('a preamble\r\n'),
      multipartBody([
        { name: 'file', filenameStar: "iso-8859-1''na%EFve.pdf", data: 'x' },
        { name: 'say%22hi%22', data: 'y' },
      ]).body,
      Buffer.from('an epilogue'),
    ]);
    assert.deepEqual(await partsOf(form, 5), [
      { kind: 'file', name: 'file', filename: 'naïve.pdf', contentType: undefined, data: 'x' },
      { kind: 'field', name: 'say"hi"', value: 'y' },
    ]);
  });

  it('refuses a body that ends inside a part, and a form over its limits', async () => {
    const cut = body.subarray(0, body.length - 20);
    await assert.rejects(partsOf(cut), (error: unknown) => error instanceof MultipartError && error.reason === 'malformed');
    const many = multipartBody(Array.from({ length: 9 }, (_, i) => ({ name: `f${i}`, data: 'x' }))).body;
    await assert.rejects(partsOf(many), (error: unknown) => error instanceof MultipartError && error.reason === 'too_many_parts');
    const long = multipartBody([{ name: 'title', data: 'x'.repeat(64 * 1024 + 1) }]).body;
    await assert.rejects(
      partsOf(long),
      (error: unknown) => error instanceof MultipartError && error.reason === 'field_too_long' && error.field === 'title',
    );
  });
});
