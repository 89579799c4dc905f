import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS, TLS_HANDSHAKE_TIMEOUT_MS } from '../../../src/server/config.js';
import type { HttpsCredentials } from '../../../src/server/connections/http-server.js';
import { rawRequest } from '../../helpers/raw-request.js';
import { loopbackCredentials, startLoggedHttpServer, type LoggedHttpServer } from '../../helpers/test-server.js';
import { testingExecutable } from '../../helpers/run-cli.js';

/**
 * Issue 39, H1: the connections one client can hold (docs/design-choices.md, "Connections and
 * time limits"). Hostile sockets come from 127.0.0.2, which is another machine
 * by 1.2.0's rule; well-behaved clients from the PC's own 127.0.0.1 and from 127.0.0.3 must
 * still be answered. Real sockets on a real server in this process: the limits are made small
 * through the server's config where the real ones would need thousands of sockets, and one
 * test of each kind runs at the real numbers.
 */

const DOCUMENT_TYPES = '/api/public/v1/document-types';

/** A TCP connection a test holds, and what became of it. */
interface Held {
  socket: Socket;
  /** Whether the server has not closed it yet. */
  open(): boolean;
  /** Resolves with everything it was answered once it is closed. */
  closed: Promise<string>;
}

/** Opens a TCP connection to `port` from `localAddress`. */
async function connectFrom(port: number, localAddress: string): Promise<Held> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => {});
  let text = '';
  let isOpen = true;
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      isOpen = false;
      resolve(text);
    }),
  );
  await once(socket, 'connect');
  return { socket, open: () => isOpen, closed };
}

const REQUEST = `GET ${DOCUMENT_TYPES} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

/** The hostile kinds of issue 39's H1: a keep-alive connection asking a public GET every 4 s; headers never finished; nothing sent. */
type Hostile = 'keep-alive' | 'slow-headers' | 'silent';

/** `count` connections of `kind` from `localAddress`, opened one after another; `stop()` ends their timers and closes them. */
async function openHostile(port: number, localAddress: string, kind: Hostile, count: number) {
  const held: Held[] = [];
  const timers: NodeJS.Timeout[] = [];
  for (let i = 0; i < count; i += 1) {
    const connection = await connectFrom(port, localAddress);
    held.push(connection);
    const { socket } = connection;
    if (kind === 'keep-alive') {
      socket.write(REQUEST);
      timers.push(setInterval(() => socket.writable && socket.write(REQUEST), 4000));
    } else if (kind === 'slow-headers') {
      socket.write(`GET ${DOCUMENT_TYPES} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
      timers.push(setInterval(() => socket.writable && socket.write('a'), 1000));
    }
  }
  return {
    held,
    stillOpen: () => held.filter((connection) => connection.open()).length,
    stop() {
      for (const timer of timers) clearInterval(timer);
      for (const { socket } of held) socket.destroy();
    },
  };
}

/** A well-behaved client's request on a new connection from `localAddress`: its status, or why it got none within `ms`. */
async function probe(port: number, localAddress: string, ms = 3000): Promise<number | string> {
  const answer = rawRequest(`http://127.0.0.1:${port}/api/public/v1`, { method: 'GET', path: '/document-types', localAddress }).then(
    (response) => response.status,
    (error: NodeJS.ErrnoException) => error.code ?? error.message,
  );
  return Promise.race([answer, sleep(ms).then(() => `no answer within ${ms} ms`)]);
}

