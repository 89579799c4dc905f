import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { assertChain, trailOf } from '../../helpers/audit-chain.js';
import type { ChangeEvent, ListedWebhook } from '../../helpers/change-feed.js';
import { useRestoredBackup, useUpgradedRelease } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../../helpers/schema-of.js';
import { readDatabase } from '../../helpers/release-database.js';
import { assertKeptEveryRow, contentsOf, RELEASE_1_2_TABLES } from '../../helpers/release-rows.js';

/**
 * The migration to the keys' own rate limits (schema 6), on a data directory and a backup made by
 * the release before it, the one with the change feed and webhooks
 * (test/fixtures/release-1.2-feed/README.md says how).
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.2-feed', import.meta.url));
const secrets = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<
  'all_scopes' | 'tablet',
  { id: string; key: string }
> & {
  webhook: { id: string; secret: string };
};

/** What the old release left: a patient, its document, the feed's types and the trail's last hash. */
const HUBER = '055d3131-8bb2-4871-851c-ca471c641bd0';
const DOCUMENT = join('documents', 'd536d0ff-4bb2-41fc-bdd2-6073c24604a6', '973046d2-01ae-4c2e-af96-ff3e2218f3f9');
const OLD_FEED = [
  'patient.created',
  'patient.created',
  'patient.updated',
  'appointment.created',
  'appointment.created',
  'appointment.updated',
  'invoice.created',
  'payment.created',
  'refund.created',
  'invoice.created',
  'invoice.voided',
  'document.created',
];
const LAST_HASH = '119fec17a2d3defa12a1cff5339e4ea11bcfea02a370952cc645cb05d39a2a32';
const TABLES = [...RELEASE_1_2_TABLES, 'audit_events'];

interface ListedKey {
  id: string;
  name: string;
  scopes: string[];
  rate_limit_per_minute: number | null;
}

async function keysOf(dataDir: string): Promise<ListedKey[]> {
  const list = await runClinic(['api-key', 'list', '--json', '--data', dataDir]);
  assert.equal(list.code, 0, list.stderr);
  return JSON.parse(list.stdout) as ListedKey[];
}

async function webhooksOf(dataDir: string): Promise<ListedWebhook[]> {
  const list = await runClinic(['webhook', 'list', '--json', '--data', dataDir]);
  assert.equal(list.code, 0, list.stderr);
  return JSON.parse(list.stdout) as ListedWebhook[];
}

/** The endpoint the old release added, as `webhook list --json` shows it, `lag` events behind. */
const oldWebhook = (lag: number) => ({
  id: secrets.webhook.id,
  name: 'praxis-crm',
  url: 'http://192.0.2.10:8085/clinic-hooks',
  types: ['patient.created', 'patient.updated', 'appointment.created', 'appointment.updated'],
  state: 'enabled',
  last_delivered_seq: null,
  lag,
  last_error: null,
});

