import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { findWebhookEndpoint, moveWebhookEndpoint } from '../../../src/db/webhook-endpoints.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { connectionRunner, performUseCase } from '../../../src/domain/use-case.js';
import { deliverWebhook, nextEventFor, type WebhookSender } from '../../../src/domain/webhooks/deliver-webhooks.js';
import { GIVE_UP_AFTER_MS } from '../../../src/domain/webhooks/retry-schedule.js';
import { newWebhookSecret, webhookHeaders } from '../../../src/domain/webhooks/signature.js';
import { ADD_WEBHOOK_ENDPOINT, ENABLE_WEBHOOK_ENDPOINT } from '../../../src/domain/webhooks/webhook-endpoints.js';
import type { ValidationError } from '../../../src/errors.js';
import { httpWebhookSender } from '../../../src/adapters/http-webhook-sender.js';
import { buildPatient } from '../../helpers/builders.js';
import { closedPort } from '../../helpers/smtp-sink.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

const NOBODY = { source: 'cli', actor: null } as const;

describe('webhook signatures', () => {
  it("reproduce the Standard Webhooks specification's example signature", () => {
    const headers = webhookHeaders(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.deepEqual(headers, {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('are made with a new secret of 32 random bytes that the standardwebhooks package verifies', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    assert.notEqual(newWebhookSecret(), secret);
    const body = '{"id":"evt_1"}';
    const headers = webhookHeaders(secret, 'evt_1', Math.floor(Date.now() / 1000), body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), { id: 'evt_1' });
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  });
});

describe('a failing webhook endpoint', () => {
  const data = useTestDatabase({ each: true });
  const failing = (status: number): WebhookSender => ({ send: async () => ({ status, body: 'down for maintenance' }) });
  const endpointAddedBeforeOneEvent = () => {
    const { id } = performUseCase(ADD_WEBHOOK_ENDPOINT, data.db, { body: { url: 'https://reminders.example/hook' } }, NOBODY);
    createPatient(data.db, buildPatient());
    return id;
  };
  const attemptAt = async (id: string, sender: WebhookSender, at: number) => {
    const endpoint = findWebhookEndpoint(data.db, id)!;
    const event = nextEventFor(data.db, endpoint)!;
    return deliverWebhook(data.db, connectionRunner(data.db), sender, endpoint, event, new AbortController().signal, () => new Date(at));
  };

  it('is tried again after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then hourly, and disabled after 3 days of failure', async () => {
    const id = endpointAddedBeforeOneEvent();
    const start = Date.parse('2026-11-30T08:00:00.000Z');
    let clock = start;
    const waits: number[] = [];
    for (;;) {
      const outcome = await attemptAt(id, failing(503), clock);
      const row = findWebhookEndpoint(data.db, id)!;
      if (outcome.outcome === 'disabled') {
        assert.equal(row.state, 'disabled');
        assert.match(row.last_error ?? '', /^HTTP 503: down for maintenance; disabled: it has failed for 3 days$/);
        break;
      }
      assert.equal(outcome.outcome, 'retry');
      assert.equal(row.last_error, 'HTTP 503: down for maintenance');
      assert.equal(row.failing_since, new Date(start).toISOString());
      waits.push(Date.parse(row.next_attempt_at!) - clock);
      clock = Date.parse(row.next_attempt_at!);
    }
    const [s, m, h] = [1000, 60_000, 3_600_000];
    assert.deepEqual(waits.slice(0, 8), [5 * s, 30 * s, 2 * m, 10 * m, 30 * m, h, h, h]);
    assert.ok(clock - start >= GIVE_UP_AFTER_MS && clock - start < GIVE_UP_AFTER_MS + h, `disabled after ${(clock - start) / h} h`);
    // Still where it stood: enabling it resumes at the same event.
    assert.equal(findWebhookEndpoint(data.db, id)!.position, 0);
  });

  it('is disabled at once by a 410, and a redirect is a failure like any other answer', async () => {
    const id = endpointAddedBeforeOneEvent();
    const redirected = await attemptAt(id, failing(301), Date.now());
    assert.deepEqual([redirected.outcome, redirected.status], ['retry', 301]);
    assert.match(findWebhookEndpoint(data.db, id)!.last_error ?? '', /^HTTP 301 \(redirects are not followed\)/);
    const gone = await attemptAt(id, failing(410), Date.now());
    assert.equal(gone.outcome, 'disabled');
    assert.equal(findWebhookEndpoint(data.db, id)!.state, 'disabled');
  });

  it('leaves a row the desk moved during the attempt as the desk left it (a replay wins over the answer)', async () => {
    const id = endpointAddedBeforeOneEvent();
    createPatient(data.db, buildPatient());
    const endpoint = findWebhookEndpoint(data.db, id)!;
    const event = nextEventFor(data.db, endpoint)!;
    const replayMeanwhile: WebhookSender = {
      send: async () => {
        moveWebhookEndpoint(data.db, id, 0);
        return { status: 200, body: '' };
      },
    };
    // Moved from 0 to 0 would agree: move it on first, so that the replay is a real move back.
    moveWebhookEndpoint(data.db, id, 1);
    const outcome = await deliverWebhook(
      data.db,
      connectionRunner(data.db),
      replayMeanwhile,
      { ...endpoint, position: 1 },
      event,
      new AbortController().signal,
    );
    assert.equal(outcome.outcome, 'superseded');
    const row = findWebhookEndpoint(data.db, id)!;
    assert.deepEqual([row.position, row.last_delivered_seq], [0, null]);
  });
});

describe('the desk during an attempt', () => {
  const data = useTestDatabase({ each: true });

  it('an enable during a failing attempt wins: the next attempt is due at once', async () => {
    const { id } = performUseCase(ADD_WEBHOOK_ENDPOINT, data.db, { body: { url: 'https://reminders.example/hook' } }, NOBODY);
    createPatient(data.db, buildPatient());
    const failWith = (sender: WebhookSender) => {
      const endpoint = findWebhookEndpoint(data.db, id)!;
      const event = nextEventFor(data.db, endpoint)!;
      return deliverWebhook(data.db, connectionRunner(data.db), sender, endpoint, event, new AbortController().signal);
    };
    await failWith({ send: async () => ({ status: 503, body: '' }) });
    assert.equal(findWebhookEndpoint(data.db, id)!.failed_attempts, 1);
    const enabledMeanwhile: WebhookSender = {
      send: async () => {
        performUseCase(ENABLE_WEBHOOK_ENDPOINT, data.db, { path: { webhook: id } }, NOBODY);
        return { status: 503, body: '' };
      },
    };
    assert.equal((await failWith(enabledMeanwhile)).outcome, 'superseded');
    const row = findWebhookEndpoint(data.db, id)!;
    assert.deepEqual([row.failed_attempts, row.next_attempt_at, row.failing_since], [0, null, null]);
  });

  it('an endpoint is refused a --types that names no type, as GET /events refuses it', () => {
    assert.throws(
      () => performUseCase(ADD_WEBHOOK_ENDPOINT, data.db, { body: { url: 'https://reminders.example/hook', types: ' , ' } }, NOBODY),
      (error: ValidationError) => error.issues[0]?.loc.join('.') === 'body.types' && error.issues[0]?.type === 'value_error',
    );
  });
});

describe('the HTTP sender of webhooks', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  before(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      if (request.url === '/moved') {
        response.writeHead(302, { location: '/target' }).end();
      } else if (request.url === '/endless') {
        response.writeHead(200);
        const chunk = Buffer.alloc(1024, 'x');
        const pump = () => {
          while (response.write(chunk));
        };
        response.on('drain', pump);
        pump();
      } else if (request.url === '/silent') {
        // Never answers.
      } else {
        response.end('ok');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const post = (path: string, timeoutMs?: number) =>
    httpWebhookSender(timeoutMs).send({ url: base + path, headers: {}, body: '{}' }, new AbortController().signal);

  it('does not follow a redirect', async () => {
    assert.equal((await post('/moved')).status, 302);
    assert.ok(!hits.includes('/target'), 'the redirect target was asked');
  });

  it('reads at most a few KiB of an answer that never ends', async () => {
    const answer = await post('/endless');
    assert.equal(answer.status, 200);
    assert.ok(answer.body.length <= 64 * 1024, `${answer.body.length} characters read`);
  });

  it('gives up on an endpoint that does not answer in time', async () => {
    await assert.rejects(post('/silent', 300), /timed out after 0.3 s/);
  });

  it('fails on a closed port', async () => {
    await assert.rejects(
      httpWebhookSender().send({ url: `http://127.0.0.1:${await closedPort()}/`, headers: {}, body: '{}' }, new AbortController().signal),
      (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
    );
  });
});
