import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { assertChain, trailOf } from '../helpers/audit-chain.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

/** The audit trail's bytes on disk as SQLite counts them (dbstat: every page of its tables and indexes), and its events. */
function trailBytes(db: Db): { bytes: number; events: number } {
  const { bytes } = db
    .prepare<[], { bytes: number }>(
      "SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'audit%' OR name LIKE 'sqlite_autoindex_audit%'",
    )
    .get()!;
  const { events } = db.prepare<[], { events: number }>('SELECT count(*) AS events FROM audit_events').get()!;
  return { bytes, events };
}

/**
 * Issue 39, M1: a read-only key filled the disk through the audit trail, each patient of a search
 * page one event of some 470 bytes with its `q` (1.2.0). Stored compactly, the events of a page
 * share their request's context, and each keeps its time, references and hash.
 */
describe('the audit trail of a read-only key’s search pages', () => {
  const server = useTestServer();

  it('costs at most 150 bytes per event on disk, indexes and shared rows included, and lists and chains as before', async () => {
    for (let i = 0; i < 60; i += 1) createTestPatient(server.db, { last_name: `Hubertus${i}`, email: `hu${i}@example.org` });
    // A key of its own limit, so that the default limit on audited reads does not pace this test.
    const { key } = createApiKey(server.db, { name: 'Tablet', scopes: ['patients:read'], rate_limit_per_minute: 1_000_000 });
    const before = trailBytes(server.db);
    for (let page = 0; page < 200; page += 1) {
      const search = await server.request('GET', '/patients?q=hubertus&limit=50', { key });
      assert.equal(search.status, 200);
      assert.equal(search.body.length, 50);
    }
    const after = trailBytes(server.db);
    const events = after.events - before.events;
    assert.equal(events, 10_000);
    const perEvent = (after.bytes - before.bytes) / events;
    assert.ok(perEvent <= 150, `${perEvent.toFixed(1)} bytes per event`);

    const trail = trailOf(server.dataDir);
    assertChain(trail);
    const last = trail.at(-1)!;
    assert.deepEqual(
      [last.action, last.subject_type, last.subject_id, last.actor_name, last.detail],
      ['patient.search', 'patient', null, 'Tablet', { q: 'hubertus' }],
    );
    const listed = await server.request('GET', `/audit-events?after=${last.seq - 50}&limit=1000`);
    assert.deepEqual(listed.body, trail.slice(-50));
  });
});
