import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { assertMatchesContract } from '../../helpers/contract.js';
import { useDataDirs, useTestServer } from '../../helpers/fixtures.js';
import { rawRequest } from '../../helpers/raw-request.js';
import { runClinic, startServeProcess, STOP_SIGNAL, type ServeProcess } from '../../helpers/run-cli.js';

/**
 * clinic-api-1.2.md, "Network", "Failed keys" and `api-key create --rate-limit`, over HTTP in real
 * time: the rule's minutes on a fake clock are test/server/throttles/failed-key-throttle.test.ts's.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One request from the client address `localAddress` (127.0.0.2 is this PC too, but not its own
 * 127.0.0.1), with `key` as its bearer key (null: none); the answer is checked against the
 * OpenAPI document.
 */
async function requestFrom(baseUrl: string, localAddress: string, path: string, key: string | null): Promise<Answer> {
  const headers = key === null ? {} : { authorization: `Bearer ${key}` };
  const answer = await rawRequest(baseUrl, { method: 'GET', path, headers, localAddress });
  assertMatchesContract('GET', `${baseUrl}${path}`, answer);
  return { ...answer, body: answer.text === '' ? undefined : JSON.parse(answer.text) };
}

/** `count` requests one after the other, their statuses in order. */
async function statusesOf(count: number, send: () => Promise<{ status: number }>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push((await send()).status);
  return statuses;
}

const times = (count: number, status: number) => Array.from({ length: count }, () => status);

/** Retry-After as a number of seconds (it must be digits only). */
function retryAfterOf(answer: { headers: Headers | Answer['headers'] }): number {
  const value = answer.headers instanceof Headers ? answer.headers.get('retry-after') : answer.headers['retry-after'];
  assert.match(String(value), /^\d+$/, 'Retry-After is whole seconds');
  return Number(value);
}

/** Why this machine cannot test the IPv6 loopback, or false when it can. */
const noIpv6Loopback = Object.values(networkInterfaces())
  .flat()
  .some((nic) => nic?.address === '::1')
  ? false
  : 'this machine has no IPv6 loopback (::1)';

describe('failed keys', () => {
  const server = useTestServer();
  const wrongKey = 'clinic_not-a-key-of-this-clinic';

  it('answer 429 TOO_MANY_REQUESTS with Retry-After to every request from an address once it had 30 answers 401 within 60 s', async () => {
    const from2 = (path: string, key: string | null) => requestFrom(server.baseUrl, '127.0.0.2', path, key);
    assert.deepEqual(await statusesOf(20, () => from2('/patients', wrongKey)), times(20, 401));
    assert.deepEqual(await statusesOf(10, () => from2('/doctors', null)), times(10, 401), 'no key at all fails too');

    const refused = await from2('/doctors', server.key);
    assert.equal(refused.status, 429, 'a valid key too');
    assert.equal(refused.body.detail.code, 'TOO_MANY_REQUESTS');
    assert.equal(typeof refused.body.detail.message, 'string');
    const seconds = retryAfterOf(refused);
    assert.ok(seconds > 0 && seconds <= 60, `Retry-After ${seconds}`);
    assert.equal(refused.headers['cache-control'], 'no-store');
    // Every further request, whatever its path: the public ones and the description too.
    for (const path of ['/health', '/openapi.json', '/document-types', '/patients']) {
      const answer = await from2(path, path === '/patients' ? wrongKey : null);
      assert.equal(answer.status, 429, path);
      assert.equal(answer.body.detail.code, 'TOO_MANY_REQUESTS', path);
      assert.ok(retryAfterOf(answer) <= seconds, path);
    }

    // Only that address: another of 127.0.0.0/8, and the PC's own, are answered.
    assert.equal((await requestFrom(server.baseUrl, '127.0.0.3', '/doctors', server.key)).status, 200);
    assert.equal((await requestFrom(server.baseUrl, '127.0.0.1', '/doctors', server.key)).status, 200);
    assert.equal((await server.request('GET', '/doctors')).status, 200);
  });

  it('do not block an address with 29 answers 401', async () => {
    const from4 = (key: string) => requestFrom(server.baseUrl, '127.0.0.4', '/doctors', key);
    assert.deepEqual(await statusesOf(29, () => from4(wrongKey)), times(29, 401));
    assert.equal((await from4(server.key)).status, 200);
  });

  it("never block the PC's own 127.0.0.1, after 40 answers 401 either", async () => {
    assert.deepEqual(await statusesOf(40, () => server.request('GET', '/patients', { key: wrongKey })), times(40, 401));
    assert.equal((await server.request('GET', '/doctors')).status, 200);
    assert.equal((await server.request('GET', '/health', { key: null })).status, 200);
  });
});

