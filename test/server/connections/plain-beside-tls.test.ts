import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpsCredentials } from '../../../src/server/connections/http-server.js';
import { rawRequest } from '../../helpers/raw-request.js';
import { testingExecutable } from '../../helpers/run-cli.js';
import { loopbackCredentials, startLoggedHttpServer, type LoggedHttpServer } from '../../helpers/test-server.js';

/**
 * Issue 42, finding 4: after `tls init` the server listens over TLS, and local integrations on
 * the README's `http://127.0.0.1:8080` got an empty reply. Plain HTTP from the PC's own
 * 127.0.0.1 is answered on the same port as before; from any other address (127.0.0.2 counts
 * as another machine, peer-address.ts) it gets a plain 400 naming the https:// address. The
 * real server in this process, over a real data directory, with real sockets.
 */

const BASE = '/api/public/v1';
const PATIENT = JSON.stringify({ first_name: 'Ada', last_name: 'Plain', email: 'ada@example.org', mobile: '+43 660 1234567' });

/** A raw TCP connection from `localAddress`, everything it is answered, and when the server closed it. */
async function connectFrom(port: number, localAddress: string) {
  const socket: Socket = connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => {});
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  await once(socket, 'connect');
  return { socket, closed, received: () => text };
}

/** A GET over TLS from `localAddress`, trusting `ca`: its status or its error's code. */
function getTls(port: number, localAddress: string, ca: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = httpsRequest({ host: '127.0.0.1', port, path: `${BASE}/health`, localAddress, ca, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.end();
  });
}

/** POSTs PATIENT over plain HTTP from 127.0.0.1: the number of the patient made. */
async function postPatient(served: LoggedHttpServer): Promise<number> {
  const headers = { authorization: `Bearer ${served.key}`, 'content-type': 'application/json' };
  const created = await rawRequest(`http://127.0.0.1:${served.port}${BASE}`, { method: 'POST', path: '/patients', headers, body: PATIENT });
  assert.equal(created.status, 201, created.text);
  return Number((JSON.parse(created.text) as { patient_number: string }).patient_number.slice(2));
}

const skip =
  testingExecutable && 'the server is started in this process; the executable serves the same code (test/cli/commands/tls.test.ts)';

describe('plain HTTP beside TLS on one port', { skip, timeout: 120_000 }, () => {
  let served: LoggedHttpServer;
  let ca: string;
  let credentials: HttpsCredentials;
  before(async () => {
    ({ ca, credentials } = await loopbackCredentials('plain beside tls test CA'));
    served = await startLoggedHttpServer({}, credentials);
  });
  after(() => served.close());

  it("answers the PC's own plain HTTP from 127.0.0.1 as before tls init: a GET, a POST with its body, two requests on one connection", async () => {
    const base = `http://127.0.0.1:${served.port}${BASE}`;
    const health = await rawRequest(base, { method: 'GET', path: '/health' });
    assert.equal(health.status, 200);
    assert.equal((JSON.parse(health.text) as { status: string }).status, 'ok');
    assert.ok((await postPatient(served)) > 0);

    const { socket, closed } = await connectFrom(served.port, '127.0.0.1');
    const get = `GET ${BASE}/document-types HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    socket.write(get);
    await sleep(200);
    socket.write(`${get.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`);
    const answered = await closed;
    assert.equal(answered.match(/HTTP\/1\.1 200 OK\r\n/g)?.length, 2, answered);
  });

  it('answers plain HTTP from another address (127.0.0.2) with a 400 naming the https:// address, closes, and serves none of it', async () => {
    const first = await postPatient(served);
    const before = served.logged.length;
    const { socket, closed } = await connectFrom(served.port, '127.0.0.2');
    socket.write(
      `POST ${BASE}/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${served.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(PATIENT)}\r\n\r\n${PATIENT}`,
    );
    const answered = await closed;
    assert.match(answered, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(answered, /\r\nContent-Type: text\/plain; charset=utf-8\r\n/);
    assert.ok(answered.includes(`use https://127.0.0.1:${served.port}/ `), answered);
    const after = await postPatient(served);
    assert.equal(after, first + 1, "127.0.0.2's patient was not made: the next number is the one after 127.0.0.1's");
    const refused = served.logged.slice(before).find((line) => line.event === 'plain_http_refused');
    assert.equal(refused?.client, '127.0.0.2');
  });

  it('still serves TLS on the same port, to 127.0.0.1 and to another address', async () => {
    assert.equal(await getTls(served.port, '127.0.0.1', ca), 200);
    assert.equal(await getTls(served.port, '127.0.0.2', ca), 200);
  });

  it("answers the PC's own plain request whose headers never end with 408 at the request timeout, as it would over TLS", async () => {
    const short = await startLoggedHttpServer({ requestTimeoutMs: 1500 }, credentials);
    try {
      const started = Date.now();
      const { socket, closed } = await connectFrom(short.port, '127.0.0.1');
      socket.write(`GET ${BASE}/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
      const answered = await Promise.race([closed, sleep(6000).then(() => 'still open after 6 s')]);
      socket.destroy();
      assert.match(answered, /^HTTP\/1\.1 408 /);
      assert.ok(Date.now() - started < 4000, `after ${Date.now() - started} ms`);
    } finally {
      await short.close();
    }
  });

  it("counts the PC's plain requests in the connection limits: one in flight is not closed as waiting to make room", async () => {
    const small = await startLoggedHttpServer(
      { connectionLimits: { maxConnections: 3, perAddress: 3, ownReserve: 0 }, requestTimeoutMs: 20_000 },
      credentials,
    );
    try {
      const busy = [];
      for (let i = 0; i < 3; i += 1) {
        const connection = await connectFrom(small.port, '127.0.0.1');
        // A patient's body promised and never sent, with a valid key: the request stays in flight.
        connection.socket.write(
          `POST ${BASE}/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${small.key}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
        );
        busy.push(connection);
      }
      await sleep(300);
      const extra = await connectFrom(small.port, '127.0.0.1');
      extra.socket.write(`GET ${BASE}/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      assert.equal(await extra.closed, '', 'at the cap with every connection busy, the new one is refused unanswered');
      assert.ok(
        busy.every(({ socket }) => !socket.destroyed),
        'none of the busy ones was cut',
      );
      for (const { socket } of busy) socket.destroy();
    } finally {
      await small.close();
    }
  });
});
