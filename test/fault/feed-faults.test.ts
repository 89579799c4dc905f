import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '../../src/db/open-database.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { buildPatient } from '../helpers/builders.js';
import type { AddedWebhook, ListedWebhook } from '../helpers/change-feed.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { lazyFsSkipReason, mountLazyFs } from '../helpers/lazyfs.js';
import { bootUntilPowerCut } from '../helpers/power-cuts.js';
import { seededRandom } from '../helpers/random.js';
import { programPlatform, runClinic, runNode, startServeProcess, STOP_SIGNAL, type ServeProcess } from '../helpers/run-cli.js';

// The change feed and its webhooks under faults (issue 30, clinic-api-1.2.md "Change feed",
// docs/design-choices.md "Change feed and webhooks"): `clinic serve` is killed with SIGKILL, or the power is cut (LazyFS), while
// clients write and while events are being delivered to a receiver of the test's own. Afterwards
// the receiver, deduplicating by webhook-id (delivery is at-least-once on the wire), has every
// event exactly once and in order; the feed has no gap; every acknowledged write has its event;
// and the feed and the data agree: one event per patient and per payment, none without its row.

/** The strikes of the kill test, in turn: where in the work the server dies. */
const KILL_STRIKES: readonly Strike[] = ['held', 'write', 'answered', 'held'];
/** The strikes of the power-cut test, one per boot. */
const POWER_CUT_STRIKES: readonly Strike[] = ['held', 'answered', 'write'];
const WRITERS = 2;
const PAYERS = 2;
/** Pause of each client between its requests (ms): the writes must not outrun one-at-a-time delivery for long. */
const CLIENT_PAUSE = [10, 50] as const;
/** How long the receiver holds a delivery before it answers 200 (ms). */
const RECEIVER_DELAY = [0, 12] as const;
/** Payments written by a second process beside the server (write-in-loop.ts). */
const LOOP_PAYMENTS = 40;
/** The types the writes of this file append; any other type in the feed is an event without a change. */
const WRITTEN_TYPES = new Set(['patient.created', 'invoice.created', 'payment.created']);

const random = seededRandom();
/** The Idempotency-Keys given out, across the tests of the file. */
let idempotencyKeys = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the fault strikes: at a write's 2xx, while the receiver holds a delivery, or the moment it has answered one. */
type Strike = 'write' | 'held' | 'answered';

/** An event as GET /events and the webhooks give it. */
interface FeedEvent {
  id: string;
  seq: number;
  type: string;
  occurred_at: string;
  patient_id: string | null;
  data: Record<string, any>;
}

/** One POST the receiver got. */
interface Delivery {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** Its 200 was handed to the connection in full (the server may still not have read it). */
  answered: boolean;
}