// Issue 39, L2: addresses rotated, 30 guesses each, made 3,000 guesses in 3.8 s.
describe('failed keys from many addresses', () => {
  const server = useTestServer();
  const wrongKey = 'clinic_not-a-key-of-this-clinic';

  it('refuse every address that used no valid key lately for 60 s once 300 answers 401 fell within 60 s, and serve the others', async () => {
    const from = (address: string, path: string, key: string | null) => requestFrom(server.baseUrl, address, path, key);
    assert.equal((await from('127.0.1.1', '/doctors', server.key)).status, 200, 'a desk PC using its key');
    for (let i = 1; i <= 10; i += 1) {
      const statuses = await statusesOf(31, () => from(`127.0.2.${i}`, '/patients', wrongKey));
      assert.deepEqual(statuses, [...times(30, 401), 429], `127.0.2.${i}`);
    }
    const refused = await from('127.0.3.1', '/doctors', server.key);
    assert.equal(refused.status, 429, 'a new address, even with a valid key');
    assert.equal(refused.body.detail.code, 'TOO_MANY_REQUESTS');
    assert.match(refused.body.detail.message, /many addresses/);
    const seconds = retryAfterOf(refused);
    assert.ok(seconds > 55 && seconds <= 60, `Retry-After ${seconds}`);
    assert.equal((await from('127.0.3.2', '/document-types', null)).status, 429, 'on every path');
    assert.equal((await from('127.0.1.1', '/doctors', server.key)).status, 200, 'the desk PC is served');
    assert.equal((await server.request('GET', '/patients', { key: wrongKey })).status, 401, "the PC's own 127.0.0.1 is never throttled");
    assert.equal((await server.request('GET', '/doctors')).status, 200);
  });
});

describe("failed keys on the PC's own ::1", () => {
  const newDir = useDataDirs();
  let serve: ServeProcess | undefined;
  after(async () => {
    serve?.child.kill(STOP_SIGNAL);
    await serve?.exited;
  });

  it('are never blocked, after 40 answers 401 either', { skip: noIpv6Loopback }, async () => {
    const dataDir = newDir();
    assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
    const created = await runClinic(['api-key', 'create', '--name', 'ipv6', '--json', '--data', dataDir]);
    assert.equal(created.code, 0, created.stderr);
    const { key } = JSON.parse(created.stdout) as { key: string };
    serve = await startServeProcess(['--data', dataDir, '--host', '::1']);
    // The start line names the host as given (http://::1:PORT/…): the port is what this test needs.
    const port = /:(\d+)\/api\/public\/v1$/.exec(serve.baseUrl)?.[1];
    assert.ok(port, serve.baseUrl);
    const baseUrl = `http://[::1]:${port}/api/public/v1`;
    assert.deepEqual(await statusesOf(40, () => requestFrom(baseUrl, '::1', '/patients', 'clinic_wrong')), times(40, 401));
    const answer = await requestFrom(baseUrl, '::1', '/doctors', key);
    assert.equal(answer.status, 200);
  });
});

/** Waits for the next clock minute if less than `ms` is left of this one, so that a test's requests all fall in one. */
async function roomInThisMinute(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await sleep(left + 50);
}

