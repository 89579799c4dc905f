import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { useUpgradedRelease } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../../helpers/schema-of.js';
import { makeDataDir } from '../../helpers/fixtures.js';

/**
 * The migration to schema 4 (the audit trail), on a data directory and a backup made by the
 * release before it (test/fixtures/release-1.2-corrections/README.md says how).
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.2-corrections', import.meta.url));
const keys = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<'all_scopes' | 'tablet', { id: string; key: string }>;

interface Event {
  seq: number;
  action: string;
  patient_number: string | null;
  actor_id: string;
  actor_name: string;
}

describe('upgrading a data directory made by the release before the audit trail', () => {
  const release = useUpgradedRelease(fixture);
  const asOld = { key: keys.all_scopes.key };

  it('keeps every record and starts an empty trail that verifies', async () => {
    const db = openDatabase(release.dataDir);
    try {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      assert.deepEqual(['patients', 'appointments', 'invoices', 'payments', 'refunds', 'documents'].map(count), [2, 2, 2, 1, 1, 1]);
      const oldKeys = db.prepare('SELECT id FROM api_keys WHERE id IN (?, ?)').all(keys.all_scopes.id, keys.tablet.id);
      assert.equal(oldKeys.length, 2);
    } finally {
      db.close();
    }
    const verify = await runClinic(['audit', 'verify', '--json', '--data', release.dataDir]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.deepEqual(JSON.parse(verify.stdout), { ok: true, events: 0, last_seq: 0, last_hash: null });
  });

  it('records from seq 1 what the old keys read and change, and the old Idempotency-Key still replays unrecorded', async () => {
    const patients = (await release.server.request('GET', '/patients?q=huber', asOld)).body as { id: string }[];
    assert.equal(patients.length, 1);
    const huber = await release.server.request('GET', `/patients/${patients[0]!.id}`, { key: keys.tablet.key });
    assert.equal(huber.status, 200);
    assert.equal(huber.body.version, 2, 'the edit made by the old release is kept');
    const invoices = (await release.server.request('GET', '/invoices', asOld)).body as { id: string; invoice_number: string }[];
    const paid = invoices.find((invoice) => invoice.invoice_number === 'INV-2026-000001')!;
    const replay = await release.server.request('POST', `/invoices/${paid.id}/payments`, {
      ...asOld,
      body: { amount: '85.50', method: 'cash' },
      headers: { 'idempotency-key': 'fixture-pay-1' },
    });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');

    const events = (await release.server.request('GET', '/audit-events', asOld)).body as Event[];
    assert.deepEqual(
      events.map((event) => [event.seq, event.action, event.patient_number, event.actor_id]),
      [
        [1, 'patient.search', 'P-000002', keys.all_scopes.id],
        [2, 'patient.read', 'P-000002', keys.tablet.id],
        // GET /invoices lists the newest first: one event per patient, in the order shown.
        [3, 'invoice.read', 'P-000002', keys.all_scopes.id],
        [4, 'invoice.read', 'P-000001', keys.all_scopes.id],
      ],
    );
    assert.equal(events[1]!.actor_name, 'Tablet');
    const check = await runClinic(['check', '--data', release.dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('a backup made by the release before the audit trail', () => {
  it('restores with every record, a trail holding only its restore, and the document byte for byte', async () => {
    const target = makeDataDir();
    try {
      const restore = await runClinic(['restore', join(fixture, 'backup.tar.gz'), '--json', '--data', target]);
      assert.equal(restore.code, 0, restore.stderr);
      const list = await runClinic(['audit', 'list', '--from', '01.01.2000', '--json', '--data', target]);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(
        (JSON.parse(list.stdout) as Event[]).map((event) => [event.seq, event.action, event.patient_number]),
        [[1, 'data.import', null]],
      );
      const [patientFolder] = readdirSync(join(target, 'documents'));
      const [documentFile] = readdirSync(join(target, 'documents', patientFolder!));
      assert.deepEqual(
        readFileSync(join(target, 'documents', patientFolder!, documentFile!)),
        readFileSync(join(fixture, 'documents', patientFolder!, documentFile!)),
      );
      const check = await runClinic(['check', '--data', target]);
      assert.equal(check.code, 0, check.stdout + check.stderr);
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
  });
});

describe('the migrations from schema version 3', () => {
  it('leave a database of the release before the audit trail with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});