/** A webhook receiver of the test's own: answers every POST 200 after a small random delay. */
interface Receiver {
  url: string;
  /** Every POST, in the order they arrived. */
  deliveries: Delivery[];
  /** Called when a delivery arrives (`held`: before it is answered) and once it is answered. */
  onDelivery?: (moment: 'held' | 'answered') => void;
  /** The deliveries the server was killed while they were held: it never got their 2xx, so must send them again. */
  heldAtFault: Delivery[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', deliveries: [], heldAtFault: [], close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', () => {});
    response.on('error', () => {});
    request.on('end', () => {
      const delivery: Delivery = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        answered: false,
      };
      receiver.deliveries.push(delivery);
      receiver.onDelivery?.('held');
      setTimeout(
        () => {
          // The server may be dead by now (a strike while held): then this answer goes nowhere.
          response.on('finish', () => {
            if (request.socket.destroyed) return;
            delivery.answered = true;
            receiver.onDelivery?.('answered');
          });
          response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        },
        random.integer(...RECEIVER_DELAY),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

async function addWebhook(dataDir: string, url: string): Promise<AddedWebhook> {
  const added = await runClinic(['webhook', 'add', '--url', url, '--json', '--data', dataDir]);
  assert.equal(added.code, 0, `webhook add: ${added.stdout}${added.stderr}`);
  return JSON.parse(added.stdout) as AddedWebhook;
}

async function listedEndpoint(dataDir: string, id: string): Promise<ListedWebhook> {
  const listed = await runClinic(['webhook', 'list', '--json', '--data', dataDir]);
  assert.equal(listed.code, 0, `webhook list: ${listed.stdout}${listed.stderr}`);
  const endpoint = (JSON.parse(listed.stdout) as ListedWebhook[]).find((each) => each.id === id);
  assert.ok(endpoint, `webhook list shows the endpoint ${id}: ${listed.stdout}`);
  return endpoint;
}

/** An API key with every scope, made before serve starts (keys append no event). */
function prepareKey(dataDir: string): string {
  const db = openDatabase(dataDir);
  try {
    return createApiKey(db, { name: 'feed fault test' }).key;
  } finally {
    db.close();
  }
}

/** One write a client sent: answered 2xx (`ok`) or not. */
interface Sent {
  kind: 'patient' | 'payment';
  ok: boolean;
  status?: number;
  /** The patient's id, or the payment's. */
  id?: string;
  patientNumber?: string;
  invoiceId?: string;
}

/** The server as the clients see it: where it listens, and a promise that holds while it restarts. */
interface Target {
  baseUrl: string;
  key: string;
  ready: Promise<void>;
  stopping: boolean;
  /** The fault, armed: it strikes at the next moment of its kind. */
  armed?: { on: Strike; strike(): void };
}

/** Arms `strike` for the next moment `on`; resolves once it has struck, fails if none comes within 15 s. */
function arm(target: Target, receiver: Receiver, on: Strike, strike: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      target.armed = undefined;
      reject(new Error(`nothing to strike at: no ${on === 'write' ? 'write answered 2xx' : `delivery ${on}`} within 15 s`));
    }, 15_000);
    target.armed = {
      on,
      strike() {
        clearTimeout(timer);
        target.armed = undefined;
        strike();
        resolve();
      },
    };
    receiver.onDelivery = (moment) => {
      if (target.armed?.on !== moment) return;
      if (moment === 'held') receiver.heldAtFault.push(receiver.deliveries.at(-1)!);
      target.armed.strike();
    };
  });
}

