import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { httpWebhookSender, WEBHOOK_TIMEOUT_MS } from '../../src/adapters/http-webhook-sender.js';
import type { WebhookPost } from '../../src/domain/webhooks/deliver-webhooks.js';

/**
 * The HTTP client `clinic serve` posts webhooks with (clinic-api-1.2.md, "Change feed", Webhooks):
 * what a receiver gets, which answers count as answers, and when an attempt is given up.
 */

/** One request the receiver got, with whether its connection was closed by the client. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  closed: Promise<void>;
}

describe('adapters: the HTTP sender of webhooks', () => {
  let receiver: Server;
  let base: string;
  const received: Received[] = [];
  /** Resolves with the next request the receiver gets. */
  let onRequest: ((request: Received) => void) | undefined;
  before(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      const closed = new Promise<void>((resolve) => response.once('close', resolve));
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const got = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), closed };
        received.push(got);
        onRequest?.(got);
        if (request.url === '/moved') response.writeHead(307, { location: '/elsewhere' }).end('see /elsewhere');
        else if (request.url === '/gone') response.writeHead(410).end('{"error":"endpoint removed"}');
        else if (request.url === '/endless') {
          response.writeHead(200);
          const chunk = Buffer.alloc(1024, 'x');
          const pump = () => {
            while (!response.destroyed && response.write(chunk));
          };
          response.on('drain', pump);
          pump();
        } else if (request.url !== '/silent') response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  after(() => {
    receiver.closeAllConnections();
    receiver.close();
  });
  afterEach(() => {
    mock.timers.reset();
    received.length = 0;
    onRequest = undefined;
  });
  const post = (path: string, body = '{}'): WebhookPost => ({ url: base + path, headers: { 'webhook-id': 'evt_7' }, body });
  const nextRequest = () => new Promise<Received>((resolve) => (onRequest = resolve));

  it('POSTs the event as JSON with its headers, its length in bytes, and names itself', async () => {
    const body = JSON.stringify({ id: 'evt_7', type: 'patient.created', data: { patient_number: 'P-000001', name: 'Jürgen Müller' } });
    const signed = { 'webhook-id': 'evt_7', 'webhook-timestamp': '1764489600', 'webhook-signature': 'v1,c2lnbmF0dXJl' };
    const answer = await httpWebhookSender().send({ url: `${base}/hooks/clinic`, headers: signed, body }, new AbortController().signal);
    assert.deepEqual(answer, { status: 204, body: '' });
    const [request] = received;
    assert.deepEqual(JSON.parse(request!.body), JSON.parse(body));
    assert.deepEqual(
      [request!.path, request!.headers['content-type'], request!.headers['content-length'], request!.headers['user-agent']],
      ['/hooks/clinic', 'application/json', String(Buffer.byteLength(body)), 'clinic-webhooks'],
    );
    assert.deepEqual(
      [request!.headers['webhook-id'], request!.headers['webhook-timestamp'], request!.headers['webhook-signature']],
      ['evt_7', '1764489600', 'v1,c2lnbmF0dXJl'],
    );
  });

  it('takes a redirect or a 410 as the answer it is, following nothing', async () => {
    const sender = httpWebhookSender();
    assert.deepEqual(await sender.send(post('/moved'), new AbortController().signal), { status: 307, body: 'see /elsewhere' });
    assert.deepEqual(await sender.send(post('/gone'), new AbortController().signal), { status: 410, body: '{"error":"endpoint removed"}' });
    assert.deepEqual(
      received.map((request) => request.path),
      ['/moved', '/gone'],
    );
  });

  it('reads only the start of an answer that never ends, and closes its connection', async () => {
    const answer = await httpWebhookSender().send(post('/endless'), new AbortController().signal);
    assert.equal(answer.status, 200);
    assert.ok(answer.body.length >= 4096 && answer.body.length <= 64 * 1024, `${answer.body.length} characters read`);
    await received[0]!.closed;
  });

  it(`gives up on a receiver silent for ${WEBHOOK_TIMEOUT_MS / 1000} s, and not a millisecond before`, async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const arrived = nextRequest();
    const sending = httpWebhookSender().send(post('/silent'), new AbortController().signal);
    let settled = false;
    sending.then(
      () => (settled = true),
      () => (settled = true),
    );
    const request = await arrived;
    mock.timers.tick(WEBHOOK_TIMEOUT_MS - 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'the attempt was given up before its time');
    mock.timers.tick(1);
    await assert.rejects(sending, { message: 'timed out after 15 s' });
    await request.closed;
  });

  it('sends nothing once the server is stopping, and abandons an attempt in flight when it stops', async () => {
    const stopped = new AbortController();
    stopped.abort();
    await assert.rejects(httpWebhookSender().send(post('/hooks/clinic'), stopped.signal), { message: 'abandoned: the server is stopping' });
    assert.equal(received.length, 0, 'a request was sent after the stop');
    const stopping = new AbortController();
    const arrived = nextRequest();
    const sending = httpWebhookSender().send(post('/silent'), stopping.signal);
    const request = await arrived;
    stopping.abort();
    await assert.rejects(sending, { message: 'abandoned: the server is stopping' });
    await request.closed;
  });
});
