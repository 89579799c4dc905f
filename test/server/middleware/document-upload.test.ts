import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { before, describe, it } from 'node:test';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { multipartBody, TEST_BOUNDARY } from '../../helpers/multipart.js';

// How the upload endpoint reads a multipart/form-data body (@koa/multer, i.e. busboy), byte by
// byte over a real socket: whatever the chunks, a preamble and an epilogue, RFC 5987 names.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The HTTP/1.1 request head of an upload of `length` body bytes. */
function uploadHead(patientId: string, key: string, length: number): Buffer {
  return Buffer.from(
    [
      `POST /api/public/v1/patients/${patientId}/documents HTTP/1.1`,
      'Host: 127.0.0.1',
      `Authorization: Bearer ${key}`,
      `Content-Type: multipart/form-data; boundary=${TEST_BOUNDARY}`,
      `Content-Length: ${length}`,
      '',
      '',
    ].join('\r\n'),
  );
}

/** A socket to the server and every byte it receives. */
async function openSocket(baseUrl: string): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
  socket.setNoDelay(true);
  let text = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => text };
}

/** The JSON bodies of the complete responses in `text` (Content-Length framed), in order. */
function responsesIn(text: string): { status: number; body: any }[] {
  const responses: { status: number; body: any }[] = [];
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return responses;
    const head = rest.slice(0, headEnd);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
    if (Number.isNaN(length) || rest.length < headEnd + 4 + length) return responses;
    const body = Buffer.from(rest.slice(headEnd + 4, headEnd + 4 + length), 'latin1').toString('utf8');
    responses.push({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    rest = rest.slice(headEnd + 4 + length);
  }
}

/** Waits until `count` complete responses arrived, failing after `timeoutMs`. */
async function awaitResponses(received: () => string, count: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (responsesIn(received()).length < count) {
    if (Date.now() > deadline) assert.fail(`${responsesIn(received()).length} of ${count} answers within ${timeoutMs} ms`);
    await sleep(5);
  }
  return responsesIn(received());
}

describe('reading the upload form', () => {
  const server = useTestServer({ documentLimitBytes: 4 * 1024 * 1024 });
  let patientId: string;
  before(() => {
    patientId = createPatient(server.db, buildPatient()).id;
  });

  const title = 'Röntgen';
  // Bytes that nearly make a delimiter (CRLF--boundary): the boundary without its line break, a
  // line break with one dash, and a line break with two dashes just before the real delimiter.
  const fileData = Buffer.concat([Buffer.from(`a--${TEST_BOUNDARY}x\r\n\r-\n--nearly a delimiter`), Buffer.from([0, 13, 10, 45, 45])]);
  const { body } = multipartBody([
    { name: 'title', data: title },
    { name: 'file', filename: 'a.pdf', contentType: 'Image/PNG; x=y', data: fileData },
    { name: 'type', data: 'xrays' },
  ]);

  it('reads the same form whatever the chunks the body arrives in, down to one byte at a time', async () => {
    for (const size of [1, 7, body.length]) {
      const { socket, received } = await openSocket(server.baseUrl);
      try {
        const bytes = Buffer.concat([uploadHead(patientId, server.key, body.length), body]);
        for (let at = 0; at < bytes.length; at += size) {
          socket.write(bytes.subarray(at, at + size));
          // Let each write leave as its own segment.
          if (size < bytes.length) await new Promise((resolve) => setImmediate(resolve));
        }
        const [response] = await awaitResponses(received, 1, 10_000);
        assert.equal(response!.status, 201, JSON.stringify(response!.body));
        assert.equal(response!.body.size, fileData.length, `chunks of ${size}`);
        assert.equal(response!.body.type, 'xrays');
        assert.equal(response!.body.content_type, 'image/png');
        const row = server.db.prepare('SELECT title FROM documents WHERE id = ?').get(response!.body.id) as { title: string };
        assert.equal(row.title, title);
      } finally {
        socket.destroy();
      }
    }
  });

  it('skips a preamble and an epilogue, and reads RFC 5987 names and the WHATWG escapes', async () => {
    const form = Buffer.concat([
      Buffer.from('a preamble\r\n'),
      multipartBody([
        { name: 'file', filenameStar: "iso-8859-1''na%EFve.pdf", data: 'x' },
        { name: 'ti%22tle%22', data: 'y' },
      ]).body,
      Buffer.from('an epilogue'),
    ]);
    const response = await server.request('POST', `/patients/${patientId}/documents`, {
      rawBody: form,
      headers: { 'content-type': `multipart/form-data; boundary=${TEST_BOUNDARY}` },
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.filename, 'naïve.pdf');
  });

  it('answers a request pipelined after a long epilogue at once, on the same connection', async () => {
    // 900 KB after the closing boundary once held the next request on the socket for 6 s.
    const form = Buffer.concat([multipartBody([{ name: 'file', filename: 'a.pdf', data: 'x' }]).body, Buffer.alloc(900_000, 'e')]);
    const next = Buffer.from('GET /api/public/v1/payment-methods HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const { socket, received } = await openSocket(server.baseUrl);
    try {
      socket.write(Buffer.concat([uploadHead(patientId, server.key, form.length), form, next]));
      // Well within the 6 s the second request waited.
      const [upload, lookup] = await awaitResponses(received, 2, 4_000);
      assert.equal(upload!.status, 201, JSON.stringify(upload!.body));
      assert.equal(upload!.body.size, 1);
      assert.equal(lookup!.status, 200);
      assert.ok(Array.isArray(lookup!.body));
    } finally {
      socket.destroy();
    }
  });
});
