import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROGRAM_VERSION } from '../../src/version.js';
import { trailOf } from '../helpers/audit-chain.js';
import { buildPatient } from '../helpers/builders.js';
import { dataDirOn, holdWriteLock, mountTmpfs, releaseWriteLock } from '../helpers/faults.js';
import { useTestServer } from '../helpers/fixtures.js';
import { startTestServer } from '../helpers/test-server.js';

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