describe('a key made with --rate-limit N', () => {
  const server = useTestServer();

  /** A key made at the desk, as `api-key create` prints it with --json. */
  async function createKey(args: string[]): Promise<{ key: string; rate_limit_per_minute?: number }> {
    const created = await runClinic(['api-key', 'create', '--json', '--data', server.dataDir, ...args]);
    assert.equal(created.code, 0, created.stderr);
    return JSON.parse(created.stdout) as { key: string; rate_limit_per_minute?: number };
  }

  it('gets N answers in a clock minute, then 429 with Retry-After to the minute’s end; other keys are not limited by it', async () => {
    const limited = await createKey(['--name', 'tablet', '--rate-limit', '3']);
    assert.equal(limited.rate_limit_per_minute, 3);
    const other = await createKey(['--name', 'kiosk', '--rate-limit', '3']);
    await roomInThisMinute(10_000);

    const asLimited = () => server.request('GET', '/doctors', { key: limited.key });
    assert.deepEqual(await statusesOf(3, asLimited), [200, 200, 200]);
    const before = Date.now();
    const refused = await asLimited();
    const minuteEnd = Math.ceil(Date.now() / 60_000) * 60_000;
    assert.equal(refused.status, 429);
    assert.equal(refused.body.detail.code, 'TOO_MANY_REQUESTS');
    assert.equal(refused.headers.get('cache-control'), 'no-store');
    const seconds = retryAfterOf(refused);
    assert.ok(seconds >= 1 && seconds <= Math.ceil((minuteEnd - before) / 1000), `Retry-After ${seconds}`);
    assert.ok(seconds >= Math.floor((minuteEnd - Date.now()) / 1000), `Retry-After ${seconds} reaches the minute's end`);
    assert.equal((await asLimited()).status, 429, 'still refused within the minute');

    assert.deepEqual(await statusesOf(3, () => server.request('GET', '/doctors', { key: other.key })), [200, 200, 200]);
    const unlimited = await createKey(['--name', 'reception']);
    assert.deepEqual(Object.keys(unlimited).sort(), ['created_at', 'id', 'key', 'name', 'scopes'], 'the shape of a key made as before');
    assert.deepEqual(await statusesOf(100, () => server.request('GET', '/doctors', { key: unlimited.key })), times(100, 200));
  });

  it('counts requests after the key is checked and before its scope: a refused scope counts too', async () => {
    const limited = await createKey(['--name', 'reader', '--scopes', 'lookups:read', '--rate-limit', '2']);
    await roomInThisMinute(10_000);
    const statuses = await statusesOf(3, () => server.request('GET', '/audit-events', { key: limited.key }));
    assert.deepEqual(statuses, [403, 403, 429]);
    assert.equal((await server.request('GET', '/doctors', { key: limited.key })).status, 429, 'whatever the endpoint');
  });

  it('is listed with its limit, and keys made without one with null', async () => {
    const list = await runClinic(['api-key', 'list', '--json', '--data', server.dataDir]);
    assert.equal(list.code, 0, list.stderr);
    const limits = Object.fromEntries(
      (JSON.parse(list.stdout) as { name: string; rate_limit_per_minute: number | null }[]).map((key) => [
        key.name,
        key.rate_limit_per_minute,
      ]),
    );
    assert.deepEqual(limits, { test: null, tablet: 3, kiosk: 3, reception: null, reader: 2 });
    const people = await runClinic(['api-key', 'list', '--data', server.dataDir]);
    assert.match(people.stdout, /tablet\n(.*\n)*?Rate limit +3 requests per minute\n/);
    assert.match(people.stdout, /reception\n(.*\n)*?Rate limit +none\n/);
  });

  it('must be a whole number from 1 to 1000000', async () => {
    for (const value of ['0', '1000001', '2.5', 'many']) {
      const refused = await runClinic(['api-key', 'create', '--name', 'bad', '--rate-limit', value, '--data', server.dataDir]);
      assert.equal(refused.code, 1, value);
      assert.match(refused.stderr, /VALIDATION_ERROR[\s\S]*--rate-limit/, value);
    }
    const list = await runClinic(['api-key', 'list', '--json', '--data', server.dataDir]);
    assert.ok(!(JSON.parse(list.stdout) as { name: string }[]).some((key) => key.name === 'bad'), 'no key was made');
  });
});
