import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { buildPatient, buildPayment } from '../../helpers/builders.js';
import type { AddedWebhook, ChangeEvent, ListedWebhook } from '../../helpers/change-feed.js';
import { checkedFetch } from '../../helpers/contract.js';
import { copyReleaseFixture, useDataDirs } from '../../helpers/fixtures.js';
import { runClinic, startServeProcess, STOP_SIGNAL, type CliResult, type ServeProcess } from '../../helpers/run-cli.js';

// Webhooks, black box (clinic-api-1.2.md, "Change feed"; docs/design-choices.md "Change feed and webhooks"): `clinic webhook …` and
// `clinic serve` as real child processes, a real receiver on a loopback port of this process, and
// the signatures checked by the Standard Webhooks library, not by the program's own code.

const ALL_TYPES = [
  'appointment.confirmed',
  'appointment.created',
  'appointment.declined',
  'appointment.updated',
  'document.created',
  'invoice.created',
  'invoice.credited',
  'invoice.voided',
  'patient.created',
  'patient.erased',
  'patient.updated',
  'payment.created',
  'refund.created',
  'reminder.updated',
];
const LIST_FIELDS = ['id', 'lag', 'last_delivered_seq', 'last_error', 'name', 'state', 'types', 'url'];

// ---- the receiver ----------------------------------------------------------------------------

/** One request the receiver got, whatever it answered. */
interface Attempt {
  method: string;
  /** The webhook-id header. */
  id: string;
  headers: Record<string, string>;
  body: string;
  /** Date.now() when the request had arrived whole. */
  at: number;
  /** The status it was answered (once it was), or 'hang'. */
  answered: number | 'hang' | 'not yet';
}

/**
 * What the receiver answers its `index`-th request (0-based): a status, a redirect, nothing ever,
 * or (a promise) one of these later.
 */
type Reply = number | 'hang' | { status: number; location: string };
type Answer = Reply | Promise<Reply>;

interface Receiver {
  url: string;
  attempts: Attempt[];
  /** The attempts answered 2xx, in arrival order. */
  delivered(): Attempt[];
  /** Resolves once `predicate` holds; fails after `ms` saying what it waited for and what arrived. */
  waitFor(predicate: () => boolean, what: string, ms?: number): Promise<void>;
  /** Stops listening and drops every connection, a hanging one too. */
  close(): Promise<void>;
}

const receivers: Receiver[] = [];

