import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, it, mock } from 'node:test';
import { httpWebhookSender } from '../../../src/adapters/http-webhook-sender.js';
import { findWebhookEndpoint } from '../../../src/db/webhook-endpoints.js';
import { connectionRunner, performUseCase } from '../../../src/domain/use-case.js';
import { RETRY_DELAYS_MS } from '../../../src/domain/webhooks/retry-schedule.js';
import { ADD_WEBHOOK_ENDPOINT } from '../../../src/domain/webhooks/webhook-endpoints.js';
import { startWebhookWorker, STOP_GRACE_MS, type WebhookWorker } from '../../../src/server/workers/webhook-worker.js';
import { ChangeWatch } from '../../../src/server/writes/change-watch.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

/**
 * The delivery of the change feed to webhook endpoints while `clinic serve` runs (clinic-api-1.2.md,
 * "Change feed", Webhooks): each endpoint gets every event in seq order, the next only after the
 * previous was answered 2xx, without waiting for other endpoints; a failure waits for its retry;
 * a stop lets attempts in flight be answered for STOP_GRACE_MS, then abandons them. What one attempt
 * does and records: test/domain/webhooks/deliver-webhooks.test.ts.
 */

/** One POST the receiver got: where, the event's seq, and how to answer it if it is held. */
interface Arrival {
  path: string;
  seq: number;
  answer(status: number): void;
  closed: Promise<void>;
}

const NOBODY = { source: 'cli', actor: null } as const;