async function send(target: Target, path: string, init: RequestInit = {}): Promise<{ ok: boolean; status?: number; body?: any }> {
  try {
    const response = await fetch(`${target.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
      signal: AbortSignal.timeout(15_000),
    });
    // Struck on the status line and headers: the answer is given, whether or not its body is read.
    if (response.ok && target.armed?.on === 'write') target.armed.strike();
    const text = await response.text();
    return { ok: response.ok, status: response.status, body: response.ok && text !== '' ? JSON.parse(text) : undefined };
  } catch {
    // No answer (refused, or the connection died): not acknowledged.
    return { ok: false };
  }
}

/** An API request the test itself makes (not part of the load): must answer 2xx. */
async function apiGet(target: Target, path: string): Promise<{ body: any; next: string | undefined }> {
  const response = await fetch(`${target.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${target.key}` },
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  assert.equal(response.status, 200, `GET ${path}: ${response.status} ${text.slice(0, 300)}`);
  const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  return { body: JSON.parse(text), next: next === undefined ? undefined : new URL(next, target.baseUrl).href.slice(target.baseUrl.length) };
}

/** Every item of a paged list, following `Link: rel="next"`. */
async function allPages<T>(target: Target, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let next: string | undefined = path; next !== undefined;) {
    const page = await apiGet(target, next);
    assert.ok(Array.isArray(page.body), `GET ${next} is an array`);
    items.push(...(page.body as T[]));
    next = page.next;
  }
  return items;
}

/**
 * Two patients over the API and three large invoices by `clinic invoice create` beside the
 * server (invoices are made on the desk only); the first two invoices are for the payers, the
 * third for the second process's payments.
 */
async function seed(target: Target, dataDir: string): Promise<string[]> {
  const patients: string[] = [];
  for (const n of [1, 2]) {
    const created = await send(target, '/patients', {
      method: 'POST',
      body: JSON.stringify(buildPatient({ email: `feed${n}@example.org` })),
    });
    assert.equal(created.status, 201, 'a seed patient');
    patients.push(created.body.id);
  }
  const invoices = await Promise.all(
    [0, 1, 0].map((n) =>
      runClinic(['invoice', 'create', '--patient-id', patients[n]!, '--total', '90000.00', '--json', '--data', dataDir]),
    ),
  );
  return invoices.map((created) => {
    assert.equal(created.code, 0, `invoice create: ${created.stdout}${created.stderr}`);
    return (JSON.parse(created.stdout) as { id: string }).id;
  });
}

/** Runs the clients until `target.stopping`; each appends what it sent to `log`. */
function startClients(target: Target, invoiceIds: readonly string[], log: Sent[]): Promise<void[]> {
  const pause = () => sleep(random.integer(...CLIENT_PAUSE));
  const writer = async (client: number) => {
    for (let i = 0; !target.stopping; i++) {
      await target.ready;
      if (target.stopping) break;
      const answer = await send(target, '/patients', {
        method: 'POST',
        body: JSON.stringify(buildPatient({ first_name: `Feed${client}`, last_name: `Number${i}` })),
      });
      log.push({ kind: 'patient', ok: answer.ok, status: answer.status, id: answer.body?.id, patientNumber: answer.body?.patient_number });
      await pause();
    }
  };
  const payer = async () => {
    while (!target.stopping) {
      const invoiceId = random.pick(invoiceIds);
      const key = `feed-${(idempotencyKeys += 1)}`;
      // A payment that got no answer is sent again under its key once the server is back: if the
      // first one committed, the replay answers with it and must append no second event.
      let answer: Awaited<ReturnType<typeof send>>;
      do {
        await target.ready;
        answer = await send(target, `/invoices/${invoiceId}/payments`, {
          method: 'POST',
          headers: { 'idempotency-key': key },
          body: JSON.stringify({ amount: '0.01', method: 'cash' }),
        });
      } while (answer.status === undefined && !target.stopping);
      log.push({ kind: 'payment', ok: answer.ok, status: answer.status, id: answer.body?.payment_id, invoiceId });
      await pause();
    }
  };
  return Promise.all([...Array.from({ length: WRITERS }, (_, client) => writer(client)), ...Array.from({ length: PAYERS }, () => payer())]);
}

/** Payments of 0.01 by a second process on the same data directory, starting in `inMs`. */
function payFromAnotherProcess(dataDir: string, invoiceId: string, inMs: number): Promise<void> {
  const loop = runNode([
    '--import',
    'tsx',
    'test/helpers/write-in-loop.ts',
    'pay',
    dataDir,
    invoiceId,
    String(LOOP_PAYMENTS),
    String(Date.now() + inMs),
  ]);
  return loop.then((result) => {
    assert.equal(result.code, 0, `write-in-loop: ${result.stdout}${result.stderr}`);
    assert.deepEqual(JSON.parse(result.stdout), { recorded: LOOP_PAYMENTS, refused: [] }, 'the second process recorded every payment');
  });
}

/** The whole feed, page by page (pages smaller than the feed, so `Link` is followed). */
function readFeed(target: Target): Promise<FeedEvent[]> {
  return allPages<FeedEvent>(target, '/events?limit=250');
}

/** seq is 1, 2, 3, … without a gap, and each id is evt_<seq>. */
function assertGapless(feed: readonly FeedEvent[]): void {
  const gap = feed.findIndex((event, index) => event.seq !== index + 1 || event.id !== `evt_${index + 1}`);
  assert.equal(gap, -1, `the feed has a gap or a wrong id at position ${gap + 1}: ${JSON.stringify(feed[gap])}`);
}

/** The seq of an id evt_<seq>. */
const seqOf = (id: string) => Number(/^evt_(\d+)$/.exec(id)?.[1] ?? NaN);

/**
 * Waits until the receiver has been answered the feed's last event and `clinic webhook list`
 * shows lag 0 with it as last delivered; then checks every delivery against the feed.
 */
async function assertDeliveredInOrder(
  t: TestContext,
  dataDir: string,
  endpoint: AddedWebhook,
  receiver: Receiver,
  feed: readonly FeedEvent[],
  interruptions: number,
): Promise<void> {
  const last = feed.at(-1)!.id;
  const waitFrom = Date.now();
  const deadline = Date.now() + 30_000;
  while (!receiver.deliveries.some((delivery) => delivery.answered && delivery.headers['webhook-id'] === last)) {
    if (Date.now() > deadline) {
      const listed = await listedEndpoint(dataDir, endpoint.id);
      assert.fail(
        `the receiver never got ${last} within 30 s: last received ${String(receiver.deliveries.at(-1)?.headers['webhook-id'])}, ` +
          `webhook list: ${JSON.stringify(listed)}`,
      );
    }
    await sleep(50);
  }
  for (let listed = await listedEndpoint(dataDir, endpoint.id); ; listed = await listedEndpoint(dataDir, endpoint.id)) {
    if (listed.lag === 0 || Date.now() > deadline) {
      assert.deepEqual(
        { state: listed.state, last_delivered_seq: listed.last_delivered_seq, lag: listed.lag },
        { state: 'enabled', last_delivered_seq: feed.length, lag: 0 },
        `webhook list after the last delivery: ${JSON.stringify(listed)}`,
      );
      break;
    }
    await sleep(200);
  }

  const webhook = new Webhook(endpoint.secret);
  let highest = 0;
  let repeats = 0;
  const firstSeen: string[] = [];
  for (const [index, delivery] of receiver.deliveries.entries()) {
    const id = String(delivery.headers['webhook-id']);
    const what = `delivery ${index + 1} (${id})`;
    assert.equal(delivery.method, 'POST', what);
    assert.equal(new URL(delivery.url, 'http://x').pathname, '/hook', what);
    assert.match(String(delivery.headers['content-type']), /^application\/json/, what);
    assert.doesNotThrow(() => webhook.verify(delivery.body, delivery.headers as Record<string, string>), `${what}: its signature verifies`);
    const event = JSON.parse(delivery.body) as FeedEvent;
    assert.equal(event.id, id, `${what}: webhook-id is the event's id`);
    // The same event as the feed holds under that seq: no seq was sent for an event the feed does not keep.
    assert.deepEqual(event, feed[seqOf(id) - 1], `${what}: the body is the feed's event`);
    const seq = seqOf(id);
    if (seq > highest) {
      assert.equal(seq, highest + 1, `${what} arrived after evt_${highest}: events were skipped`);
      highest = seq;
      firstSeen.push(id);
    } else {
      // At-least-once: only the one in flight when the server died is sent again, the highest so far.
      assert.equal(seq, highest, `${what} sent again after evt_${highest}: only the event in flight at a fault may repeat`);
      repeats += 1;
    }
  }
  const pauses = receiver.deliveries.slice(1).map((delivery, index) => delivery.at - receiver.deliveries[index]!.at);
  t.diagnostic(
    `the receiver got ${receiver.deliveries.length} deliveries of ${feed.length} events: ${repeats} sent again after a fault; ` +
      `the last ${Date.now() - waitFrom} ms after the writes ended; longest pause between deliveries ${Math.max(...pauses)} ms`,
  );
  // At least once: the server never got a 2xx for a delivery it died holding, so it sends it again.
  for (const held of receiver.heldAtFault) {
    const id = String(held.headers['webhook-id']);
    const later = receiver.deliveries.slice(receiver.deliveries.indexOf(held) + 1);
    assert.ok(
      later.some((delivery) => delivery.headers['webhook-id'] === id),
      `${id} was held unanswered when the server died, but never sent again: it counted as delivered without a 2xx`,
    );
  }
  assert.deepEqual(
    firstSeen,
    feed.map((event) => event.id),
    'the receiver, deduplicating by webhook-id, has the feed in order',
  );
  assert.ok(repeats <= interruptions, `${repeats} events sent twice across ${interruptions} faults: at most one a fault`);
}

/**
 * The feed and the data agree: every patient, invoice and payment the API lists has exactly one
 * created event with its ids and figures, the feed has no other event, payment events carry the
 * invoice's balance after them in seq order; every acknowledged write is stored and has its event.
 */
async function assertFeedAgreesWithData(t: TestContext, target: Target, feed: readonly FeedEvent[], log: readonly Sent[]): Promise<void> {
  const ok = log.filter((sent) => sent.ok);
  const tally = (['patient', 'payment'] as const)
    .map((kind) => `${kind} ${ok.filter((s) => s.kind === kind).length}/${log.filter((s) => s.kind === kind).length}`)
    .join(', ');
  const statuses = [...new Set(log.map((sent) => sent.status ?? 'none'))].join('/');
  const types = [...new Set(feed.map((event) => event.type))].map((type) => `${type} ${feed.filter((e) => e.type === type).length}`);
  t.diagnostic(`acknowledged/sent: ${tally} (answers ${statuses}); feed: ${feed.length} events (${types.join(', ')})`);
  for (const kind of ['patient', 'payment'] as const)
    assert.ok(ok.filter((s) => s.kind === kind).length >= 5, `too few ${kind} writes answered to test anything (${tally})`);
  for (const sent of log) assert.ok((sent.status ?? 0) < 500, `a ${sent.kind} write answered ${sent.status}`);
  for (const event of feed) assert.ok(WRITTEN_TYPES.has(event.type), `an event of a change nobody made: ${JSON.stringify(event)}`);

  /** The feed's events of `type`, by the data field (or patient_id) that names their row; each row's at most once. */
  const eventsBy = (type: string, key: (event: FeedEvent) => string) => {
    const by = new Map<string, FeedEvent>();
    for (const event of feed.filter((e) => e.type === type)) {
      const name = key(event);
      assert.ok(!by.has(name), `two ${type} events for ${name}: ${JSON.stringify(by.get(name))} and ${JSON.stringify(event)}`);
      by.set(name, event);
    }
    return by;
  };

  const patients = await allPages<{ id: string; patient_number: string }>(target, '/patients?limit=200');
  const patientEvents = eventsBy('patient.created', (event) => String(event.patient_id));
  for (const patient of patients)
    assert.equal(
      patientEvents.get(patient.id)?.data.patient_number,
      patient.patient_number,
      `patient ${patient.patient_number}'s patient.created`,
    );
  assert.equal(patientEvents.size, patients.length, 'a patient.created for every patient and no other');

  const invoiceItems = (await apiGet(target, '/invoices')).body as { id: string }[];
  const invoices = await Promise.all(invoiceItems.map(async ({ id }) => (await apiGet(target, `/invoices/${id}`)).body));
  const invoiceEvents = eventsBy('invoice.created', (event) => String(event.data.invoice_id));
  for (const invoice of invoices) {
    const event = invoiceEvents.get(invoice.id);
    assert.deepEqual(
      event && { patient_id: event.patient_id, invoice_number: event.data.invoice_number, total: event.data.total },
      { patient_id: invoice.patient_id, invoice_number: invoice.invoice_number, total: invoice.total },
      `invoice ${invoice.invoice_number}'s invoice.created`,
    );
  }
  assert.equal(invoiceEvents.size, invoices.length, 'an invoice.created for every invoice and no other');

  const paymentEvents = eventsBy('payment.created', (event) => String(event.data.payment_id));
  const cents = (amount: number) => Math.round(amount * 100);
  let payments = 0;
  for (const invoice of invoices) {
    const recorded = invoice.payments as { payment_id: string; amount: number; method: string }[];
    payments += recorded.length;
    const events = feed.filter((event) => event.type === 'payment.created' && event.data.invoice_id === invoice.id);
    // In seq order, each event carries the balance its payment left: seq is the commit order.
    let balance = cents(invoice.total);
    for (const event of events) {
      balance -= cents(event.data.amount);
      assert.equal(cents(event.data.invoice_balance), balance, `${event.id}: the invoice's balance after the payments before it`);
    }
    assert.equal(cents(invoice.balance), balance, `invoice ${invoice.invoice_number}: its balance is the total less its payment events`);
    assert.deepEqual(
      events.map((event) => ({
        payment_id: event.data.payment_id,
        patient_id: event.patient_id,
        amount: event.data.amount,
        method: event.data.method,
      })),
      recorded.map((payment) => ({
        payment_id: payment.payment_id,
        patient_id: invoice.patient_id,
        amount: payment.amount,
        method: payment.method,
      })),
      `invoice ${invoice.invoice_number}: one payment.created per payment, in the order recorded`,
    );
  }
  assert.equal(paymentEvents.size, payments, 'a payment.created for every payment and no other');

  const patientIds = new Set(patients.map((patient) => patient.id));
  for (const sent of ok) {
    if (sent.kind === 'patient') {
      assert.ok(patientIds.has(sent.id!), `acknowledged patient ${sent.patientNumber} is stored`);
      assert.equal(
        patientEvents.get(sent.id!)?.data.patient_number,
        sent.patientNumber,
        `acknowledged patient ${sent.patientNumber} has its event`,
      );
    } else {
      assert.equal(
        paymentEvents.get(sent.id!)?.data.invoice_id,
        sent.invoiceId,
        `acknowledged payment ${sent.id} is stored with its event`,
      );
    }
  }
}

/** Stops a serve that is still running. */
async function stop(server: ServeProcess | undefined): Promise<void> {
  if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill(STOP_SIGNAL);
    await server.exited;
  }
}

/** Why a round's program cannot be killed by the child this test holds (clinic.exe under Wine). */
const wineSkip = programPlatform === 'win32' ? 'the kill is tested with the Linux program' : false;

describe('the change feed and its webhook under load, the server killed with SIGKILL', { timeout: 90_000, skip: wineSkip }, () => {
  const newDir = useDataDirs();

  it('delivers every event once and in order after restarts, and the feed agrees with the data', async (t) => {
    t.diagnostic(`TEST_SEED=${random.seed}`);
    const dataDir = newDir();
    const key = prepareKey(dataDir);
    const receiver = await startReceiver();
    let server: ServeProcess | undefined;
    try {
      const endpoint = await addWebhook(dataDir, receiver.url);
      server = await startServeProcess(['--data', dataDir]);
      const target: Target = { baseUrl: server.baseUrl, key, ready: Promise.resolve(), stopping: false };
      const invoiceIds = await seed(target, dataDir);
      const log: Sent[] = [];
      const beside = payFromAnotherProcess(dataDir, invoiceIds[2]!, 1500);
      // Awaited below; a failure before then must not go unhandled.
      beside.catch(() => {});
      const clients = startClients(target, invoiceIds.slice(0, 2), log);
      try {
        for (const on of KILL_STRIKES) {
          await sleep(random.integer(300, 900));
          let restarted!: () => void;
          const dying = server;
          await arm(target, receiver, on, () => {
            target.ready = new Promise((resolve) => (restarted = resolve));
            dying.child.kill('SIGKILL');
          });
          await dying.exited;
          server = await startServeProcess(['--data', dataDir]);
          target.baseUrl = server.baseUrl;
          restarted();
        }
        // Writes after the last restart: delivery goes on with them.
        await sleep(600);
      } finally {
        target.stopping = true;
        await clients;
      }
      await beside;
      const feed = await readFeed(target);
      assertGapless(feed);
      await assertDeliveredInOrder(t, dataDir, endpoint, receiver, feed, KILL_STRIKES.length);
      await assertFeedAgreesWithData(t, target, feed, log);
    } catch (error) {
      throw new Error(`failed with TEST_SEED=${random.seed}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      await stop(server);
      await receiver.close();
    }
  });
});

describe(
  'the change feed and its webhook under load across power cuts (LazyFS)',
  { timeout: 120_000, skip: wineSkip || lazyFsSkipReason },
  () => {
    const newDir = useDataDirs();

    it('keeps every acknowledged write with its event, reuses no delivered seq, and delivers on to lag 0', async (t) => {
      t.diagnostic(`TEST_SEED=${random.seed}`);
      const backing = join(newDir(), 'disk');
      const dataDirOnDisk = join(backing, 'data');
      const key = prepareKey(dataDirOnDisk);
      const receiver = await startReceiver();
      const log: Sent[] = [];
      let invoiceIds: string[] = [];
      try {
        const endpoint = await addWebhook(dataDirOnDisk, receiver.url);
        // Each round is a boot: a new mount over what the disk kept, load, then the power is cut.
        for (const [round, on] of POWER_CUT_STRIKES.entries()) {
          await bootUntilPowerCut(
            backing,
            (server): Target => ({ baseUrl: server.baseUrl, key, ready: Promise.resolve(), stopping: false }),
            async ({ target, dataDir, cutPower, awaitAfterCut }) => {
              if (round === 0) invoiceIds = await seed(target, dataDir);
              awaitAfterCut(startClients(target, invoiceIds.slice(0, 2), log));
              await sleep(random.integer(500, 1200));
              await arm(target, receiver, on, cutPower);
            },
          );
        }
        t.diagnostic(`before the last boot the receiver got ${receiver.deliveries.length} deliveries`);

        // The boot after the last cut: more writes, then delivery must go on to lag 0 without a gap.
        const lazyfs = await mountLazyFs(backing);
        let server: ServeProcess | undefined;
        try {
          const dataDir = join(lazyfs.mountDir, 'data');
          server = await startServeProcess(['--data', dataDir]);
          const target: Target = { baseUrl: server.baseUrl, key, ready: Promise.resolve(), stopping: false };
          const clients = startClients(target, invoiceIds.slice(0, 2), log);
          await sleep(600);
          target.stopping = true;
          await clients;
          const feed = await readFeed(target);
          assertGapless(feed);
          await assertDeliveredInOrder(t, dataDir, endpoint, receiver, feed, POWER_CUT_STRIKES.length);
          await assertFeedAgreesWithData(t, target, feed, log);
        } finally {
          await stop(server);
          await lazyfs.unmount();
        }
      } catch (error) {
        throw new Error(`failed with TEST_SEED=${random.seed}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      } finally {
        await receiver.close();
      }
    });
  },
);