async function startReceiver(answer: (index: number) => Answer = () => 200): Promise<Receiver> {
  const attempts: Attempt[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const attempt: Attempt = {
        method: request.method ?? '',
        id: headers['webhook-id'] ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        answered: 'not yet',
      };
      const reply = answer(attempts.length);
      attempts.push(attempt);
      void Promise.resolve(reply).then((status) => {
        if (status === 'hang') {
          attempt.answered = 'hang';
          return;
        }
        if (typeof status === 'object') response.writeHead(status.status, { location: status.location }).end();
        else response.writeHead(status).end();
        attempt.answered = typeof status === 'object' ? status.status : status;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    attempts,
    delivered: () => attempts.filter((a) => typeof a.answered === 'number' && a.answered >= 200 && a.answered < 300),
    waitFor: (predicate, what, ms = 15_000) =>
      until(predicate, () => `${what}; got ${JSON.stringify(attempts.map((a) => `${a.id} → ${a.answered}`))}`, ms),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  receivers.push(receiver);
  return receiver;
}

after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function until(predicate: () => boolean, what: () => string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what()}`);
    await sleep(20);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Standard Webhooks headers of an attempt. */
const signedHeaders = (attempt: Attempt) => ({
  'webhook-id': attempt.headers['webhook-id'] ?? '',
  'webhook-timestamp': attempt.headers['webhook-timestamp'] ?? '',
  'webhook-signature': attempt.headers['webhook-signature'] ?? '',
});

/** The attempt is `event` as Standard Webhooks sends it, signed with `secret`. */
function assertDeliveryOf(attempt: Attempt | undefined, event: ChangeEvent | undefined, secret: string): void {
  assert.ok(attempt && event, 'an attempt and its event');
  assert.equal(attempt.method, 'POST');
  assert.equal(attempt.headers['content-type']?.split(';')[0]?.trim(), 'application/json');
  assert.equal(attempt.id, event.id, 'webhook-id is the event id');
  assert.match(attempt.headers['webhook-timestamp'] ?? '', /^\d+$/);
  assert.ok(Math.abs(Number(attempt.headers['webhook-timestamp']) - attempt.at / 1000) < 60, 'webhook-timestamp: Unix seconds, now');
  assert.match(attempt.headers['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]+={0,2}$/);
  // Throws unless the signature is the HMAC of id.timestamp.body with the secret's bytes.
  new Webhook(secret).verify(attempt.body, signedHeaders(attempt));
  assert.deepEqual(JSON.parse(attempt.body), event, 'the body is the event as GET /events gives it');
}

// ---- the program -----------------------------------------------------------------------------

const newDir = useDataDirs();

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return result;
};
const json = <T = any>(result: CliResult): T => JSON.parse(ok(result).stdout) as T;
/** The --json refusal body of a command that exited 1. */
const refusal = <T = any>(result: CliResult): T => {
  assert.equal(result.code, 1, result.stdout + result.stderr);
  return JSON.parse(result.stderr) as T;
};

type Clinic = (...args: string[]) => Promise<CliResult>;

/** `clinic <args> --data dataDir`. */
const clinicIn =
  (dataDir: string): Clinic =>
  (...args) =>
    runClinic([...args, '--data', dataDir]);

/**
 * Desk commands one after another, as one person types them. Started at once on one data
 * directory, one may wait past the busy timeout under Wine (DATABASE_BUSY, seen in CI), which is
 * not what these tests are about.
 */
async function inTurn(clinic: Clinic, ...commands: string[][]): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const args of commands) results.push(await clinic(...args));
  return results;
}

/** `clinic serve` over `dataDir`, and the first key it printed (a serve that found keys prints none). */
async function startServe(dataDir: string): Promise<{ serve: ServeProcess; firstKey: string | undefined }> {
  const serve = await startServeProcess(['--data', dataDir]);
  return { serve, firstKey: /(clinic_[A-Za-z0-9_-]{43})/.exec(serve.output().stdout)?.[1] };
}

/** Asks a running serve to stop as systemd would; it must exit 0. */
async function stopServe(serve: ServeProcess): Promise<void> {
  serve.child.kill(STOP_SIGNAL);
  const { code } = await serve.exited;
  assert.equal(code, 0, serve.output().stderr);
}

/** `clinic serve` over a new data directory, the desk on that directory, and the API with the first key serve printed. */
async function startServeAndDesk(): Promise<{ serve: ServeProcess; clinic: Clinic; api: ReturnType<typeof apiOf> }> {
  const dataDir = newDir();
  const { serve, firstKey } = await startServe(dataDir);
  // Stopped if the test fails here: no caller has it to stop.
  if (firstKey === undefined) serve.child.kill(STOP_SIGNAL);
  assert.ok(firstKey, 'serve printed its first key');
  return { serve, clinic: clinicIn(dataDir), api: apiOf(() => serve, firstKey) };
}

/** The API of a running serve with `key`. */
function apiOf(serve: () => ServeProcess, key: string) {
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await checkedFetch(`${serve().baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }
  async function eventsAfter(after: number, types?: string): Promise<ChangeEvent[]> {
    const answer = await call('GET', `/events?after=${after}&limit=1000${types === undefined ? '' : `&types=${types}`}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body as ChangeEvent[];
  }
  return {
    call,
    eventsAfter,
    /** The seq of the last event committed so far (0 before the first). */
    lastSeq: async () => (await eventsAfter(0)).at(-1)?.seq ?? 0,
    async createPatient(lastName: string): Promise<{ id: string; patient_number: string }> {
      const answer = await call('POST', '/patients', buildPatient({ last_name: lastName }));
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      return answer.body;
    },
  };
}

/**
 * `webhook list --json` until each endpoint named in `conditions` satisfies its condition; fails
 * after `ms` with what it last showed. One call of the command per round (it is a process).
 */
async function endpointsWhen(
  clinic: Clinic,
  conditions: Record<string, (endpoint: ListedWebhook) => boolean>,
  ms = 15_000,
): Promise<Record<string, ListedWebhook>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const listed = json<ListedWebhook[]>(await clinic('webhook', 'list', '--json'));
    const found = Object.fromEntries(Object.keys(conditions).map((name) => [name, listed.find((e) => e.name === name)]));
    for (const name of Object.keys(conditions)) assert.ok(found[name], `webhook list shows ${name}: ${JSON.stringify(listed)}`);
    const shown = found as Record<string, ListedWebhook>;
    if (Object.entries(conditions).every(([name, holds]) => holds(shown[name]!))) return shown;
    if (Date.now() > deadline) throw new Error(`webhook list never showed what the test waited for: ${JSON.stringify(shown)}`);
    await sleep(100);
  }
}

/** endpointsWhen for one endpoint. */
async function endpointWhen(
  clinic: Clinic,
  name: string,
  holds: (endpoint: ListedWebhook) => boolean,
  ms?: number,
): Promise<ListedWebhook> {
  return (await endpointsWhen(clinic, { [name]: holds }, ms))[name]!;
}

/** Asserts a value printed as `webhook list` prints an endpoint (no secret). */
function assertListShape(value: Record<string, unknown>): void {
  assert.deepEqual(Object.keys(value).sort(), LIST_FIELDS);
}

// ---- the tests -------------------------------------------------------------------------------
// The describes run side by side, each on a data directory of its own; inside one, one test at a time.

describe('webhooks', { concurrency: true }, () => {
  describe('at the desk: add, list, remove, refusals', { concurrency: 1 }, () => {
    let clinic: Clinic;
    /** The endpoint the first test adds with the default name; the later tests use it again. */
    let plain: AddedWebhook | undefined;
    before(async () => {
      clinic = clinicIn(newDir());
      ok(await clinic('init'));
    });

    it('add prints the endpoint and its secret (whsec_ + base64 of >= 24 bytes) once; list shows it without the secret, nothing delivered', async () => {
      const [plainResult, humanResult] = await inTurn(
        clinic,
        ['webhook', 'add', '--url', 'https://hooks.example.org/clinic', '--json'],
        ['webhook', 'add', '--url', 'http://127.0.0.1:8080/in', '--types', 'payment.created,invoice.created', '--name', 'billing'],
      );
      const made = json<AddedWebhook>(plainResult!);
      plain = made;
      const human = ok(humanResult!);
      assert.deepEqual(Object.keys(made).sort(), ['id', 'name', 'secret', 'state', 'types', 'url']);
      assert.ok(typeof made.id === 'string' && made.id.length > 0, made.id);
      assert.deepEqual(
        { name: made.name, url: made.url, state: made.state, types: [...made.types].sort() },
        { name: 'hooks.example.org', url: 'https://hooks.example.org/clinic', state: 'enabled', types: ALL_TYPES },
        'the name defaults to the host, the types to all of them (1.3.0 adds invoice.credited, the confirmations, reminder.updated and patient.erased)',
      );
      const humanSecret = /whsec_[A-Za-z0-9+/]+={0,2}/.exec(human.stdout)?.[0];
      assert.ok(humanSecret, `add prints the secret for people:\n${human.stdout}`);
      for (const secret of [made.secret, humanSecret]) {
        assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
        assert.ok(Buffer.from(secret.slice('whsec_'.length), 'base64').length >= 24, `${secret}: at least 24 bytes`);
      }
      assert.notEqual(made.secret, humanSecret);

      const [listed, listedForPeople] = await inTurn(clinic, ['webhook', 'list', '--json'], ['webhook', 'list']);
      const endpoints = json<ListedWebhook[]>(listed!);
      assert.equal(endpoints.length, 2);
      for (const endpoint of endpoints) assertListShape(endpoint as unknown as Record<string, unknown>);
      const { secret: _secret, ...shown } = made;
      assert.deepEqual(
        endpoints.find((e) => e.id === made.id),
        { ...shown, last_delivered_seq: null, lag: 0, last_error: null },
      );
      const billing = endpoints.find((e) => e.name === 'billing');
      assert.ok(billing);
      assert.ok(human.stdout.includes(billing.id), `add prints the id for people:\n${human.stdout}`);
      assert.deepEqual(
        { url: billing.url, types: [...billing.types].sort(), state: billing.state },
        { url: 'http://127.0.0.1:8080/in', types: ['invoice.created', 'payment.created'], state: 'enabled' },
      );
      assert.match(ok(listedForPeople!).stdout, /billing/);
      for (const secret of [made.secret, humanSecret]) {
        const key = secret.slice('whsec_'.length);
        assert.ok(!listed!.stdout.includes(key) && !listedForPeople!.stdout.includes(key), 'list never shows a secret');
      }
    });

    it('refuses a URL that is not http(s), not a URL, or holds user:password, and an unknown type: exit 1 with the 422 body, nothing added', async () => {
      const urls = ['ftp://files.example.org/hook', 'not a url', 'http://user:secret@hooks.example.org/hook'];
      const results = await inTurn(clinic, ...urls.map((url, i) => ['webhook', 'add', '--url', url, '--name', `bad-${i}`, '--json']), [
        'webhook',
        'add',
        '--url',
        'https://typo.example.org/',
        '--types',
        'patient.created,patient.deleted',
        '--name',
        'bad-type',
        '--json',
      ]);
      urls.forEach((url, i) => {
        const body = refusal<{ detail: Record<string, unknown>[] }>(results[i]!);
        assert.equal(body.detail.length, 1, JSON.stringify(body));
        const [issue] = body.detail;
        assert.deepEqual([issue?.type, issue?.loc, issue?.input], ['value_error', ['body', 'url'], url], JSON.stringify(body));
        assert.equal(typeof issue?.msg, 'string');
      });
      const typeBody = refusal<{ detail: Record<string, unknown>[] }>(results[3]!);
      assert.equal(typeBody.detail.length, 1, JSON.stringify(typeBody));
      assert.deepEqual([typeBody.detail[0]?.type, typeBody.detail[0]?.loc], ['value_error', ['body', 'types']], JSON.stringify(typeBody));
      const names = json<ListedWebhook[]>(await clinic('webhook', 'list', '--json')).map((e) => e.name);
      assert.ok(!names.some((name) => name.startsWith('bad-')), `nothing was added: ${names.join(', ')}`);
    });

    it('refuses a second endpoint of the same name, a default one too, with WEBHOOK_NAME_TAKEN', async () => {
      // "billing" and "hooks.example.org" were added by the first test.
      const [named, defaulted] = await inTurn(
        clinic,
        ['webhook', 'add', '--url', 'https://other.example.org/b', '--name', 'billing', '--json'],
        ['webhook', 'add', '--url', 'https://hooks.example.org/other', '--json'],
      );
      assert.equal(refusal(named!).detail.code, 'WEBHOOK_NAME_TAKEN');
      assert.equal(refusal(defaulted!).detail.code, 'WEBHOOK_NAME_TAKEN');
    });

    // Issue 39, L7: 1.2.0 took plain HTTP to any host silently, while serve refuses it off the PC.
    it('refuses http:// to another host with WEBHOOK_URL_INSECURE naming --allow-insecure-url; takes it with that option, said on stderr', async () => {
      const urls = [
        'http://192.0.2.10:8085/clinic-hooks',
        'http://crm.praxis.lan/hooks',
        'http://[fe80::1]:8080/in',
        'http://127.0.0.1.nip.io/in',
      ];
      const refused = await inTurn(clinic, ...urls.map((url, i) => ['webhook', 'add', '--url', url, '--name', `plain-${i}`, '--json']));
      refused.forEach((result, i) => {
        const body = refusal<{ detail: { code: string; message: string } }>(result);
        assert.equal(body.detail.code, 'WEBHOOK_URL_INSECURE', urls[i]);
        assert.match(body.detail.message, /--allow-insecure-url/, urls[i]);
        assert.ok(body.detail.message.includes(new URL(urls[i]!).host), `the message names the host: ${body.detail.message}`);
      });
      const forPeople = await clinic('webhook', 'add', '--url', urls[0]!, '--name', 'plain-people');
      assert.equal(forPeople.code, 1);
      assert.match(forPeople.stderr, /WEBHOOK_URL_INSECURE.*--allow-insecure-url/s);

      const [accepted, acceptedForPeople, local, ipv6Local] = await inTurn(
        clinic,
        ['webhook', 'add', '--url', urls[0]!, '--name', 'praxis-crm', '--allow-insecure-url', '--json'],
        ['webhook', 'add', '--url', urls[1]!, '--name', 'crm-people', '--allow-insecure-url'],
        ['webhook', 'add', '--url', 'http://localhost:8085/in', '--name', 'local', '--json'],
        ['webhook', 'add', '--url', 'http://[::1]:8085/in', '--name', 'local-ipv6', '--json'],
      );
      const made = json<AddedWebhook>(accepted!);
      assert.deepEqual(Object.keys(made).sort(), ['id', 'name', 'secret', 'state', 'types', 'url'], 'the JSON shape of 1.2.0');
      assert.equal(made.url, urls[0]);
      assert.match(accepted!.stderr, /warning: events go to 192\.0\.2\.10:8085 over plain http:\/\/, unencrypted/);
      assert.match(ok(acceptedForPeople!).stderr, /warning: events go to crm\.praxis\.lan over plain http:\/\//);
      for (const result of [local, ipv6Local]) assert.equal(json<AddedWebhook>(result!).state, 'enabled');
      assert.equal(local!.stderr, '', 'this PC is not warned about');
      const names = json<ListedWebhook[]>(await clinic('webhook', 'list', '--json')).map((e) => e.name);
      assert.ok(!names.some((name) => name.startsWith('plain-')), `no refused one was added: ${names.join(', ')}`);
      for (const name of ['praxis-crm', 'crm-people', 'local', 'local-ipv6']) assert.ok(names.includes(name), name);
      assert.match(ok(await clinic('webhook', 'list')).stdout, /praxis-crm\n(.*\n)*?Security +plain http:\/\/ to another host/);
      for (const name of ['praxis-crm', 'crm-people', 'local', 'local-ipv6']) ok(await clinic('webhook', 'remove', name));
    });

    it('remove ID prints the endpoint as list does and drops it; enable, replay and remove of an unknown ID: WEBHOOK_NOT_FOUND', async () => {
      assert.ok(plain, 'the first test added it');
      const removed = json<ListedWebhook>(await clinic('webhook', 'remove', plain.id, '--json'));
      assertListShape(removed as unknown as Record<string, unknown>);
      assert.deepEqual([removed.id, removed.name, removed.url], [plain.id, plain.name, plain.url]);
      const [again, enable, replay] = await inTurn(
        clinic,
        ['webhook', 'remove', plain.id, '--json'],
        ['webhook', 'enable', plain.name, '--json'],
        ['webhook', 'replay', 'no-such-hook', '--after', '0'],
      );
      assert.equal(refusal(again!).detail.code, 'WEBHOOK_NOT_FOUND');
      assert.equal(refusal(enable!).detail.code, 'WEBHOOK_NOT_FOUND');
      assert.equal(replay!.code, 1);
      assert.match(replay!.stderr, /WEBHOOK_NOT_FOUND/);
    });
  });

  describe('an endpoint over plain HTTP to another host that release 1.2.0 took', { concurrency: 1 }, () => {
    it('keeps it as it was: listed enabled with its URL, said for people, and enable and replay work on it', async () => {
      const clinic = clinicIn(copyReleaseFixture(fileURLToPath(new URL('../../fixtures/release-1.2.0', import.meta.url)), newDir()));
      // A desk command refuses a database of an older schema (SCHEMA_UPGRADE_REQUIRED): upgraded first, as a clinic does.
      ok(await clinic('upgrade'));
      const [listed] = json<ListedWebhook[]>(await clinic('webhook', 'list', '--json'));
      assert.deepEqual(
        [listed?.id, listed?.name, listed?.url, listed?.state],
        ['32c712f7-8b2c-4a32-83d6-0985623fb48a', 'praxis-crm', 'http://192.0.2.10:8085/clinic-hooks', 'enabled'],
      );
      assert.match(ok(await clinic('webhook', 'list')).stdout, /Security +plain http:\/\/ to another host/);
      const replayed = json<ListedWebhook>(await clinic('webhook', 'replay', 'praxis-crm', '--after', '0', '--json'));
      assert.deepEqual([replayed.state, replayed.url, replayed.lag], ['enabled', 'http://192.0.2.10:8085/clinic-hooks', 16]);
      assert.equal(json<ListedWebhook>(await clinic('webhook', 'enable', 'praxis-crm', '--json')).state, 'enabled');
    });
  });

  describe('while serve runs: deliveries, replay, remove, a receiver that hangs', { concurrency: 1 }, () => {
    let clinic: Clinic;
    /** The receiver of "all", the first test's endpoint of every type. */
    let everything: Receiver | undefined;
    let serve: ServeProcess;
    let api: ReturnType<typeof apiOf>;
    before(async () => {
      ({ serve, clinic, api } = await startServeAndDesk());
      // An event committed before any endpoint exists.
      await api.createPatient('Early');
    });
    after(async () => {
      if (serve && serve.child.exitCode === null && serve.child.signalCode === null) await stopServe(serve);
    });

    it('delivers every event committed after the endpoint was added, in seq order, as GET /events gives it, signed; --types filters', async () => {
      const [all, some] = await Promise.all([startReceiver(), startReceiver()]);
      everything = all;
      const mark = await api.lastSeq();
      assert.equal(mark, 1, 'the patient made before has its event');
      const [allHook, someHook] = (
        await inTurn(
          clinic,
          ['webhook', 'add', '--url', all.url, '--name', 'all', '--json'],
          ['webhook', 'add', '--url', some.url, '--name', 'some', '--types', 'patient.updated,invoice.created', '--json'],
        )
      ).map((r) => json<AddedWebhook>(r));
      assert.ok(allHook && someHook);

      // Writes over HTTP and, for the invoice, by the desk in another process.
      const patient = await api.createPatient('Hooked');
      const patched = await api.call('PATCH', `/patients/${patient.id}`, { mobile: '+43 660 7654321' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const invoice = json<{ id: string }>(await clinic('invoice', 'create', '--patient-id', patient.id, '--total', '40.00', '--json'));
      const paid = await api.call('POST', `/invoices/${invoice.id}/payments`, buildPayment({ amount: '40.00' }));
      assert.ok(paid.status >= 200 && paid.status < 300, JSON.stringify(paid.body));

      const events = await api.eventsAfter(mark);
      assert.deepEqual(
        events.map((e) => e.type),
        ['patient.created', 'patient.updated', 'invoice.created', 'payment.created'],
      );
      const filtered = await api.eventsAfter(mark, 'patient.updated,invoice.created');
      assert.equal(filtered.length, 2);

      await all.waitFor(() => all.delivered().length >= events.length, 'the four events at "all"');
      await some.waitFor(() => some.delivered().length >= filtered.length, 'the two events of its types at "some"');
      const listed = await endpointsWhen(clinic, { all: (e) => e.lag === 0, some: (e) => e.lag === 0 });

      // Exactly these, once each, in seq order: not the event from before the endpoints were added.
      assert.deepEqual(
        all.attempts.map((a) => a.id),
        events.map((e) => e.id),
      );
      assert.deepEqual(
        some.attempts.map((a) => a.id),
        filtered.map((e) => e.id),
      );
      events.forEach((event, i) => assertDeliveryOf(all.attempts[i], event, allHook.secret));
      filtered.forEach((event, i) => assertDeliveryOf(some.attempts[i], event, someHook.secret));
      // Each endpoint signs with its own secret: another one's does not verify.
      assert.throws(() => new Webhook(someHook.secret).verify(all.attempts[0]!.body, signedHeaders(all.attempts[0]!)));

      assert.deepEqual(
        [listed.all!.state, listed.all!.last_delivered_seq, listed.all!.lag, listed.all!.last_error],
        ['enabled', events.at(-1)!.seq, 0, null],
      );
      assert.deepEqual(
        [listed.some!.state, listed.some!.last_delivered_seq, listed.some!.lag, listed.some!.last_error],
        ['enabled', filtered.at(-1)!.seq, 0, null],
      );
    });

    it('replay ID --after SEQ sends again the events of its types with a larger seq, in order, then goes on', async () => {
      const receiver = await startReceiver();
      const hook = json<AddedWebhook>(
        await clinic('webhook', 'add', '--url', receiver.url, '--name', 'replayed', '--types', 'patient.created', '--json'),
      );
      const mark = await api.lastSeq();
      const first = await api.createPatient('Replay-One');
      await api.createPatient('Replay-Two');
      assert.equal((await api.call('PATCH', `/patients/${first.id}`, { title: 'Dr.' })).status, 200);
      await api.createPatient('Replay-Three');
      const created = await api.eventsAfter(mark, 'patient.created');
      assert.equal(created.length, 3);
      await receiver.waitFor(() => receiver.delivered().length >= 3, 'the three patient.created');

      const replayed = json<ListedWebhook>(await clinic('webhook', 'replay', hook.id, '--after', String(created[0]!.seq), '--json'));
      assertListShape(replayed as unknown as Record<string, unknown>);
      assert.deepEqual([replayed.id, replayed.name, replayed.state], [hook.id, 'replayed', 'enabled']);
      await receiver.waitFor(() => receiver.delivered().length >= 5, 'the two replayed');
      await api.createPatient('Replay-Four');
      await receiver.waitFor(() => receiver.delivered().length >= 6, 'the event after the replay');
      const all = await api.eventsAfter(mark, 'patient.created');
      const expected = [all[0], all[1], all[2], all[1], all[2], all[3]];
      assert.deepEqual(
        receiver.attempts.map((a) => a.id),
        expected.map((e) => e!.id),
      );
      receiver.attempts.forEach((attempt, i) => assertDeliveryOf(attempt, expected[i], hook.secret));
      const listed = await endpointWhen(clinic, 'replayed', (e) => e.lag === 0);
      assert.equal(listed.last_delivered_seq, all[3]!.seq);
    });

    it('remove stops the deliveries to that endpoint', async () => {
      const doomed = await startReceiver();
      ok(await clinic('webhook', 'add', '--url', doomed.url, '--name', 'doomed'));
      await api.createPatient('Remove-One');
      await doomed.waitFor(() => doomed.delivered().length === 1, 'the first event at "doomed"');
      assert.equal(json<ListedWebhook>(await clinic('webhook', 'remove', 'doomed', '--json')).name, 'doomed');
      await api.createPatient('Remove-Two');
      // "all" (the first test's) gets every event: once it has the second, "doomed" would have had it too.
      const last = await api.lastSeq();
      const all = everything;
      assert.ok(all, 'the first test\'s receiver "all"');
      await all.waitFor(() => all.delivered().some((a) => a.id === `evt_${last}`), 'the second event at "all"');
      await sleep(500);
      assert.equal(doomed.attempts.length, 1, 'nothing after remove');
    });

    it('a receiver that never answers delays no write, nor the stop of serve (last: it stops serve)', async () => {
      const hanging = await startReceiver(() => 'hang');
      ok(await clinic('webhook', 'add', '--url', hanging.url, '--name', 'hanging'));
      try {
        let started = Date.now();
        await api.createPatient('Hang-One');
        const firstMs = Date.now() - started;
        await hanging.waitFor(() => hanging.attempts.length === 1, 'the delivery that hangs');
        started = Date.now();
        await api.createPatient('Hang-Two');
        const secondMs = Date.now() - started;
        assert.ok(firstMs < 3000 && secondMs < 3000, `POST /patients took ${firstMs} ms and ${secondMs} ms`);
        // A stop asked while the delivery hangs: serve exits 0 within 10 s as ever.
        started = Date.now();
        await stopServe(serve);
        const stopMs = Date.now() - started;
        assert.ok(stopMs < 10_000, `serve took ${stopMs} ms to stop`);
      } finally {
        await hanging.close();
      }
    });
  });

  describe('while serve runs: a 503 is retried, a 410 disables, a 3xx or a refused connection fails', { concurrency: 1 }, () => {
    let clinic: Clinic;
    let serve: ServeProcess;
    let api: ReturnType<typeof apiOf>;
    before(async () => {
      ({ serve, clinic, api } = await startServeAndDesk());
    });
    after(async () => {
      if (serve) await stopServe(serve);
    });

    it('a 503 is retried about 5 s later; the events behind it wait and arrive after it, in order, once each', async () => {
      // The retry is held unanswered until the test has read the list of the failure.
      let listRead: () => void = () => {};
      const read = new Promise<Reply>((resolve) => (listRead = () => resolve(200)));
      const flaky = await startReceiver((index) => (index === 0 ? 503 : index === 1 ? read : 200));
      const hook = json<AddedWebhook>(await clinic('webhook', 'add', '--url', flaky.url, '--name', 'flaky', '--json'));
      const mark = await api.lastSeq();
      for (const name of ['Flaky-One', 'Flaky-Two', 'Flaky-Three']) await api.createPatient(name);
      const events = await api.eventsAfter(mark);
      assert.equal(events.length, 3);

      await flaky.waitFor(() => flaky.attempts.length >= 1, 'the first attempt');
      const failing = await endpointWhen(clinic, 'flaky', (e) => e.last_error !== null);
      listRead();
      assert.match(failing.last_error!, /503/);
      assert.deepEqual([failing.state, failing.last_delivered_seq, failing.lag], ['enabled', null, 3]);

      await flaky.waitFor(() => flaky.delivered().length >= 3, 'the retry and the two events behind it', 20_000);
      const done = await endpointWhen(clinic, 'flaky', (e) => e.lag === 0);
      assert.equal(done.last_delivered_seq, events[2]!.seq);
      assert.deepEqual(
        flaky.attempts.map((a) => [a.id, a.answered]),
        [
          [events[0]!.id, 503],
          [events[0]!.id, 200],
          [events[1]!.id, 200],
          [events[2]!.id, 200],
        ],
      );
      const waited = flaky.attempts[1]!.at - flaky.attempts[0]!.at;
      assert.ok(waited >= 3500 && waited <= 10_000, `the retry came ${waited} ms after the failure (about 5 s)`);
      flaky.attempts.forEach((attempt, i) => assertDeliveryOf(attempt, events[Math.max(0, i - 1)], hook.secret));
    });

    it('a 410 disables the endpoint at once and nothing more is sent; enable resumes at the first undelivered event', async () => {
      const gone = await startReceiver((index) => (index === 0 ? 410 : 200));
      const hook = json<AddedWebhook>(await clinic('webhook', 'add', '--url', gone.url, '--name', 'gone', '--json'));
      const mark = await api.lastSeq();
      await api.createPatient('Gone-One');
      await gone.waitFor(() => gone.attempts.length === 1, 'the attempt answered 410');
      await api.createPatient('Gone-Two');
      const events = await api.eventsAfter(mark);
      assert.equal(events.length, 2);
      const disabled = await endpointWhen(clinic, 'gone', (e) => e.state === 'disabled' && e.lag === 2, 3000);
      assert.match(disabled.last_error!, /410/);
      assert.equal(disabled.last_delivered_seq, null);
      // Past the first retry's ~5 s: a disabled endpoint gets nothing.
      await sleep(Math.max(0, gone.attempts[0]!.at + 6500 - Date.now()));
      assert.equal(gone.attempts.length, 1, 'no retry, no later event');

      const enabled = json<ListedWebhook>(await clinic('webhook', 'enable', 'gone', '--json'));
      assertListShape(enabled as unknown as Record<string, unknown>);
      assert.deepEqual([enabled.id, enabled.state], [hook.id, 'enabled']);
      await gone.waitFor(() => gone.delivered().length >= 2, 'both events after enable');
      assert.deepEqual(
        gone.attempts.map((a) => [a.id, a.answered]),
        [
          [events[0]!.id, 410],
          [events[0]!.id, 200],
          [events[1]!.id, 200],
        ],
      );
      gone.attempts.forEach((attempt, i) => assertDeliveryOf(attempt, events[Math.max(0, i - 1)], hook.secret));
      const resumed = await endpointWhen(clinic, 'gone', (e) => e.lag === 0);
      assert.deepEqual([resumed.state, resumed.last_delivered_seq], ['enabled', events[1]!.seq]);
    });

    it('a 3xx redirect is a failure and is not followed; a refused connection is a failure; the list names both', async () => {
      const target = await startReceiver();
      const redirecting = await startReceiver(() => ({ status: 307, location: target.url }));
      const closed = await startReceiver();
      await closed.close();
      for (const result of await inTurn(
        clinic,
        ['webhook', 'add', '--url', redirecting.url, '--name', 'redirecting'],
        ['webhook', 'add', '--url', closed.url, '--name', 'refused'],
      ))
        ok(result);
      await api.createPatient('Redirect-One');
      await redirecting.waitFor(() => redirecting.attempts.length === 1, 'the attempt answered 307');
      const failing = await endpointsWhen(clinic, { redirecting: (e) => e.last_error !== null, refused: (e) => e.last_error !== null });
      assert.match(failing.redirecting!.last_error!, /307/);
      assert.match(failing.refused!.last_error!, /refused/i);
      for (const endpoint of Object.values(failing))
        assert.deepEqual([endpoint.state, endpoint.last_delivered_seq, endpoint.lag], ['enabled', null, 1], endpoint.name);
      assert.equal(target.attempts.length, 0, 'the redirect target received nothing');
    });
  });

  describe('across restarts of serve', () => {
    it('delivers the events written while serve was stopped, in order, once each, then goes on', async () => {
      const dataDir = newDir();
      const clinic = clinicIn(dataDir);
      const createPatient = (last: string, ...more: string[]) =>
        clinic('create-patient', '--first-name', 'Desk', '--last-name', last, '--email', 'desk@example.org', '--mobile', '+43 1', ...more);
      ok(await clinic('init'));
      ok(await createPatient('Before'));
      const receiver = await startReceiver();
      // Added while no serve runs.
      const hook = json<AddedWebhook>(await clinic('webhook', 'add', '--url', receiver.url, '--name', 'desk', '--json'));

      const first = await startServe(dataDir);
      let serve = first.serve;
      const firstKey = first.firstKey;
      assert.ok(firstKey, 'serve printed its first key');
      const api = apiOf(() => serve, firstKey);
      await api.createPatient('First-Run');
      await receiver.waitFor(() => receiver.delivered().length === 1, 'the event of the first run');
      await stopServe(serve);

      // Written at the desk while no serve runs.
      const stopped = json<{ patient_number: string }>(await createPatient('While-Stopped', '--json'));
      ok(await clinic('patient', 'edit', stopped.patient_number, '--title', 'Mag.'));
      const pending = await endpointWhen(clinic, 'desk', () => true);
      assert.deepEqual([pending.lag, receiver.attempts.length], [2, 1], 'nothing is sent while no serve runs');

      ({ serve } = await startServe(dataDir));
      try {
        await receiver.waitFor(() => receiver.delivered().length >= 3, 'the two events written while stopped');
        // A desk write while this serve runs, from another process.
        ok(await createPatient('Second-Run'));
        await receiver.waitFor(() => receiver.delivered().length >= 4, 'the desk write while serve runs');
        await sleep(500);
        const events = await api.eventsAfter(1);
        assert.deepEqual(
          events.map((e) => e.type),
          ['patient.created', 'patient.created', 'patient.updated', 'patient.created'],
        );
        assert.deepEqual(
          receiver.attempts.map((a) => a.id),
          events.map((e) => e.id),
          'not the event from before the endpoint; each later one once, in order',
        );
        events.forEach((event, i) => assertDeliveryOf(receiver.attempts[i], event, hook.secret));
      } finally {
        await stopServe(serve);
      }
    });
  });
});