describe('upgrading a data directory made by the release before the keys’ rate limits', () => {
  const release = useUpgradedRelease(fixture, { keepOriginal: true });
  const asOld = { key: secrets.all_scopes.key };

  it('keeps every row of every table, every file, and the audit trail still verifies', async () => {
    const before = readDatabase(release.original, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), 5);
      return contentsOf(db, [...TABLES, 'api_keys']);
    });
    readDatabase(release.dataDir, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assertKeptEveryRow(db, before);
      assert.deepEqual(
        TABLES.map((table) => before[table]!.rows.length),
        [1, 1, 1, 2, 2, 2, 1, 1, 1, 12, 1, 14],
        'the fixture holds what its README says',
      );
      assert.deepEqual(db.prepare('SELECT id, rate_limit_per_minute FROM api_keys ORDER BY created_at LIMIT 2').all(), [
        { id: secrets.all_scopes.id, rate_limit_per_minute: null },
        { id: secrets.tablet.id, rate_limit_per_minute: null },
      ]);
    });
    assert.deepEqual(readFileSync(join(release.dataDir, DOCUMENT)), readFileSync(join(fixture, DOCUMENT)));

    assertChain(trailOf(release.dataDir));
    const verify = await runClinic(['audit', 'verify', '--json', '--data', release.dataDir]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.deepEqual(JSON.parse(verify.stdout), { ok: true, events: 14, last_seq: 14, last_hash: LAST_HASH });
  });

  it('lists the old keys with no limit of their own, and the webhook endpoint where it stood', async () => {
    assert.deepEqual(
      (await keysOf(release.dataDir))
        .filter((key) => key.name !== 'test')
        .map(({ name, scopes, rate_limit_per_minute }) => [name, scopes.length, rate_limit_per_minute]),
      [
        // Issued without --scopes: every scope, 1.3.0's reminders:read and patients:export too.
        ['Praxis-Software', 14, null],
        ['Tablet Wartezimmer', 3, null],
      ],
    );
    assert.deepEqual(await webhooksOf(release.dataDir), [oldWebhook(5)]);
  });

  it('still authenticates the old keys, without a limit, and keeps their scopes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i += 1) statuses.push((await release.server.request('GET', '/doctors', asOld)).status);
    assert.deepEqual(new Set(statuses), new Set([200]), '60 requests in a row, none refused');
    const tablet = { key: secrets.tablet.key };
    assert.equal((await release.server.request('GET', `/patients/${HUBER}`, tablet)).status, 200);
    assert.equal(
      (await release.server.request('GET', '/doctors', tablet)).status,
      403,
      'a key the old release limited to some scopes keeps them',
    );
    assert.equal((await release.server.request('GET', '/doctors', { key: 'clinic_not-a-key' })).status, 401);
  });

  it('keeps the feed’s events, and the first change after the upgrade follows as seq 13', async () => {
    const feed = await release.server.request('GET', '/events', asOld);
    assert.equal(feed.status, 200);
    assert.deepEqual(
      (feed.body as ChangeEvent[]).map((event) => [event.seq, event.type]),
      OLD_FEED.map((type, index) => [index + 1, type]),
    );
    const tablet = await release.server.request('GET', '/events?types=patient.updated', { key: secrets.tablet.key });
    assert.deepEqual(
      (tablet.body as ChangeEvent[]).map((event) => [event.seq, event.patient_id, event.data]),
      [[3, HUBER, { patient_number: 'P-000002', changed: ['notes'] }]],
    );

    const patch = await release.server.request('PATCH', `/patients/${HUBER}`, { ...asOld, body: { notes: 'Allergie: Penicillin, Latex' } });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.version, 3);
    const next = await release.server.request('GET', '/events?after=12', asOld);
    assert.deepEqual(
      (next.body as ChangeEvent[]).map((event) => [event.seq, event.type]),
      [[13, 'patient.updated']],
    );
    assert.deepEqual(await webhooksOf(release.dataDir), [oldWebhook(6)], 'the new event is one of its types');
    const check = await runClinic(['check', '--data', release.dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it('takes a new key with a limit of its own', async () => {
    const created = await runClinic(['api-key', 'create', '--name', 'Kiosk', '--rate-limit', '2', '--json', '--data', release.dataDir]);
    assert.equal(created.code, 0, created.stderr);
    const { key, rate_limit_per_minute } = JSON.parse(created.stdout) as { key: string; rate_limit_per_minute: number };
    assert.equal(rate_limit_per_minute, 2);
    // All three in one clock minute.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await sleep(left + 50);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await release.server.request('GET', '/doctors', { key })).status);
    assert.deepEqual(statuses, [200, 200, 429]);
  });
});

describe('a backup made by the release before the keys’ rate limits', () => {
  const target = useRestoredBackup(fixture);

  it('restores with every record, event, key and the webhook endpoint; the keys have no limit', async () => {
    readDatabase(target(), (db) => {
      const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      // The backup was made before its own data.export: 13 events of the trail, then the restore's.
      assert.deepEqual(TABLES.map(count), [1, 1, 1, 2, 2, 2, 1, 1, 1, 12, 1, 14]);
      assert.deepEqual(
        (db.prepare('SELECT type FROM change_events ORDER BY seq').all() as { type: string }[]).map((row) => row.type),
        OLD_FEED,
      );
    });
    assert.deepEqual(readFileSync(join(target(), DOCUMENT)), readFileSync(join(fixture, DOCUMENT)));
    assert.deepEqual(
      (await keysOf(target())).map((key) => [key.id, key.rate_limit_per_minute]),
      [
        [secrets.all_scopes.id, null],
        [secrets.tablet.id, null],
      ],
    );
    assert.deepEqual(await webhooksOf(target()), [oldWebhook(5)]);
    const trail = trailOf(target());
    assertChain(trail);
    assert.equal(trail.at(-1)?.action, 'data.import');
    const check = await runClinic(['check', '--data', target()]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('the migrations from schema version 5', () => {
  it('leave a database of the release before the keys’ rate limits with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});
