import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { assertChain, trailOf } from '../../helpers/audit-chain.js';
import type { ChangeEvent } from '../../helpers/change-feed.js';
import { copyReleaseFixture, useUpgradedRelease } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../../helpers/schema-of.js';
import { makeDataDir } from '../../helpers/fixtures.js';
import { readDatabase } from '../../helpers/release-database.js';

/**
 * The migration to the change feed, on a data directory and a backup made by the release before
 * it, the one with the audit trail (test/fixtures/release-1.2-audit/README.md says how).
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.2-audit', import.meta.url));
const keys = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<'all_scopes' | 'tablet', { id: string; key: string }>;

/** What the old release left: its patients, the last event of its trail, and its document. */
const JUERGEN = '7983fc5e-9b4c-443c-846a-61c993e864f3';
const HUBER = '995d36d1-b062-48c2-a078-cb5b0faa3c14';
const PAID_INVOICE = '5b1b9f67-5bce-4dbb-834c-9cebe21c28af';
const DOCUMENT = join('documents', JUERGEN, 'b0d0cc79-8d20-42b3-9b4f-e07c8cbbaa21');
const LAST_HASH = 'baa285a433cf8954e66ac876f78956ba7d0ff154e4a1b2be85dd5c6ede6e086e';
const OLD_ACTIONS = [
  'patient.create',
  'patient.create',
  'patient.update',
  'appointment.create',
  'appointment.create',
  'appointment.update',
  'invoice.create',
  'invoice.create',
  'payment.create',
  'refund.create',
  'invoice.void',
  'document.create',
  'patient.read',
  'patient.read',
  'invoice.read',
];

const countOf = (dataDir: string, table: string) =>
  readDatabase(dataDir, (db) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);

const changeSeqsOf = (dataDir: string) =>
  readDatabase(dataDir, (db) =>
    (db.prepare('SELECT seq FROM change_events ORDER BY seq').all() as { seq: number }[]).map((row) => row.seq),
  );

async function assertNoWebhooks(dataDir: string): Promise<void> {
  const list = await runClinic(['webhook', 'list', '--json', '--data', dataDir]);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(JSON.parse(list.stdout), []);
}

