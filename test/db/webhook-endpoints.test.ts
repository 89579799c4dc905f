// The webhook endpoints' rows: where each stands in the feed, what the desk and the server's attempts do to it (clinic-api-1.3.md).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import {
  enableWebhookEndpoint,
  enabledWebhookEndpoints,
  findWebhookEndpoint,
  findWebhookEndpointByName,
  insertWebhookEndpoint,
  listEndpointReaches,
  listWebhookEndpointRows,
  moveWebhookEndpoint,
  recordWebhookDelivered,
  recordWebhookFailure,
  removeWebhookEndpoint,
  type WebhookEndpointRow,
  type WebhookFailure,
} from '../../src/db/webhook-endpoints.js';
import { useTestDatabase } from '../helpers/fixtures.js';

const ADDED = '2026-11-30T08:00:00.000Z';
const FAILING_SINCE = '2026-11-30T09:00:00.000Z';
const NOW = '2026-11-30T10:00:00.000Z';

/** An enabled endpoint standing at event 10, added there, stored; override any column. */
function storeEndpoint(db: Db, overrides: Partial<WebhookEndpointRow> = {}): WebhookEndpointRow {
  const row: WebhookEndpointRow = {
    id: randomUUID(),
    name: `crm ${randomUUID().slice(0, 8)}`,
    url: 'https://crm.example/hooks/clinic',
    types: null,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    state: 'enabled',
    position: 10,
    last_delivered_seq: null,
    last_delivered_at: null,
    failing_since: null,
    failed_attempts: 0,
    next_attempt_at: null,
    last_error: null,
    disabled_at: null,
    created_at: ADDED,
    first_position: 10,
    ...overrides,
  };
  insertWebhookEndpoint(db, row);
  return row;
}

/** An endpoint in its third failure in a row, the next attempt waiting. */
const FAILING: Partial<WebhookEndpointRow> = {
  failing_since: FAILING_SINCE,
  failed_attempts: 3,
  next_attempt_at: '2026-11-30T10:02:00.000Z',
  last_error: 'HTTP 503',
};

/** The failure of an attempt started on `row` as it stood: the fourth of its run, or the first. */
const failureOf = (row: WebhookEndpointRow, overrides: Partial<WebhookFailure> = {}): WebhookFailure => ({
  id: row.id,
  position: row.position,
  previous_failed_attempts: row.failed_attempts,
  previous_failing_since: row.failing_since,
  failing_since: row.failing_since ?? NOW,
  failed_attempts: row.failed_attempts + 1,
  next_attempt_at: '2026-11-30T10:10:00.000Z',
  last_error: 'HTTP 500',
  state: 'enabled',
  disabled_at: null,
  ...overrides,
});

