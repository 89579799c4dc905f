import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../../src/db/open-database.js';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { useUpgradedRelease } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../../helpers/schema-of.js';

/**
 * The migration to schema 3 (interface 1.1.0 → 1.2.0: versions, void invoices, refunds), on a
 * data directory made by release 1.1.0 itself (test/fixtures/release-1.1.0/README.md says how).
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.1.0', import.meta.url));
const keys = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<
  'all_scopes' | 'front_desk_tablet' | 'revoked',
  { id: string; key: string }
>;

describe('upgrading a data directory made by release 1.1.0', () => {
  const release = useUpgradedRelease(fixture);
  const asOld = { key: keys.all_scopes.key };

  it('keeps every patient, at version 1, found as before', async () => {
    const all = await release.server.request('GET', '/patients', asOld);
    assert.deepEqual(
      all.body.map((p: { patient_number: string; last_name: string }) => [p.patient_number, p.last_name]),
      [
        ['P-000002', 'Huber'],
        ['P-000003', 'Mustermann'],
        ['P-000001', 'Müller-Lüdenscheidt'],
      ],
    );
    for (const { id } of all.body as { id: string }[]) {
      assert.equal((await release.server.request('GET', `/patients/${id}`, asOld)).body.version, 1);
    }
    const found = await release.server.request('GET', `/patients?q=${encodeURIComponent('lüdenscheidt 1234567')}`, asOld);
    assert.deepEqual(
      found.body.map((p: { patient_number: string }) => p.patient_number),
      ['P-000001'],
    );
  });

  it('corrects an old patient: PATCH counts its version from 1 and search follows', async () => {
    const [huber] = (await release.server.request('GET', '/patients?q=huber', asOld)).body as { id: string }[];
    const read = await release.server.request('GET', `/patients/${huber!.id}`, asOld);
    assert.equal(read.headers.get('etag'), '"1"');
    const changed = await release.server.request('PATCH', `/patients/${huber!.id}`, {
      ...asOld,
      body: { last_name: 'Huber-Gruber' },
      headers: { 'if-match': '"1"' },
    });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.version, 2);
    assert.deepEqual(
      (await release.server.request('GET', '/patients?q=gruber', asOld)).body.map((p: { id: string }) => p.id),
      [huber!.id],
    );
    const tablet = await release.server.request('PATCH', `/patients/${huber!.id}`, {
      key: keys.front_desk_tablet.key,
      body: { title: 'x' },
    });
    assert.equal(tablet.status, 403, 'a key given patients:read only may not change a patient');
  });

  it('keeps every invoice with its amounts and payments, and the ledger still adds up', async () => {
    const invoices = await release.server.request('GET', '/invoices', asOld);
    assert.deepEqual(
      invoices.body
        .map((i: { invoice_number: string; status: string; amount_paid: number; balance: number }) => [
          i.invoice_number,
          i.status,
          i.amount_paid,
          i.balance,
        ])
        .sort(),
      [
        ['INV-2026-000001', 'partially_paid', 50, 35.5],
        ['INV-2026-000002', 'issued', 0, 120],
        ['INV-2026-000003', 'paid', 60, 0],
      ],
    );
    const first = invoices.body.find((i: { invoice_number: string }) => i.invoice_number === 'INV-2026-000001');
    const detail = await release.server.request('GET', `/invoices/${first.id}`, asOld);
    assert.deepEqual(
      detail.body.payments.map((p: { amount: number; method: string }) => [p.amount, p.method]),
      [
        [40, 'cash'],
        [10, 'card'],
      ],
    );
    const check = await runClinic(['check', '--data', release.dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it('replays an Idempotency-Key used before the upgrade', async () => {
    const first = (await release.server.request('GET', '/invoices', asOld)).body.find(
      (i: { invoice_number: string }) => i.invoice_number === 'INV-2026-000001',
    );
    const replay = await release.server.request('POST', `/invoices/${first.id}/payments`, {
      ...asOld,
      body: { amount: '40.00', method: 'cash' },
      headers: { 'idempotency-key': 'fixture-pay-1' },
    });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  });

  it('makes the refunds table, whose rows can be neither changed nor deleted', () => {
    const db = openDatabase(release.dataDir);
    try {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assert.deepEqual(db.pragma('foreign_key_check'), []);
      assert.equal(db.pragma('foreign_keys', { simple: true }), 1, 'foreign keys are on again after the rebuild');
      const triggers = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'refunds' ORDER BY name").all();
      assert.deepEqual(triggers, [{ name: 'refunds_are_final_on_delete' }, { name: 'refunds_are_final_on_update' }]);
    } finally {
      db.close();
    }
  });
});

describe('the migrations from schema version 2', () => {
  it('leave a 1.1.0 database with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});
