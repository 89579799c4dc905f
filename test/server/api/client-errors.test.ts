import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { answerClientErrors, MAX_HEADER_BYTES } from '../../../src/server/api/client-errors.js';
import { useLoopbackServer } from '../../helpers/fixtures.js';

/**
 * What node:http refuses before the app sees a request, answered out loud (decisions.md §1's
 * error shape; clinic-api-1.2.md "Network"): 431 HEADERS_TOO_LARGE, 408 REQUEST_TIMEOUT, a bare
 * 400 or 413, each with a request id of its own that the log holds too; and no header line dropped.
 */

/** An answer as it came off the socket: status, headers (lower-case names) and body. */
interface WireAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How many status lines came back: one request, one answer. */
  answers: number;
}

const REQUEST_TIME_MS = 300;

describe('server: answering the requests node:http refuses', () => {
  const logged: Record<string, unknown>[] = [];
  /** The header lines the app got with each request it answered. */
  const seen: number[] = [];
  const served = useLoopbackServer(() => {
    // The request time is short here so that a test waits well under a second for node:http's own check.
    const server = createServer({ requestTimeout: REQUEST_TIME_MS, connectionsCheckingInterval: 50 }, (request, response) => {
      seen.push(request.rawHeaders.length / 2);
      // Answered before the body is read, as a refused key is.
      if (request.url === '/early')
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":{"code":"UNAUTHENTICATED"}}');
      else request.resume().on('end', () => response.end(String(request.headers['idempotency-key'])));
    });
    answerClientErrors(server, { info: (event) => logged.push(event), error: (event) => logged.push(event) });
    return server;
  });
  afterEach(() => {
    logged.length = 0;
    seen.length = 0;
  });

  /** Writes `text` on a new connection and reads until the server closes it (or `endAfterMs` ends it from this side). */
  const exchange = (text: string | Buffer, endAfterMs?: number) =>
    new Promise<WireAnswer>((resolve) => {
      const socket = connect(served.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...rest] = raw.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        resolve({
          status: Number(statusLine.split(' ')[1] ?? 0),
          headers,
          body: rest.join('\r\n\r\n'),
          answers: raw.split('HTTP/1.1 ').length - 1,
        });
      });
      socket.write(text);
      if (endAfterMs !== undefined) setTimeout(() => socket.end(), endAfterMs);
    });

  /** The one `request_refused` event logged, which must name the answer's request id. */
  const refusalLogged = (answer: WireAnswer) => {
    const refusals = logged.filter((event) => event.event === 'request_refused');
    assert.equal(refusals.length, 1, JSON.stringify(logged));
    assert.equal(refusals[0]!.request_id, answer.headers['x-request-id']);
    return refusals[0]!;
  };

  it("keeps every header line of a request: an Idempotency-Key after 2,100 others (node:http's default keeps 2,000) reaches the app", async () => {
    const junk = 'J:1\r\n'.repeat(2100);
    const answer = await exchange(
      `POST /payments HTTP/1.1\r\nHost: 127.0.0.1\r\n${junk}Idempotency-Key: pay-once\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    assert.deepEqual([answer.status, answer.body, seen], [200, 'pay-once', [2104]]);
  });

  it(`refuses headers over ${MAX_HEADER_BYTES / 1024} KiB with 431 HEADERS_TOO_LARGE in the API's error shape, a request id of its own, logged`, async () => {
    const junk = Array.from({ length: 40 }, (_, index) => `X-J${index}: ${'a'.repeat(500)}\r\n`).join('');
    const answer = await exchange(`GET /doctors HTTP/1.1\r\nHost: 127.0.0.1\r\n${junk}\r\n`);
    assert.equal(answer.status, 431);
    assert.deepEqual(JSON.parse(answer.body), {
      detail: {
        code: 'HEADERS_TOO_LARGE',
        message: "The request's headers are larger than 16384 bytes in all; the request was not read.",
      },
    });
    assert.deepEqual(
      [answer.headers['content-type'], answer.headers.connection, answer.headers['content-length']],
      ['application/json; charset=utf-8', 'close', String(Buffer.byteLength(answer.body))],
    );
    assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(refusalLogged(answer), {
      event: 'request_refused',
      request_id: answer.headers['x-request-id'],
      status: 431,
      reason: 'HPE_HEADER_OVERFLOW',
      answered: true,
    });
    assert.deepEqual(seen, [], 'the app saw the request');
  });

  it("refuses a request not in full within the server's request time with 408 REQUEST_TIMEOUT, naming that time", async () => {
    const answer = await exchange('POST /patients HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 20\r\n\r\n{"first_name"');
    assert.equal(answer.status, 408);
    assert.deepEqual(JSON.parse(answer.body).detail, {
      code: 'REQUEST_TIMEOUT',
      message: `The request did not arrive in full within ${REQUEST_TIME_MS / 1000} seconds; nothing of it was processed.`,
    });
    assert.equal(refusalLogged(answer).status, 408);
  });

  it('sends no second answer to a request answered before its body, whose body never comes in time: its connection is only closed', async () => {
    const answer = await exchange('POST /early HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"pin"');
    assert.deepEqual([answer.status, answer.answers], [401, 1]);
    assert.deepEqual(
      logged.map((event) => [event.event, event.status, event.answered]),
      [['request_refused', 408, false]],
    );
  });

  it('answers what is no HTTP request 400 without a body, and an endless chunk extension 413, each with a request id', async () => {
    const garbage = await exchange('HELLO THERE\r\n\r\n');
    assert.deepEqual([garbage.status, garbage.body, garbage.headers['content-length']], [400, '', '0']);
    assert.equal(refusalLogged(garbage).status, 400);
    logged.length = 0;
    const chunked = await exchange(
      `POST /patients HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=${'x'.repeat(20_000)}\r\n`,
      REQUEST_TIME_MS * 3,
    );
    assert.deepEqual([chunked.status, chunked.body], [413, '']);
    assert.equal(refusalLogged(chunked).reason, 'HPE_CHUNK_EXTENSIONS_OVERFLOW');
  });
});
