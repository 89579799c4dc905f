import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { lostMargin, type ChangeEvent } from '../../helpers/change-feed.js';
import { copyReleaseFixture, useDataDirs, useUpgradedRelease } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../../helpers/schema-of.js';
import { readDatabase } from '../../helpers/release-database.js';
import { assertKeptEveryRow, contentsOf, RELEASE_1_2_TABLES } from '../../helpers/release-rows.js';

/**
 * Issue 39's M3, M4 and L5 on a data directory and a backup made by release 1.2.0
 * (test/fixtures/release-1.2.0/README.md says how): P-000001 owes 40.00 EUR and 4000.00 JPY,
 * P-000002 was stored as `Z<U+200B>ürcher`, and the change feed holds 16 events.
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.2.0', import.meta.url));
const keys = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<'praxis_software' | 'tablet', { key: string }>;

const JUERGEN = '5b2730a5-4a7d-42a4-ac54-47eed835ffb7';
const EVA = '07375f5f-45fb-488b-8ad2-02c663e3d750';
/** Tables whose rows this program keeps as release 1.2.0 wrote them (the audit trail's storage is issue 39's other part). */
const TABLES = [...RELEASE_1_2_TABLES, 'api_keys'];

/** What the desk and the API say P-000001 owes after the upgrade. */
const JUERGEN_OWES = [
  { currency: 'EUR', amount: '40.00' },
  { currency: 'JPY', amount: '4000.00' },
];

describe('upgrading a data directory made by release 1.2.0 (issue 39: currencies, the feed, invisible characters)', () => {
  const release = useUpgradedRelease(fixture, { keepOriginal: true });
  const asOld = { key: keys.praxis_software.key };

  it('keeps every row of every table and every name as 1.2.0 stored it; the audit trail still verifies', async () => {
    const before = readDatabase(release.original, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), 6);
      return contentsOf(db, TABLES);
    });
    readDatabase(release.dataDir, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assertKeptEveryRow(db, before);
      assert.deepEqual(db.prepare('SELECT count(*) AS n FROM change_feed_lost_ranges').get(), { n: 0 }, 'an upgrade loses no position');
    });
    const verify = await runClinic(['audit', 'verify', '--json', '--data', release.dataDir]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal((JSON.parse(verify.stdout) as { ok: boolean }).ok, true);
  });

  it('M3: P-000001 owes 40.00 EUR and 4000.00 JPY, over the API, at the desk and in clinic check', async () => {
    const read = await release.server.request('GET', `/patients/${JUERGEN}`, asOld);
    assert.deepEqual(
      [read.body.outstanding_balance, read.body.outstanding_currency, read.body.outstanding_balances],
      ['40.00', 'EUR', JUERGEN_OWES],
    );
    const found = await release.server.request('GET', '/patients?q=P-1', asOld);
    assert.deepEqual(found.body[0].outstanding_balances, JUERGEN_OWES);
    const show = await runClinic(['patient', 'show', 'P-1', '--data', release.dataDir]);
    assert.match(show.stdout, /^Owes +40\.00 EUR \+ 4000\.00 JPY$/m);
    const check = await runClinic(['check', '--json', '--data', release.dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    const note = (JSON.parse(check.stdout) as { checks: { name: string; status: string; findings: string[] }[] }).checks.find(
      (outcome) => outcome.name === 'balances_in_several_currencies',
    );
    assert.deepEqual([note?.status, note?.findings], ['note', ['P-000001 owes 40.00 EUR + 4000.00 JPY']]);
  });

  it('L5: Z<U+200B>ürcher, as 1.2.0 stored it, is found by zürcher and zurcher, over the API and at the desk', async () => {
    for (const q of ['zürcher', 'zurcher', 'Eva Zür']) {
      const found = await release.server.request('GET', `/patients?q=${encodeURIComponent(q)}`, { key: keys.tablet.key });
      assert.deepEqual(
        found.body.map((patient: { id: string }) => patient.id),
        [EVA],
        q,
      );
    }
    const desk = await runClinic(['patient', 'find', 'zürcher', '--json', '--data', release.dataDir]);
    assert.deepEqual(
      (JSON.parse(desk.stdout) as { patient_number: string }[]).map((patient) => patient.patient_number),
      ['P-000002'],
    );
  });

  it('M4: the feed goes on at seq 17, and no position is lost by the upgrade', async () => {
    const created = await release.server.request('POST', '/patients', {
      ...asOld,
      body: { first_name: 'Neu', last_name: 'Nach-Upgrade', email: 'neu@example.at', mobile: '+43 660 1' },
    });
    assert.equal(created.status, 201);
    const next = await release.server.request('GET', '/events?after=16', asOld);
    assert.deepEqual(
      (next.body as ChangeEvent[]).map((event) => [event.id, event.type]),
      [['evt_17', 'patient.created']],
    );
    assert.equal(
      (await release.server.request('GET', '/events?after=40', asOld)).status,
      200,
      'no restore: a position ahead is waited for, as in 1.2.0',
    );
  });
});

describe('restoring the backup made by release 1.2.0 (issue 39)', () => {
  const newDir = useDataDirs();

  it('restores with every record; replacing the directory it was made from loses no position of the feed', async () => {
    const replaced = copyReleaseFixture(fixture, newDir());
    const target = newDir();
    const restore = await runClinic(['restore', join(fixture, 'backup.tar.gz'), '--replaces', replaced, '--json', '--data', target]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.equal((JSON.parse(restore.stdout) as { change_feed_lost: unknown }).change_feed_lost, null);
    readDatabase(replaced, (db) => assert.equal(db.pragma('user_version', { simple: true }), 6, 'the replaced database was only read'));
    readDatabase(target, (db) => {
      const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      assert.deepEqual(
        ['patients', 'invoices', 'payments', 'refunds', 'documents', 'change_events', 'webhook_endpoints'].map(count),
        [3, 4, 2, 1, 1, 16, 1],
      );
    });
    const check = await runClinic(['check', '--data', target]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /^NOTE +balances_in_several_currencies: .*\n +- P-000001 owes 40\.00 EUR \+ 4000\.00 JPY$/m);
    const found = await runClinic(['patient', 'find', 'zürcher', '--json', '--data', target]);
    assert.equal((JSON.parse(found.stdout) as unknown[]).length, 1);
  });

  it('restores without the replaced directory: a margin of the feed is marked lost, and check passes', async () => {
    const target = newDir();
    const restore = await runClinic(['restore', join(fixture, 'backup.tar.gz'), '--json', '--data', target]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.deepEqual((JSON.parse(restore.stdout) as { change_feed_lost: unknown }).change_feed_lost, lostMargin(16));
    const check = await runClinic(['check', '--data', target]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('the migrations from schema version 6', () => {
  it('leave a database of release 1.2.0 with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});
