import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROGRAM_VERSION } from '../../../src/version.js';
import { trailOf } from '../../helpers/audit-chain.js';
import { buildPatient } from '../../helpers/builders.js';
import { assertMatchesContract } from '../../helpers/contract.js';
import { dataDirOn, holdWriteLock, mountTmpfs, releaseWriteLock } from '../../helpers/faults.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { rawRequest } from '../../helpers/raw-request.js';
import { startTestServer } from '../../helpers/test-server.js';

/** GET /health (clinic-api-1.2.md, "Network"). */
describe('GET /health', () => {
  const server = useTestServer();

  it('answers 200 without a key: status, version, database, free disk, start; no-store, and no audit event', async () => {
    const patient = await server.request('POST', '/patients', { body: buildPatient() });
    assert.equal(patient.status, 201);
    const before = trailOf(server.dataDir).length;
    const health = await server.request('GET', '/health', { key: null });
    assert.equal(health.status, 200, health.text);
    assert.deepEqual(Object.keys(health.body).sort(), ['database', 'disk_free_bytes', 'started_at', 'status', 'version']);
    assert.equal(health.body.status, 'ok');
    assert.equal(health.body.database, 'ok');
    assert.equal(health.body.version, PROGRAM_VERSION);
    assert.ok(Number.isSafeInteger(health.body.disk_free_bytes) && health.body.disk_free_bytes > 64 * 1024 * 1024);
    assert.ok(Date.parse(health.body.started_at) <= Date.now());
    assert.match(health.body.started_at, /Z$/);
    assert.equal(health.headers.get('cache-control'), 'no-store');
    assert.ok(!health.text.includes(patient.body.last_name), 'shows no patient data');
    // A key sent anyway changes nothing.
    assert.equal((await server.request('GET', '/health')).status, 200);
    assert.equal(trailOf(server.dataDir).length, before, 'records nothing');
  });

  it('answers 503 busy while another process holds the write lock past the wait, and 200 again once it lets go', async () => {
    const holder = await holdWriteLock(server.dataDir);
    try {
      const health = await server.request('GET', '/health', { key: null });
      assert.equal(health.status, 503, health.text);
      assert.deepEqual([health.body.status, health.body.database], ['unavailable', 'busy']);
      assert.equal(health.body.version, PROGRAM_VERSION);
    } finally {
      await releaseWriteLock(holder);
    }
    assert.equal((await server.request('GET', '/health', { key: null })).status, 200);
  });
});

// Issue 39, L4: a keyless GET /health showed anyone on the network the free bytes to the byte (a 3 MB upload as −3,002,368).
describe('GET /health from another machine', () => {
  const server = useTestServer();

  /** GET /health from `localAddress` with `key` (null: none), checked against the OpenAPI document. */
  async function healthFrom(localAddress: string, key: string | null) {
    const headers = key === null ? {} : { authorization: `Bearer ${key}` };
    const answer = await rawRequest(server.baseUrl, { method: 'GET', path: '/health', headers, localAddress });
    assertMatchesContract('GET', `${server.baseUrl}/health`, answer);
    return { status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> };
  }

  it('answers 200 with the same fields, disk_free_bytes null, without a key', async () => {
    const health = await healthFrom('127.0.0.2', null);
    assert.equal(health.status, 200);
    assert.deepEqual(Object.keys(health.body).sort(), ['database', 'disk_free_bytes', 'started_at', 'status', 'version']);
    assert.deepEqual([health.body.status, health.body.database, health.body.disk_free_bytes], ['ok', 'ok', null]);
  });

  it('gives the free bytes to a key holding audit:read, and null to a key without it', async () => {
    const auditor = await healthFrom('127.0.0.2', server.createKey(['audit:read']));
    assert.ok(Number.isSafeInteger(auditor.body.disk_free_bytes), JSON.stringify(auditor.body));
    const reader = await healthFrom('127.0.0.2', server.createKey(['patients:read', 'lookups:read', 'events:read']));
    assert.equal(reader.status, 200);
    assert.equal(reader.body.disk_free_bytes, null);
  });

  it('gives the free bytes to the PC itself without a key', async () => {
    const own = await healthFrom('127.0.0.1', null);
    assert.ok(Number.isSafeInteger(own.body.disk_free_bytes), JSON.stringify(own.body));
  });

  it('answers a wrong key 200 with null, counting it as a failed key: the 31st within 60 s is 429', async () => {
    for (let i = 0; i < 30; i += 1) {
      const health = await healthFrom('127.0.0.5', 'clinic_not-a-key-of-this-clinic');
      assert.deepEqual([health.status, health.body.disk_free_bytes], [200, null], `request ${i + 1}`);
    }
    assert.equal((await healthFrom('127.0.0.5', server.createKey(['audit:read']))).status, 429, 'blocked, as after 30 answers 401');
  });
});

describe('GET /health on a small disk', () => {
  it("answers 503 full while the data directory's disk has less than 64 MiB free", async (t) => {
    const tmpfs = mountTmpfs(t, 48 * 1024);
    if (tmpfs === undefined) return;
    const server = await startTestServer({}, dataDirOn(tmpfs));
    try {
      const health = await server.request('GET', '/health', { key: null });
      assert.equal(health.status, 503, health.text);
      assert.deepEqual([health.body.status, health.body.database], ['unavailable', 'full']);
      assert.ok(health.body.disk_free_bytes < 64 * 1024 * 1024);
    } finally {
      await server.close();
      tmpfs.unmount();
    }
  });
});