describe('upgrading a data directory made by the release before the change feed', () => {
  const release = useUpgradedRelease(fixture);
  const asOld = { key: keys.all_scopes.key };

  it('keeps every record, file and audit event, the trail still verifies, and the feed starts empty', async () => {
    readDatabase(release.dataDir, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      assert.deepEqual(
        ['patients', 'appointments', 'invoices', 'payments', 'refunds', 'documents', 'change_events', 'webhook_endpoints'].map(count),
        [2, 2, 2, 1, 1, 1, 0, 0],
      );
      assert.equal(db.prepare('SELECT id FROM api_keys WHERE id IN (?, ?)').all(keys.all_scopes.id, keys.tablet.id).length, 2);
    });
    assert.deepEqual(readFileSync(join(release.dataDir, DOCUMENT)), readFileSync(join(fixture, DOCUMENT)));

    const trail = trailOf(release.dataDir);
    assertChain(trail);
    assert.deepEqual(
      trail.map((event) => event.action),
      [...OLD_ACTIONS, 'data.export'],
    );
    const verify = await runClinic(['audit', 'verify', '--json', '--data', release.dataDir]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.deepEqual(JSON.parse(verify.stdout), { ok: true, events: 16, last_seq: 16, last_hash: LAST_HASH });

    const feed = await release.server.request('GET', '/events', asOld);
    assert.equal(feed.status, 200, 'a key made without --scopes by the old release may read the feed');
    assert.deepEqual(feed.body, []);
    const tablet = await release.server.request('GET', '/events', { key: keys.tablet.key });
    assert.equal(tablet.status, 403, 'a key the old release limited to some scopes does not gain events:read');
  });

  it('has no webhook endpoints', () => assertNoWebhooks(release.dataDir));

  it('appends the first change after the upgrade as seq 1, and goes on with the trail from seq 17', async () => {
    const patch = await release.server.request('PATCH', `/patients/${HUBER}`, { ...asOld, body: { notes: 'Allergie: Penicillin, Latex' } });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.version, 3, 'on top of the edit made by the old release');
    // The payment the old release recorded replays under its Idempotency-Key and appends no event.
    const replay = await release.server.request('POST', `/invoices/${PAID_INVOICE}/payments`, {
      ...asOld,
      body: { amount: '85.50', method: 'cash' },
      headers: { 'idempotency-key': 'fixture-pay-1' },
    });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');

    const feed = await release.server.request('GET', '/events?after=0', asOld);
    assert.equal(feed.status, 200);
    const [first, ...rest] = feed.body as ChangeEvent[];
    assert.deepEqual(rest, []);
    assert.deepEqual(
      { ...first, occurred_at: undefined },
      {
        id: 'evt_1',
        seq: 1,
        type: 'patient.updated',
        occurred_at: undefined,
        patient_id: HUBER,
        data: { patient_number: 'P-000002', changed: ['notes'] },
      },
    );
    assert.deepEqual(changeSeqsOf(release.dataDir), [1]);

    const trail = trailOf(release.dataDir);
    assertChain(trail);
    assert.deepEqual(
      trail.slice(16).map((event) => [event.seq, event.action, event.patient_number, event.actor_id]),
      [[17, 'patient.update', 'P-000002', keys.all_scopes.id]],
      'the change is recorded after the old trail; the replay and GET /events are not',
    );
    const verify = await runClinic(['audit', 'verify', '--json', '--data', release.dataDir]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal((JSON.parse(verify.stdout) as { events: number }).events, 17);
    const check = await runClinic(['check', '--data', release.dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('a backup made by the release before the change feed', () => {
  let target: string;

  let replaced: string;

  before(async () => {
    target = makeDataDir();
    // It replaces the directory it was made from, which never had a feed: no number of it is lost (issue 39).
    replaced = copyReleaseFixture(fixture);
    const restore = await runClinic(['restore', join(fixture, 'backup.tar.gz'), '--replaces', replaced, '--json', '--data', target]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.equal((JSON.parse(restore.stdout) as { change_feed_lost: unknown }).change_feed_lost, null);
  });
  after(() => {
    rmSync(target, { recursive: true, force: true });
    rmSync(replaced, { recursive: true, force: true });
  });

  it('restores with every record, its audit trail and the document, and an empty feed', async () => {
    assert.deepEqual(
      ['patients', 'appointments', 'invoices', 'payments', 'refunds', 'documents', 'change_events', 'webhook_endpoints'].map((table) =>
        countOf(target, table),
      ),
      [2, 2, 2, 1, 1, 1, 0, 0],
    );
    assert.deepEqual(readdirSync(join(target, 'documents')), [JUERGEN]);
    assert.deepEqual(readFileSync(join(target, DOCUMENT)), readFileSync(join(fixture, DOCUMENT)));

    // The backup was made before its own data.export: it holds the old trail's first 15 events, then the restore's.
    const trail = trailOf(target);
    assertChain(trail);
    assert.deepEqual(
      trail.map((event) => event.action),
      [...OLD_ACTIONS, 'data.import'],
    );
    const verify = await runClinic(['audit', 'verify', '--json', '--data', target]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal((JSON.parse(verify.stdout) as { events: number }).events, 16);
  });

  it('has no webhook endpoints', () => assertNoWebhooks(target));

  it('appends the first change after the restore as seq 1', async () => {
    const edit = await runClinic(['patient', 'edit', 'P-000002', '--notes', 'Allergie: Penicillin, Latex', '--json', '--data', target]);
    assert.equal(edit.code, 0, edit.stderr);
    const events = readDatabase(target, (db) =>
      (db.prepare('SELECT seq, type, patient_id, data FROM change_events ORDER BY seq').all() as { data: string }[]).map((row) => ({
        ...row,
        data: JSON.parse(row.data) as unknown,
      })),
    );
    assert.deepEqual(events, [
      { seq: 1, type: 'patient.updated', patient_id: HUBER, data: { patient_number: 'P-000002', changed: ['notes'] } },
    ]);
    const check = await runClinic(['check', '--data', target]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('the migrations from schema version 4', () => {
  it('leave a database of the release before the change feed with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});
