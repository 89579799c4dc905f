// The api_keys table's statements (decisions.md §2: only a key's SHA-256 is kept; a revoked key stops at once, also on a running server).
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { countApiKeys, findApiKeyByHash, insertApiKey, listApiKeyRows, revokeApiKeyRow, type ApiKeyRow } from '../../src/db/api-keys.js';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/thrown.js';

/** A key's row as CREATE_API_KEY stores it (a random hash, every scope, no limit), stored; override any column. */
function storeKey(db: Db, overrides: Partial<ApiKeyRow> = {}): ApiKeyRow {
  const row: ApiKeyRow = {
    id: randomUUID(),
    name: 'practice software',
    key_hash: randomBytes(32).toString('hex'),
    scopes: '*',
    created_at: '2026-11-30T08:00:00.000Z',
    revoked_at: null,
    rate_limit_per_minute: null,
    ...overrides,
  };
  insertApiKey(db, row);
  return row;
}

describe('api keys (db)', () => {
  const data = useTestDatabase({ each: true });

  it('finds a key by its hash, a revoked one too (the request is refused by what it finds), and none for another hash', () => {
    const key = storeKey(data.db, { scopes: 'patients:read invoices:read', rate_limit_per_minute: 60 });
    const revoked = storeKey(data.db, { revoked_at: '2026-11-30T09:00:00.000Z' });
    assert.deepEqual(findApiKeyByHash(data.db, key.key_hash), key);
    assert.deepEqual(findApiKeyByHash(data.db, revoked.key_hash), revoked);
    assert.equal(findApiKeyByHash(data.db, '0'.repeat(64)), undefined);
  });

  it('revokes one key only and keeps the first time of revocation; an unknown id revokes nothing', () => {
    const revoked = storeKey(data.db);
    const kept = storeKey(data.db);
    assert.deepEqual(revokeApiKeyRow(data.db, revoked.id, '2026-11-30T09:00:00.000Z'), {
      ...revoked,
      revoked_at: '2026-11-30T09:00:00.000Z',
    });
    assert.deepEqual(revokeApiKeyRow(data.db, revoked.id, '2026-12-01T09:00:00.000Z'), {
      ...revoked,
      revoked_at: '2026-11-30T09:00:00.000Z',
    });
    assert.equal(revokeApiKeyRow(data.db, randomUUID(), '2026-11-30T09:00:00.000Z'), undefined);
    assert.deepEqual(findApiKeyByHash(data.db, kept.key_hash), kept);
  });

  it("sees a revocation made on another connection (the desk's) at the next lookup", () => {
    const key = storeKey(data.db);
    assert.equal(findApiKeyByHash(data.db, key.key_hash)?.revoked_at, null);
    const desk = openDatabase(data.dataDir);
    try {
      revokeApiKeyRow(desk, key.id, '2026-11-30T09:00:00.000Z');
    } finally {
      desk.close();
    }
    assert.equal(findApiKeyByHash(data.db, key.key_hash)?.revoked_at, '2026-11-30T09:00:00.000Z');
  });

  it('lists every key oldest first, a tie by id, and counts the revoked ones too; a clinic without keys counts 0', () => {
    assert.deepEqual([countApiKeys(data.db), listApiKeyRows(data.db)], [0, []]);
    const newest = storeKey(data.db, { name: 'newest', created_at: '2026-11-30T10:00:00.000Z' });
    const tiedB = storeKey(data.db, { id: 'bbbbbbbb-0000-4000-8000-000000000000', name: 'tied b' });
    const tiedA = storeKey(data.db, { id: 'aaaaaaaa-0000-4000-8000-000000000000', name: 'tied a', revoked_at: '2026-11-30T11:00:00.000Z' });
    assert.deepEqual(
      listApiKeyRows(data.db).map((row) => row.name),
      [tiedA.name, tiedB.name, newest.name],
    );
    // The first `serve` issues a key only to a clinic that never had one: a revoked key counts.
    assert.equal(countApiKeys(data.db), 3);
  });

  it('keeps a limit of 1 to 1,000,000 requests a minute, or none, and refuses one past it', () => {
    assert.equal(findApiKeyByHash(data.db, storeKey(data.db, { rate_limit_per_minute: 1 }).key_hash)?.rate_limit_per_minute, 1);
    assert.equal(
      findApiKeyByHash(data.db, storeKey(data.db, { rate_limit_per_minute: 1_000_000 }).key_hash)?.rate_limit_per_minute,
      1_000_000,
    );
    for (const outside of [0, 1_000_001]) {
      assert.equal(
        sqliteErrorCode(thrownBy(() => storeKey(data.db, { rate_limit_per_minute: outside }))),
        'SQLITE_CONSTRAINT_CHECK',
        `${outside} a minute`,
      );
    }
    assert.equal(countApiKeys(data.db), 2);
  });
});
