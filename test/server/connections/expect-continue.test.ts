import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient } from '../../helpers/builders.js';
import { multipartBody } from '../../helpers/multipart.js';
import { useTestServer } from '../../helpers/fixtures.js';

const DOCUMENT_LIMIT = 1024 * 1024;

/** A response head and whatever of its body has arrived with it. */
interface Received {
  status: number;
  headers: string;
  rest: Buffer;
}

/**
 * A raw HTTP/1.1 client that sends a request head with `Expect: 100-continue`, reads what the
 * server answers to the head alone, and may then send the body.
 */
class ExpectingClient {
  private buffered = Buffer.alloc(0);
  private closed = false;
  private waiter: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on('error', () => undefined);
  }

  static async open(baseUrl: string, method: string, path: string, headers: Record<string, string | number>): Promise<ExpectingClient> {
    const url = new URL(`${baseUrl}${path}`);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Expect: 100-continue'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    return new ExpectingClient(socket);
  }

  /** The next response head (100 Continue or the final answer), or undefined when the connection closes first. */
  async nextHead(timeoutMs = 5000): Promise<Received | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = this.buffered.subarray(0, end).toString('latin1');
        this.buffered = this.buffered.subarray(end + 4);
        return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, rest: this.buffered };
      }
      if (this.closed) return undefined;
      if (Date.now() > deadline)
        assert.fail(`no response head within ${timeoutMs} ms; received ${JSON.stringify(this.buffered.toString('latin1'))}`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 50);
      });
      this.waiter = undefined;
    }
  }

  /** Reads until the connection closes or `length` body bytes have arrived; returns the body. */
  async body(length: number, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.buffered.length < length && !this.closed) {
      if (Date.now() > deadline) assert.fail(`the body did not arrive within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 50);
      });
      this.waiter = undefined;
    }
    return this.buffered.subarray(0, length).toString('utf8');
  }

  send(bytes: string | Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Whether the server closes the connection within `timeoutMs`. */
  async closesWithin(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.closed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const contentLengthOf = (head: string) => Number(/^content-length: *(\d+)/im.exec(head)?.[1]);

describe('Expect: 100-continue', () => {
  const server = useTestServer({ documentLimitBytes: DOCUMENT_LIMIT });
  let patientId: string;
  const clients: ExpectingClient[] = [];
  const open = async (method: string, path: string, headers: Record<string, string | number>) => {
    const client = await ExpectingClient.open(server.baseUrl, method, path, headers);
    clients.push(client);
    return client;
  };

  before(async () => {
    patientId = createPatient(server.db, buildPatient()).id;
  });
  after(async () => {
    for (const client of clients) client.destroy();
  });

  const documentCount = () => (server.db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;

  it('an upload over the limit is refused with 413 before the client sends its body, and the connection closes', async () => {
    const { contentType } = multipartBody([{ name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: 'x' }]);
    const client = await open('POST', `/patients/${patientId}/documents`, {
      authorization: `Bearer ${server.key}`,
      'content-type': contentType,
      'content-length': DOCUMENT_LIMIT * 8,
    });
    const head = await client.nextHead();
    assert.ok(head, 'an answer before the connection closed');
    assert.equal(head.status, 413, head.headers);
    const body = JSON.parse(await client.body(contentLengthOf(head.headers))) as { detail: { code: string } };
    assert.equal(body.detail.code, 'DOCUMENT_TOO_LARGE');
    assert.ok(await client.closesWithin(3000), 'the server closes the connection');
    assert.equal(documentCount(), 0);
  });

  it('a request with a wrong key is answered 401 without 100 Continue', async () => {
    const client = await open('POST', '/patients', {
      authorization: 'Bearer wrong',
      'content-type': 'application/json',
      'content-length': 100,
    });
    const head = await client.nextHead();
    assert.ok(head);
    assert.equal(head.status, 401, head.headers);
    assert.match(head.headers, /^connection: close$/im, 'the body the client may still send is not read as a next request');
  });

  it('a request to an unknown path is answered 404 without 100 Continue', async () => {
    const client = await open('POST', '/no-such-thing', {
      authorization: `Bearer ${server.key}`,
      'content-type': 'application/json',
      'content-length': 10,
    });
    const head = await client.nextHead();
    assert.ok(head);
    assert.equal(head.status, 404, head.headers);
  });

  it('a JSON body over its limit is refused with 413 without 100 Continue', async () => {
    const client = await open('POST', '/patients', {
      authorization: `Bearer ${server.key}`,
      'content-type': 'application/json',
      'content-length': 64 * 1024 * 1024,
    });
    const head = await client.nextHead();
    assert.ok(head);
    assert.equal(head.status, 413, head.headers);
  });

  /** Sends a request head, expects 100 Continue, sends `body`, expects 201; returns the parsed answer. */
  async function createdAfterContinue<T>(path: string, contentType: string, body: string | Buffer): Promise<T> {
    const client = await open('POST', path, {
      authorization: `Bearer ${server.key}`,
      'content-type': contentType,
      'content-length': Buffer.byteLength(body),
    });
    const interim = await client.nextHead();
    assert.equal(interim?.status, 100, 'the server asks for the body');
    client.send(body);
    const final = await client.nextHead();
    assert.ok(final);
    assert.equal(final.status, 201, final.headers);
    return JSON.parse(await client.body(contentLengthOf(final.headers))) as T;
  }

  it('an accepted JSON request gets 100 Continue, then its answer once the body is sent', async () => {
    const created = await createdAfterContinue<{ last_name: string }>(
      '/patients',
      'application/json',
      JSON.stringify(buildPatient({ last_name: 'Continued' })),
    );
    assert.equal(created.last_name, 'Continued');
  });

  it('an accepted upload gets 100 Continue, then 201 once the form is sent', async () => {
    const before = documentCount();
    const { body, contentType } = multipartBody([
      { name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', data: Buffer.alloc(200 * 1024, 7) },
    ]);
    const stored = await createdAfterContinue<{ size: number }>(`/patients/${patientId}/documents`, contentType, body);
    assert.equal(stored.size, 200 * 1024);
    assert.equal(documentCount(), before + 1);
  });
});
