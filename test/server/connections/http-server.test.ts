import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Logger } from '../../../src/logger.js';
import { MAX_CONNECTIONS } from '../../../src/server/config.js';
import { buildPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { testingExecutable } from '../../helpers/run-cli.js';

/**
 * Clients that hold the server's resources without finishing a request (issue 25, item 6): a
 * body trickled a byte at a time, headers never finished, more connections than the server
 * keeps. The server's request timeout is shortened to 2 s here (30 s in `clinic serve`), which
 * only a server in this process can be told: a built executable is not tested here.
 */

const TIMEOUT_MS = 2000;

/** Every line the server logged, in order. */
const logged: Record<string, unknown>[] = [];
const capture: Logger = { info: (event) => logged.push(event), error: (event) => logged.push(event) };

/** Opens a TCP connection to the server and collects what it answers until it closes. */
async function openSocket(port: number): Promise<{ socket: Socket; answer: Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  // A reset after the answer (the server closes on a client still sending) is not a failure here:
  // what counts is what was answered before the close. events.once would reject on that error.
  socket.on('error', () => {});
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  return { socket, answer };
}

/** The status code and headers of a raw HTTP answer, and its body. */
function parseAnswer(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('slow and idle clients', { skip: testingExecutable && 'the request timeout of a built executable is 30 s' }, () => {
  const server = useTestServer({ requestTimeoutMs: TIMEOUT_MS, logger: capture });
  const port = () => Number(new URL(server.baseUrl).port);
  const patients = () => (server.db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;

  it('answers a JSON body trickled a byte at a time 408 REQUEST_TIMEOUT once the request time is up, storing nothing', async () => {
    const before = patients();
    const body = JSON.stringify(buildPatient());
    const { socket, answer } = await openSocket(port());
    const started = Date.now();
    socket.write(
      `POST /api/public/v1/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    let sent = 0;
    const trickle = setInterval(() => {
      if (socket.writable && sent < body.length) socket.write(body[sent++]!);
    }, 300);
    const text = await answer;
    clearInterval(trickle);
    const elapsed = Date.now() - started;
    const { status, headers, body: answered } = parseAnswer(text);
    assert.equal(status, 408, text);
    assert.equal(JSON.parse(answered).detail.code, 'REQUEST_TIMEOUT');
    assert.match(headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
    // Not at the 60 s a check every 30 s would take, nor at node's default of 300 s; a loaded CI machine gets room.
    assert.ok(elapsed >= TIMEOUT_MS - 100 && elapsed < TIMEOUT_MS + 8000, `answered after ${elapsed} ms`);
    assert.equal(patients(), before);
  });

  it('closes a request answered before its body came (401) when the rest does not come in time, with no second answer', async () => {
    const { socket, answer } = await openSocket(port());
    socket.write(
      'POST /api/public/v1/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 300);
    const text = await answer;
    clearInterval(trickle);
    assert.equal(parseAnswer(text).status, 401, text);
    assert.equal(text.match(/HTTP\/1\.1 \d{3}/g)?.length, 1, `one request, one answer: ${text}`);
  });

  it('frees an upload trickled a byte at a time: 408, and no temporary file is left in the data directory', async () => {
    const patient = await server.request('POST', '/patients', { body: buildPatient() });
    const boundary = 'slowboundary';
    const form = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
    const { socket, answer } = await openSocket(port());
    socket.write(
      `POST /api/public/v1/patients/${patient.body.id}/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n${form}%PDF-1.7 `,
    );
    const trickle = setInterval(() => socket.writable && socket.write('x'), 300);
    socket.once('data', () => clearInterval(trickle));
    const text = await answer;
    clearInterval(trickle);
    assert.equal(parseAnswer(text).status, 408, text);
    // The upload's reader learns of the cut connection and removes what it wrote.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const leftovers = readdirSync(server.dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((path) => !/clinic\.(db|db-wal|db-shm|lock)$/.test(path));
    assert.deepEqual(leftovers, []);
    const listed = await server.request('GET', `/patients/${patient.body.id}/documents`);
    assert.deepEqual(listed.body, []);
  });

  it('answers headers never finished 408, each refusal with a request id of its own that is also logged', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { socket, answer } = await openSocket(port());
      socket.write('GET /api/public/v1/doctors HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      const { status, headers } = parseAnswer(await answer);
      assert.equal(status, 408);
      ids.push(headers['x-request-id'] ?? '');
    }
    assert.notEqual(ids[0], ids[1], 'two refusals carried the same X-Request-Id');
    for (const id of ids) {
      assert.ok(
        logged.some((event) => event.event === 'request_refused' && event.request_id === id && event.status === 408),
        `refusal ${id} is not in the log`,
      );
    }
  });

  it(`keeps at most ${MAX_CONNECTIONS} connections: one more closes the longest-waiting, unanswered, and the idle ones are freed`, async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => openSocket(port())));
    const extra = await openSocket(port());
    // The rest of the rule (per address, the PC's reserve, shrinking waits) is test/server/connections/connection-limits.test.ts's.
    assert.equal(await held[0]!.answer, '', 'the longest-waiting connection was answered');
    extra.socket.write('GET /api/public/v1/document-types HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    assert.equal(parseAnswer(await extra.answer).status, 200, 'the new connection is served');
    await Promise.all(held.map((connection) => connection.answer));
    const doctors = await server.request('GET', '/doctors');
    assert.equal(doctors.status, 200);
  });
});