describe('server: the webhook worker', () => {
  const data = useTestDatabase({ each: true });
  let receiver: Server;
  let base: string;
  /** The status each path is answered with at once; a path without one is held until the test answers. */
  const answers = new Map<string, number>();
  const arrivals: Arrival[] = [];
  let onArrival: (() => void) | undefined;
  let worker: WebhookWorker | undefined;
  let changes: ChangeWatch;
  const logged: Record<string, unknown>[] = [];

  before(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        const closed = new Promise<void>((resolve) => response.once('close', resolve));
        const answer = (status: number) => response.writeHead(status).end();
        arrivals.push({ path, seq: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { seq: number }).seq, answer, closed });
        const status = answers.get(path);
        if (status !== undefined) answer(status);
        onArrival?.();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  after(() => {
    receiver.closeAllConnections();
    receiver.close();
  });
  beforeEach(() => {
    changes = new ChangeWatch(data.db);
  });
  afterEach(async () => {
    mock.timers.reset();
    await worker?.stop();
    worker = undefined;
    changes.close();
    arrivals.length = 0;
    answers.clear();
    logged.length = 0;
  });

  /** An endpoint at `path` of the receiver, answered `status` at once unless undefined (held). */
  const endpoint = (path: string, status?: number) => {
    if (status !== undefined) answers.set(path, status);
    return performUseCase(ADD_WEBHOOK_ENDPOINT, data.db, { body: { url: base + path, name: path.slice(1) } }, NOBODY).id;
  };
  /** Commits `count` changes, a new patient each: one event each in the feed. */
  const events = (count: number) => {
    for (let made = 0; made < count; made++) createTestPatient(data.db);
  };
  const start = (rescanMs = 20) => {
    worker = startWebhookWorker(data.db, connectionRunner(data.db), changes, httpWebhookSender(), {
      logger: { info: (event) => logged.push(event), error: (event) => logged.push(event) },
      rescanMs,
    });
    return worker;
  };
  /** The seqs `path` has got so far, in order. */
  const seqsAt = (path: string) => arrivals.filter((arrival) => arrival.path === path).map((arrival) => arrival.seq);
  /** Resolves once `path` has got `count` requests in all. */
  const until = async (path: string, count: number) => {
    while (seqsAt(path).length < count) await new Promise<void>((resolve) => (onArrival = resolve));
    return arrivals.filter((arrival) => arrival.path === path);
  };
  const lastDelivered = (id: string) => findWebhookEndpoint(data.db, id)!.last_delivered_seq;

  it('sends an endpoint its events in seq order, one at a time, the next once the last was answered; others do not wait for it', async () => {
    endpoint('/slow');
    endpoint('/quick', 204);
    events(3);
    start();
    const [first] = await until('/slow', 1);
    // While /slow's first event waits for its answer, /quick gets all three: the worker passed on and sent /slow nothing more.
    assert.deepEqual(
      (await until('/quick', 3)).map((arrival) => arrival.seq),
      [1, 2, 3],
    );
    assert.deepEqual(seqsAt('/slow'), [1]);
    first!.answer(200);
    const [, second] = await until('/slow', 2);
    second!.answer(299);
    const [, , third] = await until('/slow', 3);
    third!.answer(204);
    assert.deepEqual(seqsAt('/slow'), [1, 2, 3]);
  });

  it(
    'sends an event committed without telling it (by another process) within a poll of the feed, not at the next rescan',
    { timeout: 10_000 },
    async () => {
      endpoint('/hook', 204);
      start(60_000);
      await new Promise((resolve) => setImmediate(resolve));
      events(1);
      assert.deepEqual(
        (await until('/hook', 1)).map((arrival) => arrival.seq),
        [1],
      );
    },
  );

  it('tries a failed event again when its retry is due, not before, while other endpoints go on', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-30T08:00:00.000Z') });
    const failing = endpoint('/failing', 503);
    endpoint('/quick', 204);
    events(1);
    start();
    await until('/failing', 1);
    await until('/quick', 1);
    while (findWebhookEndpoint(data.db, failing)!.next_attempt_at === null) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(findWebhookEndpoint(data.db, failing)!.next_attempt_at, '2026-11-30T08:00:05.000Z');
    answers.set('/failing', 204);
    mock.timers.tick(RETRY_DELAYS_MS[0] - 1);
    events(1);
    await until('/quick', 2);
    assert.deepEqual(seqsAt('/failing'), [1], 'tried again before its retry was due');
    mock.timers.tick(1);
    await until('/failing', 2);
    assert.deepEqual(seqsAt('/failing').slice(0, 2), [1, 1]);
  });

  it('waits the first retry when an outcome cannot be recorded, rather than sending the event again at once', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-30T08:00:00.000Z') });
    const hook = endpoint('/hook', 204);
    endpoint('/quick', 204);
    data.db.exec(
      `CREATE TEMP TRIGGER no_outcome BEFORE UPDATE ON webhook_endpoints WHEN OLD.name = 'hook' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    events(1);
    start();
    await until('/hook', 1);
    await until('/quick', 1);
    while (!logged.some((event) => event.event === 'webhook_record_failed')) await new Promise((resolve) => setImmediate(resolve));
    data.db.exec('DROP TRIGGER no_outcome');
    mock.timers.tick(RETRY_DELAYS_MS[0] - 1);
    events(1);
    await until('/quick', 2);
    assert.deepEqual(seqsAt('/hook'), [1], 'sent again before the first retry');
    mock.timers.tick(1);
    await until('/hook', 2);
    while (lastDelivered(hook) !== 1) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seqsAt('/hook').slice(0, 2), [1, 1]);
  });

  it('on stop, records an attempt answered within the grace as delivered, so that a restart does not send it again', async () => {
    const hook = endpoint('/hook');
    events(2);
    start();
    const [first] = await until('/hook', 1);
    const stopping = worker!.stop();
    first!.answer(204);
    await stopping;
    worker = undefined;
    assert.equal(lastDelivered(hook), 1);
    answers.set('/hook', 204);
    start();
    await until('/hook', 2);
    assert.deepEqual(seqsAt('/hook'), [1, 2]);
  });

  it(`on stop, abandons an attempt not answered within ${STOP_GRACE_MS / 1000} s, recording nothing, so that a restart sends it again`, async () => {
    const hook = endpoint('/hook');
    events(1);
    start();
    const [held] = await until('/hook', 1);
    // The grace is real time (the stop of a server), not the program's clock: this test takes it.
    const stopAsked = performance.now();
    await worker!.stop();
    worker = undefined;
    const waited = performance.now() - stopAsked;
    assert.ok(waited >= STOP_GRACE_MS - 50 && waited < STOP_GRACE_MS + 2000, `the stop waited ${Math.round(waited)} ms`);
    await held!.closed;
    assert.equal(lastDelivered(hook), null);
    answers.set('/hook', 204);
    start();
    await until('/hook', 2);
    assert.deepEqual(seqsAt('/hook'), [1, 1]);
  });
});
