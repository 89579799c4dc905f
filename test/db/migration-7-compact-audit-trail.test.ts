import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../src/db/migrations.js';
import { type Db } from '../../src/db/drivers/sqlite-driver.js';
import { assertChain, trailOf, type AuditEvent } from '../helpers/audit-chain.js';
import { copyReleaseFixture, makeDataDir } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../helpers/schema-of.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readDatabase } from '../helpers/release-database.js';

/**
 * Migration 7, the audit trail stored compactly (issue 39), on the data directory and the backup
 * that release 1.2.0 made (test/fixtures/release-1.2.0/README.md says how): every event is kept
 * with every field, as GET /audit-events showed it, so every hash still verifies.
 */
const fixture = fileURLToPath(new URL('../fixtures/release-1.2.0', import.meta.url));
const keys = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<
  'praxis_software' | 'tablet',
  { id: string; key: string }
>;
const JUERGEN = '5b2730a5-4a7d-42a4-ac54-47eed835ffb7';

/** Every table of the old release with every row, its columns as the old release had them. */
function oldTables(db: Db): Record<string, unknown[]> {
  const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
    (row) => row.name,
  );
  return Object.fromEntries(
    tables.map((table) => {
      const columns = (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((c) => c.name);
      // The trail is a view since schema 7, and some tables have no rowid: each in the order of all its columns.
      const order = columns.join(', ');
      return [table, db.prepare(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${order}`).all()];
    }),
  );
}

describe('upgrading the data directory of release 1.2.0 to the compact audit trail', () => {
  let original: string;
  let dataDir: string;
  let server: TestServer;
  let before12: Record<string, unknown[]>;

  before(async () => {
    // A copy never opened by this program is what 1.2.0 left, to compare with.
    original = copyReleaseFixture(fixture);
    dataDir = copyReleaseFixture(fixture);
    before12 = readDatabase(original, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), 6);
      return oldTables(db);
    });
    server = await startTestServer({}, dataDir);
  });
  after(async () => {
    await server.close();
    rmSync(original, { recursive: true, force: true });
  });

  it('keeps every row of every table, every event with every field as 1.2.0 stored it, and the old table is gone', () => {
    assert.equal((before12.audit_events ?? []).length, 20, 'the fixture holds what its README says');
    readDatabase(dataDir, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      const now = oldTables(db);
      for (const [table, rows] of Object.entries(before12)) {
        // Migration 8 rebuilds the search terms of names stored with invisible characters (issue 39, L5);
        // migration 10 numbers documents with a counter of its own (sqlite_sequence gains a row).
        if (table === 'audit_events' || table === 'patient_search_terms') continue;
        if (table === 'sqlite_sequence') {
          const counters = new Set((now[table] as unknown[]).map((row) => JSON.stringify(row)));
          for (const row of rows) assert.ok(counters.has(JSON.stringify(row)), `sqlite_sequence keeps ${JSON.stringify(row)}`);
          continue;
        }
        // The test server has made its own key ('test') beside the old ones.
        // Later migrations add columns (retired_at, document_number, ...): the old ones are compared.
        const oldColumns = Object.keys((rows[0] ?? {}) as object);
        const narrowed = (now[table] as Record<string, unknown>[]).map((row) =>
          rows.length === 0 ? row : Object.fromEntries(oldColumns.map((column) => [column, row[column]])),
        );
        const kept = table === 'api_keys' ? narrowed.filter((key) => key.name !== 'test') : narrowed;
        const inOneOrder = (list: unknown[]) => list.map((row) => JSON.stringify(row)).sort();
        assert.deepEqual(inOneOrder(kept), inOneOrder(rows), table);
      }
      const columns = Object.keys(before12.audit_events![0] as object);
      assert.deepEqual(db.prepare(`SELECT ${columns.join(', ')} FROM audit_events ORDER BY seq`).all(), before12.audit_events);
      assert.equal(
        (db.prepare("SELECT type FROM sqlite_schema WHERE name = 'audit_events'").get() as { type: string }).type,
        'view',
        'the events are read through the view; their rows are in audit_trail',
      );
      assert.equal((db.prepare('SELECT count(*) AS n FROM audit_trail').get() as { n: number }).n, 20);
    });
  });

  it('verifies the old trail with its old last hash, lists it as 1.2.0 did, and chains the next event to it', async () => {
    const old = (before12.audit_events as (AuditEvent & { detail: string | null })[]).map((row) => ({
      ...row,
      detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
    }));
    const lastHash = old.at(-1)!.hash;
    const verify = await runClinic(['audit', 'verify', '--json', '--data', dataDir]);
    assert.equal(verify.code, 0, verify.stderr);
    const verified = JSON.parse(verify.stdout) as { ok: boolean; events: number; last_seq: number; last_hash: string };
    assert.deepEqual([verified.ok, verified.events, verified.last_seq, verified.last_hash], [true, 20, 20, lastHash]);

    const listed = await server.request('GET', '/audit-events?limit=1000', { key: keys.praxis_software.key });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, old, 'every event as GET /audit-events of 1.2.0 gave it');

    const read = await server.request('GET', `/patients/${JUERGEN}`, { key: keys.tablet.key });
    assert.equal(read.status, 200);
    const trail = trailOf(dataDir);
    assert.equal(trail.length, 21);
    assert.deepEqual([trail[20]!.seq, trail[20]!.action, trail[20]!.prev_hash], [21, 'patient.read', lastHash]);
    assertChain(trail);
    const check = await runClinic(['check', '--data', dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it('still refuses a change of the trail, through the view as through its tables', () => {
    readDatabase(dataDir, (db) => {
      assert.throws(() => db.exec("UPDATE audit_events SET actor_name = 'x' WHERE seq = 1"), /append-only/);
      assert.throws(() => db.exec('DELETE FROM audit_events WHERE seq = 1'), /append-only/);
      assert.throws(() => db.exec('UPDATE audit_trail SET at = 0 WHERE seq = 1'), /append-only/);
      assert.throws(() => db.exec('DELETE FROM audit_trail'), /append-only/);
      assert.throws(() => db.exec("UPDATE audit_contexts SET detail = '{}'"), /append-only/);
      assert.throws(() => db.exec('DELETE FROM audit_patients'), /append-only/);
    });
  });
});

describe('the backup of release 1.2.0', () => {
  let target: string;
  before(() => {
    target = makeDataDir();
  });
  after(() => rmSync(target, { recursive: true, force: true }));

  it('restores with the 18 events recorded before it, then the restore’s data.import', async () => {
    const restore = await runClinic(['restore', join(fixture, 'backup.tar.gz'), '--json', '--data', target]);
    assert.equal(restore.code, 0, restore.stderr);
    const original = copyReleaseFixture(fixture);
    try {
      const old = readDatabase(original, (db) => db.prepare('SELECT * FROM audit_events WHERE seq <= 18 ORDER BY seq').all());
      const trail = readDatabase(target, (db) => db.prepare('SELECT * FROM audit_events ORDER BY seq').all()) as AuditEvent[];
      // The backup was written after event 18; its own data.export (19) is recorded in its source only.
      assert.deepEqual(trail.slice(0, 18), old);
      assert.deepEqual(
        trail.slice(18).map((event) => event.action),
        ['data.import'],
      );
    } finally {
      rmSync(original, { recursive: true, force: true });
    }
    assertChain(trailOf(target));
    const check = await runClinic(['check', '--data', target]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('the migrations from schema version 6', () => {
  it('leave a database of release 1.2.0 with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});