describe('webhook endpoints (db)', () => {
  const data = useTestDatabase({ each: true });

  it('moves an endpoint past a delivered event and ends its run of failures, if it still stands where the attempt began', () => {
    const endpoint = storeEndpoint(data.db, FAILING);
    assert.equal(recordWebhookDelivered(data.db, { id: endpoint.id, position: 10, seq: 12, at: NOW }), true);
    assert.deepEqual(findWebhookEndpoint(data.db, endpoint.id), {
      ...endpoint,
      position: 12,
      last_delivered_seq: 12,
      last_delivered_at: NOW,
      failing_since: null,
      failed_attempts: 0,
      next_attempt_at: null,
      last_error: null,
    });
  });

  it('leaves an endpoint the desk replayed, disabled or removed during the attempt as the desk left it', () => {
    const replayed = storeEndpoint(data.db, { position: 4 });
    const disabled = storeEndpoint(data.db, { ...FAILING, state: 'disabled', disabled_at: NOW });
    const removed = storeEndpoint(data.db);
    removeWebhookEndpoint(data.db, removed.id, NOW);
    for (const row of [replayed, disabled, removed]) {
      // The attempt began when the endpoint stood at 10 and was enabled.
      assert.equal(recordWebhookDelivered(data.db, { id: row.id, position: 10, seq: 11, at: NOW }), false, `delivered to ${row.name}`);
      assert.equal(recordWebhookFailure(data.db, failureOf({ ...row, position: 10, state: 'enabled' })), false, `failed at ${row.name}`);
    }
    assert.deepEqual(
      [findWebhookEndpoint(data.db, replayed.id), findWebhookEndpoint(data.db, disabled.id), findWebhookEndpoint(data.db, removed.id)],
      [replayed, disabled, undefined],
    );
  });

  it('records a failure over the run of failures the attempt began in, and not over an enable the desk made on its own connection meanwhile', () => {
    const first = storeEndpoint(data.db);
    assert.equal(recordWebhookFailure(data.db, failureOf(first)), true);
    assert.deepEqual(findWebhookEndpoint(data.db, first.id), {
      ...first,
      failing_since: NOW,
      failed_attempts: 1,
      next_attempt_at: '2026-11-30T10:10:00.000Z',
      last_error: 'HTTP 500',
    });
    const failing = storeEndpoint(data.db, FAILING);
    const desk = openDatabase(data.dataDir);
    try {
      enableWebhookEndpoint(desk, failing.id);
    } finally {
      desk.close();
    }
    // The attempt began in the third failure; the desk's enable ended that run: the next attempt is due at once.
    assert.equal(recordWebhookFailure(data.db, failureOf(failing)), false);
    assert.deepEqual(findWebhookEndpoint(data.db, failing.id), {
      ...failing,
      failing_since: null,
      failed_attempts: 0,
      next_attempt_at: null,
    });
    const disabling = storeEndpoint(data.db, FAILING);
    assert.equal(recordWebhookFailure(data.db, failureOf(disabling, { state: 'disabled', disabled_at: NOW, next_attempt_at: null })), true);
    assert.deepEqual(
      [
        findWebhookEndpoint(data.db, disabling.id)?.state,
        enabledWebhookEndpoints(data.db)
          .map((row) => row.id)
          .sort(),
      ],
      ['disabled', [first.id, failing.id].sort()],
    );
  });

  it('enables an endpoint where it stands, its next attempt due at once, and keeps its last error to show', () => {
    const endpoint = storeEndpoint(data.db, { ...FAILING, state: 'disabled', disabled_at: NOW, next_attempt_at: null });
    enableWebhookEndpoint(data.db, endpoint.id);
    assert.deepEqual(findWebhookEndpoint(data.db, endpoint.id), {
      ...endpoint,
      state: 'enabled',
      disabled_at: null,
      failing_since: null,
      failed_attempts: 0,
      next_attempt_at: null,
    });
  });

  it('moves an endpoint back for a replay and lowers the lowest position it ever held; a later move keeps that', () => {
    const endpoint = storeEndpoint(data.db, FAILING);
    moveWebhookEndpoint(data.db, endpoint.id, 3);
    const movedBack = { ...endpoint, position: 3, first_position: 3, failing_since: null, failed_attempts: 0, next_attempt_at: null };
    assert.deepEqual(findWebhookEndpoint(data.db, endpoint.id), movedBack);
    moveWebhookEndpoint(data.db, endpoint.id, 8);
    assert.deepEqual(findWebhookEndpoint(data.db, endpoint.id), { ...movedBack, position: 8 });
    moveWebhookEndpoint(data.db, endpoint.id, 0);
    assert.deepEqual(findWebhookEndpoint(data.db, endpoint.id), { ...movedBack, position: 0, first_position: 0 });
  });

  it("removes an endpoint from the list, from delivery and its name, and keeps its range unlisted for the patient's copy", () => {
    const kept = storeEndpoint(data.db, { name: 'crm', created_at: '2026-11-30T07:00:00.000Z' });
    const removed = storeEndpoint(data.db, { name: 'reminders', types: '["appointment.created"]', position: 14, first_position: 2 });
    removeWebhookEndpoint(data.db, removed.id, NOW);
    assert.deepEqual(
      [listWebhookEndpointRows(data.db), enabledWebhookEndpoints(data.db), findWebhookEndpointByName(data.db, 'reminders')],
      [[kept], [kept], undefined],
    );
    const reachOf = ({ id, name, url, types, first_position, position, created_at }: WebhookEndpointRow) => ({
      id,
      name,
      url,
      types,
      first_position,
      position,
      created_at,
    });
    const added = storeEndpoint(data.db, { name: 'reminders', created_at: '2026-11-30T11:00:00.000Z' });
    // Oldest first across both: the removed one between the one kept and its namesake added after.
    assert.deepEqual(listEndpointReaches(data.db), [reachOf(kept), reachOf(removed), reachOf(added)]);
  });

  it('lists every endpoint and the enabled ones oldest first, a tie by id, and finds one by its exact id or name', () => {
    const newest = storeEndpoint(data.db, { name: 'newest', created_at: NOW });
    const tiedB = storeEndpoint(data.db, { id: 'bbbbbbbb-0000-4000-8000-000000000000', name: 'B' });
    const tiedA = storeEndpoint(data.db, { id: 'aaaaaaaa-0000-4000-8000-000000000000', name: 'A', state: 'disabled', disabled_at: NOW });
    assert.deepEqual(
      [listWebhookEndpointRows(data.db).map((row) => row.name), enabledWebhookEndpoints(data.db).map((row) => row.name)],
      [
        ['A', 'B', 'newest'],
        ['B', 'newest'],
      ],
    );
    assert.deepEqual(
      [findWebhookEndpoint(data.db, tiedA.id), findWebhookEndpointByName(data.db, 'B'), findWebhookEndpointByName(data.db, 'NEWEST')],
      [tiedA, tiedB, undefined],
    );
    assert.equal(findWebhookEndpoint(data.db, newest.id)?.name, 'newest');
  });
});