/** The same over TLS, trusting `ca`. */
async function probeTls(port: number, localAddress: string, ca: string, ms = 3000): Promise<number | string> {
  const answer = new Promise<number | string>((resolve) => {
    const request = httpsRequest({ host: '127.0.0.1', port, path: DOCUMENT_TYPES, localAddress, ca, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.setTimeout(ms, () => request.destroy());
    request.end();
  });
  return Promise.race([answer, sleep(ms + 100).then(() => `no answer within ${ms} ms`)]);
}

/** Resolves once `condition` holds, or fails saying `what` after `ms`. */
async function waitFor(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}

const skip = testingExecutable && 'the limits of a built executable cannot be set from a test; its serve is the same code';

describe('connections at the real limits', { skip }, () => {
  let served: LoggedHttpServer;
  before(async () => {
    served = await startLoggedHttpServer();
  });
  after(() => served.close());

  for (const kind of ['keep-alive', 'slow-headers', 'silent'] as const) {
    it(`answer 127.0.0.1 and 127.0.0.3 while 127.0.0.2 opens ${MAX_CONNECTIONS + 4} ${kind} connections, of which it holds at most ${CONNECTIONS_PER_ADDRESS}`, async () => {
      const hostile = await openHostile(served.port, '127.0.0.2', kind, MAX_CONNECTIONS + 4);
      try {
        assert.equal(await probe(served.port, '127.0.0.1'), 200, "the PC's own");
        assert.equal(await probe(served.port, '127.0.0.3'), 200, 'another machine');
        await waitFor(() => hostile.stillOpen() <= CONNECTIONS_PER_ADDRESS, `127.0.0.2 holds ${hostile.stillOpen()}`);
        assert.equal(await hostile.held.at(-1)!.closed, '', 'its last connection was refused, unanswered');
      } finally {
        hostile.stop();
      }
    });
  }
});

describe('connections over TLS', { skip }, () => {
  let served: LoggedHttpServer;
  let ca: string;
  let credentials: HttpsCredentials;
  before(async () => {
    ({ ca, credentials } = await loopbackCredentials('connection limits test CA'));
    served = await startLoggedHttpServer({}, credentials);
  });
  after(() => served.close());

  // First, on a server nobody else has filled.
  it(`close a connection whose handshake has not begun after ${TLS_HANDSHAKE_TIMEOUT_MS / 1000} s, not node's 120 s`, async () => {
    const started = Date.now();
    const silent = await connectFrom(served.port, '127.0.0.4');
    await silent.closed;
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= TLS_HANDSHAKE_TIMEOUT_MS - 200 && elapsed < TLS_HANDSHAKE_TIMEOUT_MS + 3000, `closed after ${elapsed} ms`);
  });

  it(`answer 127.0.0.1 and 127.0.0.3 while 127.0.0.2 holds ${MAX_CONNECTIONS + 4} connections that never start their handshake`, async () => {
    const hostile = await openHostile(served.port, '127.0.0.2', 'silent', MAX_CONNECTIONS + 4);
    try {
      assert.equal(await probeTls(served.port, '127.0.0.1', ca), 200, "the PC's own");
      assert.equal(await probeTls(served.port, '127.0.0.3', ca), 200, 'another machine');
      await waitFor(() => hostile.stillOpen() <= CONNECTIONS_PER_ADDRESS, `127.0.0.2 holds ${hostile.stillOpen()}`);
    } finally {
      hostile.stop();
    }
  });

  it("keep a TLS connection whose request is in flight: with the network's share busy, a new address is refused, not served by cutting one", async () => {
    const small = await startLoggedHttpServer(
      { connectionLimits: { maxConnections: 8, perAddress: 2, ownReserve: 2 }, requestTimeoutMs: 20_000 },
      credentials,
    );
    try {
      const busy: TLSSocket[] = [];
      for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) {
        for (let i = 0; i < 2; i += 1) {
          const { socket: tcp } = await connectFrom(small.port, address);
          const socket = tlsConnect({ socket: tcp, ca, servername: 'localhost' });
          socket.on('error', () => {});
          await once(socket, 'secureConnect');
          // A patient's body promised and never sent, with a valid key: the request stays in flight.
          socket.write(
            `POST /api/public/v1/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${small.key}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
          );
          busy.push(socket);
        }
      }
      await sleep(300);
      assert.notEqual(await probeTls(small.port, '127.0.0.5', ca, 1500), 200, 'no room: the six in flight are kept');
      assert.ok(
        busy.every((socket) => !socket.destroyed),
        'none of them was cut',
      );
      assert.equal(await probeTls(small.port, '127.0.0.1', ca), 200, "the PC's own has its reserve");
      for (const socket of busy) socket.destroy();
    } finally {
      await small.close();
    }
  });
});

describe('connections at small limits', { skip }, () => {
  // 20 in all, 4 per address, 4 kept for the PC's own: other addresses share 16.
  const small = {
    maxConnections: 20,
    perAddress: 4,
    ownReserve: 4,
    logIntervalMs: 400,
  };

  /**
   * A request from `localAddress` that stays in flight: a patient's body promised and never
   * sent, with a valid key, so the server waits for it (until the request timeout).
   */
  async function busyFrom(served: LoggedHttpServer, localAddress: string): Promise<Held> {
    const connection = await connectFrom(served.port, localAddress);
    connection.socket.write(
      `POST /api/public/v1/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${served.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    return connection;
  }

  it("refuse an address's connections beyond its limit, unanswered, keeping those it holds, and answer the others", async () => {
    const served = await startLoggedHttpServer({ connectionLimits: small });
    try {
      const hostile = await openHostile(served.port, '127.0.0.2', 'silent', 10);
      await waitFor(() => hostile.stillOpen() === 4, `127.0.0.2 holds ${hostile.stillOpen()}`);
      assert.deepEqual(
        hostile.held.map((connection) => connection.open()),
        [true, true, true, true, false, false, false, false, false, false],
        'the four it opened first are kept',
      );
      assert.equal(await hostile.held[9]!.closed, '');
      assert.equal(await probe(served.port, '127.0.0.3'), 200);
      assert.equal(await probe(served.port, '127.0.0.1'), 200);
      hostile.stop();
    } finally {
      await served.close();
    }
  });

  it("keep the PC's own reserve: with other addresses' share all busy, 127.0.0.1 is answered and another new address is refused", async () => {
    const served = await startLoggedHttpServer({ connectionLimits: small, requestTimeoutMs: 20_000 });
    try {
      const busy: Held[] = [];
      for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'])
        for (let i = 0; i < 4; i += 1) busy.push(await busyFrom(served, address));
      await sleep(200);
      assert.equal(await probe(served.port, '127.0.0.6', 1000), 'ECONNRESET', 'the sixteen busy ones leave no room to others');
      assert.equal(await probe(served.port, '127.0.0.1'), 200, "the PC's own has its reserve");
      for (const { socket } of busy) socket.destroy();
    } finally {
      await served.close();
    }
  });

  it('close the longest-waiting connection of any address for a new client when the share is full', async () => {
    const served = await startLoggedHttpServer({ connectionLimits: { ...small, pressureFrom: 1 } });
    try {
      const hostile = await Promise.all(
        ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].map((address) => openHostile(served.port, address, 'silent', 4)),
      );
      const oldest = hostile[0]!.held[0]!;
      assert.ok(oldest.open());
      assert.equal(await probe(served.port, '127.0.0.6'), 200, 'a new client is answered');
      await oldest.closed;
      for (const group of hostile) group.stop();
    } finally {
      await served.close();
    }
  });

  it('shrink the wait for a first request as the server fills: at 19 of 20 a connection silent for 1.5 s is closed, not after 10 s', async () => {
    const served = await startLoggedHttpServer({ connectionLimits: { ...small, perAddress: 20, ownReserve: 0 } });
    try {
      const older = await openHostile(served.port, '127.0.0.2', 'silent', 5);
      await sleep(1500);
      assert.equal(older.stillOpen(), 5, 'at 5 of 20 each has its full 10 s');
      const newer = await openHostile(served.port, '127.0.0.3', 'silent', 14);
      // At 19 of 20 the wait is a tenth: 1 s, which the older five have had.
      await waitFor(() => older.stillOpen() === 0, 'the older five closed', 1500);
      assert.equal(newer.stillOpen(), 14, 'the newer keep the wait they have not had yet');
      older.stop();
      newer.stop();
    } finally {
      await served.close();
    }
  });

  it('log what the limits did once per interval, not once per socket', async () => {
    const served = await startLoggedHttpServer({ connectionLimits: { ...small, logIntervalMs: 1000 } });
    try {
      const hostile = await openHostile(served.port, '127.0.0.2', 'silent', 40);
      await waitFor(() => hostile.stillOpen() === 4, `127.0.0.2 holds ${hostile.stillOpen()}`);
      assert.deepEqual(
        served.logged.filter((line) => line.event === 'connections_limited'),
        [],
        'nothing before the interval ends',
      );
      await waitFor(() => served.logged.some((line) => line.event === 'connections_limited'), 'the line of the interval', 3000);
      const lines = served.logged.filter((line) => line.event === 'connections_limited');
      assert.equal(lines.length, 1, JSON.stringify(lines));
      const [line] = lines as [Record<string, unknown>];
      assert.equal(line.refused_over_address_limit, 36, JSON.stringify(line));
      assert.deepEqual(line.busiest_addresses, { '127.0.0.2': 36 });
      assert.equal(line.interval_s, 1);
      hostile.stop();
    } finally {
      await served.close();
    }
  });
});
